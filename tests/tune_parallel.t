#!/bin/sh
# --tune --parallel (issue 59 items 1, 2 and 4): the reference step `tiny`
# as each layout issues it, on 4 ranks: the calls rank 0 makes per step
# against a hand count (tests/unit/test_layout.c counts every rank and
# layout), the exposed communication of each dimension with its interval,
# the overhead's three-way verdict, the --trials line's "exposed" object
# agreeing with the table; the search over each communicator's libnbc
# algorithms, its choice the same in the table, the trials line and the
# env file. Layouts that cannot run are exit 2 with nothing replaced.
. tests/lib.sh
plan 24

# $1: the --trials file; true when the layout line is coherent: every
# dimension named in $2 (a jq array) and no other, each share inside
# [0, 1] and inside its interval, the verdict the overhead's interval says
coherent() {
  jq -s -e --argjson dims "$2" '.[0] as $l | $l.type == "layout"
    and ($l.exposed | keys) == ($dims | sort)
    and ($l.exposed | to_entries | all(.value.share as $s
          | $s[1] <= $s[0] and $s[0] <= $s[2] and $s[1] >= 0 and $s[2] <= 1))
    and ($l.overhead as $o | $l.verdict == (if $o[2] < 0 then "INCONCLUSIVE"
          elif $o[1] > $l.max_overhead then "FAIL"
          elif $o[2] <= $l.max_overhead then "PASS" else "INCONCLUSIVE" end))' "$1" >/dev/null
}

# the exposed line: each dimension once, with a share, an interval, a time
exposed_line() {
  grep -Eq "^exposed: $1\$" "$TMP/out"
}
PCT='[0-9.]+% \[[0-9.]+, [0-9.]+\] \([0-9.]+ ms\)'

mpi 4 --tune --backend mpi --workload tiny --parallel tp=2,dp=2 --shard full --tune-reps 5 \
  --trials "$TMP/full.jsonl"
st=$STATUS
[ $st -eq 0 ] && grep -q '^# each step, rank 0 issues: tp 16 allreduce; dp 8 allgather, 4 reducescatter$' "$TMP/out"
ok $? "tp=2,dp=2 --shard full: 4 layers x 4 tp all-reduces; 8 gathers and 4 reduce-scatters on dp (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"
exposed_line "tp $PCT, dp $PCT" &&
  grep -Eq '^overhead .* of T_step .*: (PASS|FAIL|INCONCLUSIVE) \(target 20%' "$TMP/out"
ok $? "exposed per dimension with intervals, and the overhead's three-way verdict"
coherent "$TMP/full.jsonl" '["tp","dp"]' &&
  jq -s -e '.[0] | .parallel == "tp=2,dp=2" and .shard == "full" and .reps == 5
    and .exposed.tp.calls == {"allreduce": 16}
    and .exposed.dp.calls == {"allgather": 8, "reducescatter": 4}' "$TMP/full.jsonl" >/dev/null
ok $? "--trials: the layout line, exposed keyed by dimension, shares inside their intervals, the verdict its interval's"
grep -Eq "^# tp allreduce: library [0-9.]+ ms .*, ring .*, binomial .*, rabenseifner .*, recursive_doubling [0-9.]+ ms \+- [0-9.]+ -> " "$TMP/out" &&
  grep -Eq "^# dp allgather: library [0-9.]+ ms \+- [0-9.]+, linear [0-9.]+ ms \+- [0-9.]+, recursive_doubling [0-9.]+ ms \+- [0-9.]+ -> " "$TMP/out" &&
  ! grep -q '^# dp reducescatter' "$TMP/out"
ok $? "the search measures every libnbc algorithm of tp's all-reduce and dp's all-gather, nothing for the reduce-scatter libnbc cannot choose"
grep -Eq "^# dp prefetch: 0 [0-9.]+ ms \+- [0-9.]+, 1 [0-9.]+ ms .*, 2 [0-9.]+ ms .*, 3 [0-9.]+ ms \+- [0-9.]+ -> " "$TMP/out" &&
  grep -q '^default  dp prefetch 1; ' "$TMP/out" && jq -s -e '.[0].prefetch == 1' "$TMP/full.jsonl" >/dev/null
ok $? "FSDP: the search turns the prefetch depth 0-3 first, from FSDP2's one layer ahead"
# the choice: the table's tuned line, the trials line's tuned object
tuned=$(sed -n 's/^tuned    //p' "$TMP/out")
if [ "$tuned" = "= default: no setting beat the launch's by more than the noise" ]; then
  jq -s -e '.[0] | has("tuned") | not' "$TMP/full.jsonl" >/dev/null
else
  depth=$(echo "$tuned" | sed -n 's/^dp prefetch \([0-3]\); .*/\1/p')
  # no algorithm changed: both lists empty
  want=$(echo "$tuned" | sed 's/^[^;]*; //; s/^the library.s own choices$//; s/, /\n/g' | grep . | sort | tr '\n' ';')
  got=$(jq -r '.tuned.algorithms | to_entries[] | "\(.key)=\(.value)"' "$TMP/full.jsonl" | grep . | sort | tr '\n' ';')
  [ -n "$depth" ] && [ "$want" = "$got" ] && grep -Eq '^gain: -?[0-9.]+ ms per step' "$TMP/out" &&
    jq -s -e --argjson d "$depth" '.[0].tuned.prefetch == $d' "$TMP/full.jsonl" >/dev/null
fi
ok $? "the tuned depth and algorithms are the same in the table and the trials line ($tuned)"

# DDP's bucket: the launch one from COLLBENCH_BUCKET_BYTES, the candidates
# from --tune-buckets, each at most the rank's gradients (tiny: 3098 KiB)
COLLBENCH_BUCKET_BYTES=1M
export COLLBENCH_BUCKET_BYTES
mpi 4 --tune --backend mpi --workload tiny --parallel dp=4 --tune-buckets 512K,8M --tune-reps 3 \
  --trials "$TMP/bucket.jsonl" --env-out "$TMP/bucket.env"
st=$STATUS
unset COLLBENCH_BUCKET_BYTES
[ $st -eq 0 ] &&
  grep -Eq "^# dp bucket: 512 KiB [0-9.]+ ms \+- [0-9.]+, 1 MiB [0-9.]+ ms \+- [0-9.]+, 3098 KiB [0-9.]+ ms \+- [0-9.]+ -> " "$TMP/out" &&
  grep -q '^default  dp bucket 1 MiB; ' "$TMP/out" &&
  jq -s -e '.[0].bucket_bytes == 1048576' "$TMP/bucket.jsonl" >/dev/null
ok $? "the bucket search: 512 KiB, the launch's 1 MiB, 8M capped at the gradients (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"
# the bucket kept: the table's, the trials line's and the env file's agree
kept=$(jq -s -r '.[0] | (.tuned.bucket_bytes // .bucket_bytes)' "$TMP/bucket.jsonl")
label=$(sed -n 's/^tuned    dp bucket \([^;]*\);.*/\1/p' "$TMP/out")
[ -n "$label" ] || label=$(sed -n 's/^default  dp bucket \([^;]*\);.*/\1/p' "$TMP/out")
case "$kept" in
524288) want="512 KiB" ;; 1048576) want="1 MiB" ;; 3172352) want="3098 KiB" ;; *) want="?" ;;
esac
[ "$label" = "$want" ] && grep -q "^export COLLBENCH_BUCKET_BYTES='$kept'\$" "$TMP/bucket.env"
ok $? "the bucket kept ($kept bytes) is the table's ($label), the trials line's and the env file's"
COLLBENCH_BUCKET_BYTES=1Q
export COLLBENCH_BUCKET_BYTES
mpi 4 --tune --backend mpi --workload tiny --parallel dp=4 --trials "$TMP/keep0.jsonl"
st=$STATUS
unset COLLBENCH_BUCKET_BYTES
[ $st -eq 2 ] && grep -q 'COLLBENCH_BUCKET_BYTES' "$TMP/err" && grep -q '1Q' "$TMP/err" &&
  [ ! -e "$TMP/keep0.jsonl" ]
ok $? "a launch bucket that is not a size: exit 2 naming it, nothing written (exit $st)"

mpi 4 --tune --backend mpi --workload tiny --parallel dp=2,pp=2 --tune-reps 5 --trials "$TMP/pp.jsonl"
st=$STATUS
[ $st -eq 0 ] && grep -q '^# each step, rank 0 issues: dp 1 allreduce; pp 4 send, 4 recv$' "$TMP/out" &&
  exposed_line "dp $PCT, pp $PCT" && coherent "$TMP/pp.jsonl" '["dp","pp"]'
ok $? "dp=2,pp=2: 4 microbatches each way between stages, one DDP bucket, dp and pp exposed (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"

mpi 4 --tune --backend mpi --workload tiny --parallel ep=2,dp=2 --skew zipf:1.2 --tune-reps 5 \
  --trials "$TMP/ep.jsonl"
st=$STATUS
[ $st -eq 0 ] && grep -q '^# each step, rank 0 issues: ep 16 alltoallv; dp 2 allreduce$' "$TMP/out" &&
  exposed_line "ep $PCT, dp $PCT" && coherent "$TMP/ep.jsonl" '["ep","dp"]' &&
  jq -s -e '.[0].skew == "zipf:1.2"' "$TMP/ep.jsonl" >/dev/null
ok $? "ep=2,dp=2 zipf:1.2: dispatch and combine each way per layer; dense and expert gradients (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"

# the report: a bar per layout line and dimension, and the table; a tuned
# line (made from the bucket run's) whose bucket moved names it
jq -c '.tuned = (. | del(.type, .parallel, .shard, .workload, .model, .tuned)
  | .bucket_bytes = 524288 | .algorithms = {"dp allreduce": "ring"})' "$TMP/bucket.jsonl" >"$TMP/moved.jsonl"
./collbench --report "$TMP/full.jsonl" "$TMP/ep.jsonl" "$TMP/moved.jsonl" --out "$TMP/rep" >/dev/null 2>"$TMP/rep.err"
st=$?
[ $st -eq 0 ] && [ -s "$TMP/rep/layouts.png" ] && [ -s "$TMP/rep/layouts.svg" ] &&
  grep -q '<h2>Parallel layouts</h2>' "$TMP/rep/index.html" &&
  grep -q '<td>tp=2,dp=2 full, tiny</td><td>launch</td>' "$TMP/rep/index.html" &&
  grep -q '<td>ep=2,dp=2 none, tiny</td><td>launch</td>' "$TMP/rep/index.html" &&
  [ "$(awk 'NF == 0 { exit } { n++ } END { print n }' "$TMP/rep/layouts.dat")" -eq 5 ] &&
  grep -q '<td>dp bucket 512 KiB, dp allreduce=ring</td>' "$TMP/rep/index.html" &&
  ! grep -q 'line skipped' "$TMP/rep.err"
ok $? "--report: layouts.png with 5 bars (tp, dp; ep, dp; dp) and a row per layout, the tuned bucket named (exit $st)"
[ $st -eq 0 ] || diag "$TMP/rep.err"

mpi 4 --tune --backend mpi --workload tiny --workload-config sequence_parallel=1 --parallel tp=2,dp=2 \
  --shard grad --tune-reps 3
st=$STATUS
[ $st -eq 0 ] &&
  grep -q '^# each step, rank 0 issues: tp 16 allgather, 16 reducescatter; dp 1 allgather, 1 reducescatter$' "$TMP/out"
ok $? "sequence parallel with ZeRO-2: tp's gathers and scatters, dp's scatter then gather (exit $st)"

# refusals: exit 2 naming the value; a --trials file already there kept
echo keep >"$TMP/keep.jsonl"
mpi 4 --tune --backend mpi --workload tiny --parallel tp=2,dp=4 --trials "$TMP/keep.jsonl"
[ $STATUS -eq 2 ] && grep -q 'hold 8 ranks, the job has 4' "$TMP/err" &&
  [ "$(cat "$TMP/keep.jsonl")" = keep ]
ok $? "a layout of 8 ranks on 4: exit 2, the trials file untouched (exit $STATUS)"
mpi 4 --tune --backend mpi --workload tiny --parallel dp=2,pp=2 --shard full --trials "$TMP/keep.jsonl"
[ $STATUS -eq 2 ] && grep -q -- '--shard full with pp=2' "$TMP/err" && [ "$(cat "$TMP/keep.jsonl")" = keep ]
ok $? "--shard full with pipeline stages refused (exit $STATUS)"
mpi 4 --tune --backend mpi --workload tiny --parallel dp=4 --skew zipf:1
[ $STATUS -eq 2 ] && grep -q -- "--skew zipf:1 shapes ep's token dispatch: --parallel dp=4 has ep=1" "$TMP/err"
ok $? "--skew without ep refused (exit $STATUS)"
mpi 4 --tune --backend mpi --workload tiny --parallel dp=4 --exhaustive
[ $STATUS -eq 2 ] && grep -q -- '--exhaustive with --tune --parallel dp=4: .*(not built)' "$TMP/err"
ok $? "the search's other options are refused, not ignored (exit $STATUS)"
mpi 4 --tune --backend mpi --workload tiny --parallel tp=2,dp=2 --tune-reps 3 --env-out "$TMP/env"
st=$STATUS
[ $st -eq 0 ] && sh -n "$TMP/env" && grep -q '^# collbench --tune --parallel tp=2,dp=2 --shard none, workload tiny: dp bucket ' "$TMP/env" &&
  grep -Eq "^export COLLBENCH_BUCKET_BYTES='[0-9]+'\$" "$TMP/env" &&
  ! grep -v '^#' "$TMP/env" | grep -Evq "^export (OMPI_MCA_coll_libnbc_iallreduce_algorithm='[1-4]'|COLLBENCH_BUCKET_BYTES='[0-9]+')\$"
ok $? "--env-out: the choice per communicator in a comment; the bucket and only libnbc's all-reduce variable exported (exit $st)"
mpi 4 --tune --backend mpi --workload tiny --parallel tp=2,dp=2 --no-search --tune-reps 3
[ $STATUS -eq 0 ] && ! grep -q '^# search\|^tuned' "$TMP/out" &&
  grep -q "^default  the library's own choices\$" "$TMP/out"
ok $? "--no-search measures the launch settings alone (exit $STATUS)"
mpi 4 --tune --backend mpi --workload llama-7b --parallel dp=4 --trials "$TMP/keep.jsonl"
[ $STATUS -eq 2 ] && grep -Eq 'a rank holds 9[0-9.]+ GiB of weights, gradients and Adam' "$TMP/err" &&
  [ "$(cat "$TMP/keep.jsonl")" = keep ]
ok $? "llama-7b unsharded on 4 ranks: ZeRO's 16 bytes a parameter do not fit, exit 2 (exit $STATUS)"
mpi 4 --tune --backend mpi --workload tiny --shard full
[ $STATUS -eq 2 ] && grep -q -- '--shard full goes with --parallel' "$TMP/err"
ok $? "--shard without --parallel refused (exit $STATUS)"

# The GPU step (NCCL and cuBLAS, tuner/layout_nccl.c): without a GPU
# --backend nccl says why and writes nothing; with one, 2 ranks share it.
if ! gpu_usable; then
  mpi 2 --tune --workload tiny --parallel dp=2 --backend nccl --trials "$TMP/keep.jsonl"
  [ $STATUS -eq 2 ] && grep -q "nccl: no usable GPU\|without CUDA" "$TMP/err" &&
    [ "$(cat "$TMP/keep.jsonl")" = keep ]
  ok $? "--tune --parallel --backend nccl without a GPU: exit 2 saying why, nothing written (exit $STATUS)"
  skip "no GPU: dp=2 --shard full on NCCL, 2 ranks sharing the GPU: calls, exposed dp, trials line"
  skip "no GPU: pp=2 on NCCL: sends and receives each way between stages, exposed pp"
  finish
fi
mpi 2 --tune --workload tiny --parallel dp=2 --shard full --backend nccl --share-gpu \
  --tune-reps 5 --trials "$TMP/gpu.jsonl"
st=$STATUS
[ $st -eq 0 ] && grep -q '^# 2 ranks on 1 node(s); NCCL on a communicator' "$TMP/out"
ok $? "--tune --parallel --backend nccl --share-gpu runs the step on NCCL and cuBLAS (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"
[ $st -eq 0 ] && grep -q '^# each step, rank 0 issues: dp 8 allgather, 4 reducescatter$' "$TMP/out" &&
  exposed_line "dp $PCT" && coherent "$TMP/gpu.jsonl" '["dp"]'
ok $? "dp=2 --shard full on NCCL: calls, exposed dp with its interval, the trials line coherent"
mpi 2 --tune --workload tiny --parallel pp=2 --backend nccl --share-gpu --tune-reps 5
[ $STATUS -eq 0 ] && grep -q '^# each step, rank 0 issues: pp 4 send, 4 recv$' "$TMP/out" &&
  exposed_line "pp $PCT"
ok $? "pp=2 on NCCL: 4 microbatches each way between stages, pp exposed (exit $STATUS)"
[ $STATUS -eq 0 ] || diag "$TMP/err"
