#!/bin/sh
# --tune on host with the tiny model: search, exhaustive grid, env file,
# trials and --resume, the env file sourced into a fresh run, bad input.
# The host runs name --backend mpi: on a machine with a GPU, --tune picks NCCL.
. tests/lib.sh
if ! grep -q 'HAVE_OPENBLAS = 1' config.mk; then
  echo "1..0 # SKIP configured without OpenBLAS: --tune is disabled"
  exit 0
fi
plan 52

# A small grid: 8 algorithm/segment pairs x 5 bucket sizes (4M is capped
# at tiny's 3098 KiB of gradients) = 40 configurations.
GRID="--workload tiny --tune-reps 5 --tune-segments 64K,1M --tune-buckets 256K,512K,1M,2M,4M"
summary() { jq -c "select(.type == \"summary\") | $2" "$1"; }

# shellcheck disable=SC2086
# --resume of a file not there yet starts afresh, and says so (issue 28)
mpi 2 --tune --backend mpi $GRID --trials "$TMP/cd.jsonl" --resume --env-out "$TMP/tuned.env"
ok $STATUS "np 2: the default search exits 0"
[ $STATUS -eq 0 ] || diag "$TMP/err"
grep -q -- "--resume: $TMP/cd.jsonl does not exist: starting a fresh search" "$TMP/err"
ok $? "--resume of a missing trials file says it starts a fresh search"
grep -q '^# evaluations: [0-9]* configurations of a grid of 40' "$TMP/out" &&
  grep -q '^default ' "$TMP/out" && grep -q '^tuned ' "$TMP/out" && grep -q '^gain: ' "$TMP/out"
ok $? "summary: evaluations against the grid, default and tuned re-measured, the gain"
grep -Eq 'rho -?[0-9.]+ \+- [0-9.]+ ' "$TMP/out" && grep -q 'GFLOP/s per rank' "$TMP/out"
ok $? "summary: rho with its spread, achieved FLOP/s"
# The 20% rule is three-way on the paired overhead's 95% interval: PASS
# only when it lies under the target, FAIL only when over, else INCONCLUSIVE
# (issue 31); the overhead is never printed negative.
awk '/^ *overhead / {
  if ($2 ~ /^-/) bad = 1
  if (match($0, /: (PASS|FAIL|INCONCLUSIVE) \(target [0-9.]+%/)) {
    split(substr($0, RSTART + 2, RLENGTH - 2), w, " "); v = w[1]; t = w[3] + 0
  } else bad = 1
  if (match($0, /CI -?[0-9.]+% to -?[0-9.]+%/)) {
    split(substr($0, RSTART + 3, RLENGTH - 3), c, " to "); lo = c[1] + 0; hi = c[2] + 0
    want = hi <= t ? "PASS" : lo > t ? "FAIL" : "INCONCLUSIVE"
    if (v != want) bad = 1
  } else if (v != "INCONCLUSIVE") bad = 1
  n++
} END { exit !(n >= 1 && !bad) }' "$TMP/out"
r=$?
ok $r "summary: each overhead verdict agrees with its printed interval and the target"
[ $r -eq 0 ] || grep '^ *overhead ' "$TMP/out" >&2
summary "$TMP/cd.jsonl" '.default | .overhead >= 0 and .overhead_lo <= .overhead_hi
  and (.overhead_verdict | test("^(PASS|FAIL|INCONCLUSIVE)$"))
  and (((.overhead - .rho / (1 + .rho)) | fabs) < 1e-5 or .overhead_noise)' | grep -q '^true$'
ok $? "trials summary: overhead = rho / (1 + rho) (or noise), its interval and verdict"
[ "$(grep -c "^export [A-Za-z_]*='[0-9]*'$" "$TMP/tuned.env")" -eq 4 ] &&
  [ "$(grep -vc '^#' "$TMP/tuned.env")" -eq 4 ]
ok $? "env file: 4 single-quoted exports, everything else comments"
grep -Eq '^# rho default -?[0-9.]+ \+- [0-9.]+, tuned -?[0-9.]+' "$TMP/tuned.env" &&
  grep -q '^# ranks: 2 on 1 node' "$TMP/tuned.env" && grep -q '^# hosts: ' "$TMP/tuned.env" &&
  grep -q 'bucket_cap_mb=' "$TMP/tuned.env" && grep -q '^# model: tiny' "$TMP/tuned.env"
ok $? "env file header: hosts, ranks, MPI, model, rho default vs tuned, how to apply"
vars=$(env -i sh -c ". '$TMP/tuned.env'; env" | cut -d= -f1 | grep -v '^PWD$' | sort | tr '\n' ' ')
[ "$vars" = "COLLBENCH_BUCKET_BYTES OMPI_MCA_coll_tuned_allreduce_algorithm OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize OMPI_MCA_coll_tuned_use_dynamic_rules " ]
ok $? "sourcing the env file sets those four variables and nothing else ($vars)"
head -n 1 "$TMP/cd.jsonl" | jq -e '.type == "tune" and .setup.nranks == 2' >/dev/null
ok $? "trials: the first line names the setup"
jq -e -s '[.[] | select(.type == "trial")] | length > 0 and
  all(.t_step_us > 0 and .ci95_us >= 0 and .reps == 5 and
      (.segsize == 0 or .algorithm == 5))' "$TMP/cd.jsonl" >/dev/null
ok $? "trials: one line per measured configuration; segment sizes only with algorithm 5"
summary "$TMP/cd.jsonl" '.evaluations <= 0.4 * .grid and .grid == 40' | grep -qx true
ok $? "the default search evaluated at most 40% of the grid ($(summary "$TMP/cd.jsonl" .evaluations) of 40)"

# shellcheck disable=SC2086
mpi 2 --tune --backend mpi $GRID --exhaustive --trials "$TMP/ex.jsonl"
ok $STATUS "np 2: --exhaustive exits 0"
[ $STATUS -eq 0 ] || diag "$TMP/err"
summary "$TMP/ex.jsonl" '.evaluations == 40 and .grid == 40' | grep -qx true
ok $? "--exhaustive measured the whole grid"
chosen=$(summary "$TMP/cd.jsonl" '.tuned | [.algorithm, .segsize, .bucket_bytes]')
jq -e -s --argjson c "$chosen" '[.[] | select(.type == "trial")] as $tr |
  ($tr | min_by(.t_step_us)) as $best |
  ($tr | map(select([.algorithm, .segsize, .bucket_bytes] == $c)) | .[0]) as $x |
  $x != null and (($x.t_step_us - $best.t_step_us) <= ($x.ci95_us + $best.ci95_us) or
    $x.t_step_us <= 1.4 * $best.t_step_us)' \
  "$TMP/ex.jsonl" >/dev/null
within=$?
# Two runs, so between-run spread counts too: 5 rounds' CIs miss it under
# load (it failed once in make check and once under sanitizers with other
# jobs running); 1.4x is the run-to-run spread seen on the 2-core CI VM, and a
# search that picked a clearly slower configuration still fails
ok $within "the search's choice $chosen is within the exhaustive run's noise (or 1.4x) of its best"
[ $within -eq 0 ] ||
  jq -c -s --argjson c "$chosen" '[.[] | select(.type == "trial")] | (min_by(.t_step_us)),
    (.[] | select([.algorithm, .segsize, .bucket_bytes] == $c))' "$TMP/ex.jsonl" | diag

# --resume with every batch in the file: nothing is measured again.
cp "$TMP/cd.jsonl" "$TMP/full.jsonl"
# shellcheck disable=SC2086
mpi 2 --tune --backend mpi $GRID --trials "$TMP/full.jsonl" --resume
ok $STATUS "--resume of a finished search exits 0"
! grep '^  [a-z-]* *[0-9]* configs' "$TMP/out" | grep -qv '(resumed)'
ok $? "every batch was taken from the trials file"
[ "$(grep -c '"trial"' "$TMP/full.jsonl")" -eq "$(grep -c '"trial"' "$TMP/cd.jsonl")" ] &&
  [ "$(summary "$TMP/full.jsonl" .tuned.algorithm)" = "$(summary "$TMP/cd.jsonl" .tuned.algorithm)" ]
ok $? "no trial re-measured, the same choice replayed"
# An interrupted search: the first batch kept, plus a torn line.
n=$(jq -c 'select(.type == "trial" and .batch == 0)' "$TMP/cd.jsonl" | wc -l)
head -n $((n + 1)) "$TMP/cd.jsonl" >"$TMP/cut.jsonl"
printf '{"type":"trial","batch":1,"alg' >>"$TMP/cut.jsonl"
# shellcheck disable=SC2086
mpi 2 --tune --backend mpi $GRID --trials "$TMP/cut.jsonl" --resume
ok $STATUS "--resume of an interrupted search (torn last line) exits 0"
[ $STATUS -eq 0 ] || diag "$TMP/err"
grep -q '^  bucket .*(resumed)' "$TMP/out" && grep '^  algorithm ' "$TMP/out" | grep -qv resumed
ok $? "the finished batch is reused, the rest measured"
[ "$(head -n $((n + 1)) "$TMP/cut.jsonl")" = "$(head -n $((n + 1)) "$TMP/cd.jsonl")" ] &&
  summary "$TMP/cut.jsonl" .evaluations | grep -q '^[0-9]'
ok $? "the kept trials stay first, the search completes with a summary"

# The env file sourced into a fresh run gives it those settings, read
# back through MPI_T (and the bucket through COLLBENCH_BUCKET_BYTES).
cat >"$TMP/five.env" <<'ENV'
export OMPI_MCA_coll_tuned_use_dynamic_rules='1'
export OMPI_MCA_coll_tuned_allreduce_algorithm='5'
export OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize='65536'
export COLLBENCH_BUCKET_BYTES='1048576'
ENV
(. "$TMP/five.env" && mpi 2 --tune --backend mpi --workload tiny --no-search --tune-reps 3 \
  --trials "$TMP/five.jsonl" && exit $STATUS)
ok $? "a run with an env file sourced exits 0"
summary "$TMP/five.jsonl" '.default | [.algorithm, .segsize, .bucket_bytes]' |
  grep -qx '\[5,65536,1048576\]'
ok $? "that run's launch settings are the env file's (algorithm 5, 64K segments, 1 MiB)"
want=$(sed -n "s/^export OMPI_MCA_coll_tuned_allreduce_algorithm='\([0-9]*\)'$/\1/p" "$TMP/tuned.env")
wantb=$(sed -n "s/^export COLLBENCH_BUCKET_BYTES='\([0-9]*\)'$/\1/p" "$TMP/tuned.env")
(. "$TMP/tuned.env" && mpi 2 --tune --backend mpi --workload tiny --no-search --tune-reps 3 \
  --trials "$TMP/again.jsonl" && exit $STATUS)
[ "$(summary "$TMP/again.jsonl" '.default | [.algorithm, .bucket_bytes]')" = "[$want,$wantb]" ]
ok $? "the tuned env file sourced: the fresh run runs algorithm $want, bucket $wantb"

mpi 4 --tune --backend mpi --workload tiny --tune-reps 3 --tune-algorithms 0,4 --tune-buckets 1M,4M \
  --env-out "$TMP/np4.env" --trials "$TMP/np4.jsonl"
ok $STATUS "np 4 (oversubscribed): --tune exits 0"
[ $STATUS -eq 0 ] || diag "$TMP/err"
grep -q '^# ranks: 4 on 1 node' "$TMP/np4.env" && summary "$TMP/np4.jsonl" .grid | grep -qx 4
ok $? "np 4: env file and trials written (grid 2 x 2)"

# Bad input: one message naming the value, exit 2, no earlier file touched.
echo '{"keep":"me"}' >"$TMP/keep.jsonl"
cases='--tune --workload gpt5|gpt5
--tune --workload-config hidden=100,heads=3|hidden=100
--tune --workload-config depth=2|depth
--tune --tune-algorithms 0,9|9
--tune --tune-algorithms ring,foo|foo
--tune --tune-protocols simple,ll256|ll256
--tune --tune-ctas 4,0|'0'
--tune --tune-buckets 0|0
--env-out x.env|--tune'
while IFS='|' read -r args want; do
  # shellcheck disable=SC2086
  ./collbench $args --trials "$TMP/keep.jsonl" >"$TMP/out" 2>"$TMP/err"
  status=$?
  [ $status -eq 2 ] && [ "$(wc -l <"$TMP/err")" -le 2 ] && grep -qF -- "$want" "$TMP/err"
  ok $? "'$args' exits 2 naming '$want' (got $status)"
done <<EOF
$cases
EOF
./collbench --tune --resume >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- '--trials' "$TMP/err"
ok $? "--resume without --trials exits 2 naming --trials"
COLLBENCH_BUCKET_BYTES=12Q mpi 2 --tune --backend mpi --workload tiny --trials "$TMP/keep.jsonl"
[ $STATUS -eq 2 ] && grep -q 12Q "$TMP/err"
ok $? "a bad COLLBENCH_BUCKET_BYTES exits 2 naming it"
mpi 2 --tune --backend mpi --workload tiny --tune-reps 7 --trials "$TMP/cd.jsonl" --resume
[ $STATUS -eq 2 ] && grep -q 'another setup' "$TMP/err" &&
  [ "$(grep -c '"trial"' "$TMP/cd.jsonl")" -gt 0 ]
ok $? "--resume of a file for another setup exits 2 and keeps the file"
mpi 2 --tune --backend mpi --workload tiny --env-out "$TMP/no-such-dir/tuned.env"
[ $STATUS -eq 2 ] && grep -q -- "--env-out: cannot write '$TMP/no-such-dir/tuned.env': No such file or directory" "$TMP/err"
ok $? "--env-out in a missing directory exits 2 before any step runs (got $STATUS)"
mpi 2 --tune --backend mpi --workload llama-7b --trials "$TMP/keep.jsonl"
[ $STATUS -eq 2 ] && grep -q 'need [0-9.]* GiB' "$TMP/err"
ok $? "llama-7b on this host: exit 2, says how much memory it needs"
grep -qx '{"keep":"me"}' "$TMP/keep.jsonl"
ok $? "no bad command line touched an earlier trials file"
mpi 2 --tune --backend mpi --workload tiny --workload-config seq=256 --timeout 0.01
[ $STATUS -eq 3 ] && grep -q 'timeout: rank [01] on .* in --tune step phase, algorithm' "$TMP/err"
ok $? "a phase past --timeout: exit 3 naming rank, phase and configuration"

# The GPU mode (cuBLAS step, NCCL all-reduce): its options are refused on
# the host; without a GPU --backend nccl says why; with one, 2 ranks share it.
mpi 2 --tune --backend mpi --workload tiny --tune-protocols ll
[ $STATUS -eq 2 ] && grep -q -- '--tune-protocols: NCCL only' "$TMP/err"
ok $? "--tune-protocols on the host tuner exits 2 (got $STATUS)"
mpi 2 --tune --backend mpi --workload tiny --plugin-out "$TMP/rules.csv"
[ $STATUS -eq 2 ] && grep -q -- '--plugin-out: NCCL only' "$TMP/err" && [ ! -e "$TMP/rules.csv" ]
ok $? "--plugin-out on the host tuner exits 2 and writes nothing (got $STATUS)"
if ! gpu_usable; then
  mpi 2 --tune --backend nccl --workload tiny
  [ $STATUS -eq 2 ] && grep -q "nccl: no usable GPU\|without CUDA\|unknown backend\|unknown value 'nccl'" "$TMP/err"
  ok $? "--tune --backend nccl without a GPU exits 2 saying why (got $STATUS)"
  for what in "2 ranks --share-gpu: --tune on NCCL writes NCCL_* settings" \
    "--plugin-out: per-size rules for collbench's tuner plugin" \
    "collbench's tuner plugin loads the GPU run's rules and follows them" \
    "--env-out names all-reduce only (NCCL_ALGO='allreduce:...')" \
    "LL128 in the env file only with --plugin-out's checked results" \
    "--tune-ctas under NCCL_MIN_CTAS exits 2 naming it" \
    "an NCCL_ALGO NCCL would refuse exits 2 naming it"; do
    TESTS_RUN=$((TESTS_RUN + 1))
    echo "ok $TESTS_RUN # SKIP no GPU: $what"
  done
  finish
fi
mpi 2 --tune --backend nccl --share-gpu --workload tiny --tune-reps 3 --tune-buckets 1M,4M \
  --env-out "$TMP/gpu.env" --plugin-out "$TMP/rules.csv" -e 1M --max-time 0.05
ok $STATUS "2 ranks --share-gpu: --tune on NCCL exits 0"
[ $STATUS -eq 0 ] || diag "$TMP/err"
grep -q '^# comm: nccl' "$TMP/out" && grep -q '^# ranks: 2 on 1 node(s); NCCL ' "$TMP/gpu.env" &&
  [ "$(grep -vc '^#' "$TMP/gpu.env")" -ge 1 ]
ok $? "the env file names NCCL and holds the tuned settings"
head -n 1 "$TMP/rules.csv" | grep -qx '# collbench-tuner-rules 1' &&
  grep -Eq '^allreduce,0,[0-9]+,(tree|ring),(ll|ll128|simple),(-1|[0-9]+),2,2,-1,-1,(-?[0-9.]+|none)$' "$TMP/rules.csv"
ok $? "--plugin-out: per-size rules for collbench's tuner plugin, from 0 bytes"
# collbench's plugin loads that file and its rules drive its choices
CB_TUNER_CHECK_FILE=$TMP/rules.csv CB_TUNER_CHECK_SHAPE=2,2 build/tests/test_nccl_tuner.t >"$TMP/plugin" 2>&1
st=$?
ok $st "collbench's tuner plugin loads the GPU run's rules and follows them"
[ $st -eq 0 ] || { echo "test_nccl_tuner.t exit $st" | diag; diag "$TMP/plugin" "$TMP/rules.csv"; }
! grep -E "^export NCCL_(ALGO|PROTO)=" "$TMP/gpu.env" | grep -v "='allreduce:[A-Za-z0-9]*'$"
ok $? "--env-out names all-reduce only (NCCL_ALGO='allreduce:...')"
! grep -q "NCCL_PROTO='allreduce:LL128'" "$TMP/gpu.env" || grep -q ',ll128,' "$TMP/rules.csv"
ok $? "LL128 in the env file only with --plugin-out's checked results"
NCCL_MIN_CTAS=2 mpi 2 --tune --backend nccl --share-gpu --workload tiny --tune-ctas 4
[ $STATUS -eq 2 ] && grep -q "NCCL_MIN_CTAS='2'" "$TMP/err"
ok $? "--tune-ctas under NCCL_MIN_CTAS exits 2 naming it (got $STATUS)"
NCCL_ALGO='tree;ring' mpi 2 --tune --backend nccl --share-gpu --workload tiny
[ $STATUS -eq 2 ] && grep -q "NCCL_ALGO='tree;ring'" "$TMP/err"
ok $? "an NCCL_ALGO NCCL would refuse exits 2 naming it (got $STATUS)"
finish
