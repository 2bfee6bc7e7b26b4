#!/bin/sh
# Inputs of --report and --fit that once crashed or grew without bound
# (issue 16): a pair line whose receiver is larger than every sender (a
# truncated --matrix run), an endless line (a character device, a binary
# file), and a folder given as input. No MPI needed.
. tests/lib.sh
plan 21

# CMD... under a 1 GB data limit, so a reader that grows without bound
# fails here; not under ASan (scripts/sanitize-check.sh), whose shadow
# memory the limit would refuse, and which catches overruns itself
bounded() {
  if [ -n "${ASAN_OPTIONS:-}" ]; then "$@"; else (ulimit -d 1000000; "$@"); fi
}

pair() { # SRC DST: one measured pair line
  printf '{"type":"pair","src":%s,"dst":%s,"src_host":"a","dst_host":"b","bytes":65536,' "$1" "$2"
  printf '"bw_GBps":7.4,"lat_us":null,"round":1}\n'
}

# The grid spans the largest rank on either side.
pair 0 1 >"$TMP/one.jsonl"
./collbench --report "$TMP/one.jsonl" --out "$TMP/one" >"$TMP/out" 2>"$TMP/err"
ok $? "--report on one pair 0->1 exits 0"
check "its heatmap is 2 x 2" grep -q '^nranks = 2$' "$TMP/one/matrix1.gp"
check "cell 0->1 holds the figure" grep -q '^1 0 7.4$' "$TMP/one/matrix1.dat"
pair 0 40 >"$TMP/far.jsonl"
timeout 120 ./collbench --report "$TMP/far.jsonl" --out "$TMP/far" >"$TMP/out" 2>"$TMP/err"
status=$?
ok $status "--report on a pair 0->40 exits 0 (got $status)"
[ $status -eq 0 ] || diag "$TMP/err"
check "its heatmap is 41 x 41" grep -q '^nranks = 41$' "$TMP/far/matrix1.gp"

# Ranks out of range are named and skipped, never indexed.
{ pair 0 4096; pair -1 1; pair 0 1; } >"$TMP/range.jsonl"
./collbench --report "$TMP/range.jsonl" --out "$TMP/range" >"$TMP/out" 2>"$TMP/err"
ok $? "--report with ranks 4096 and -1 exits 0 on the good line"
check "rank 4096 named as FILE:1:" grep -q "^collbench: $TMP/range.jsonl:1: .*0 to 4095" "$TMP/err"
check "rank -1 named as FILE:2:" grep -q "^collbench: $TMP/range.jsonl:2: .*0 to 4095" "$TMP/err"

# An endless line: a generated 2 MiB line without newline, and a character
# device like /dev/zero made here (never the real one). ulimit -d bounds
# memory should the cap regress (ulimit -v makes collbench hang at exit).
{ pair 0 1; head -c 2097152 /dev/urandom | tr -dc 'a-z' ; head -c 2097152 </dev/zero | tr '\0' x; } \
  >"$TMP/huge.jsonl"
bounded timeout 60 ./collbench --report "$TMP/huge.jsonl" --out "$TMP/huge" \
  >"$TMP/out" 2>"$TMP/err"
status=$?
[ $status -eq 2 ] && grep -q "^collbench: --report: $TMP/huge.jsonl:2: a line longer than 1 MiB" "$TMP/err"
ok $? "--report on a 2 MiB line: exit 2 naming file and line (got $status)"
bounded timeout 60 ./collbench --fit "$TMP/huge.jsonl" >"$TMP/out" 2>"$TMP/err"
status=$?
[ $status -eq 2 ] && grep -q "^collbench: --fit: $TMP/huge.jsonl:2: a line longer than 1 MiB" "$TMP/err"
ok $? "--fit on a 2 MiB line: exit 2 naming --fit, file and line (got $status)"
if mknod "$TMP/zero" c 1 5 2>/dev/null; then
  for opt in --report --fit; do
    out=
    [ $opt = --report ] && out="--out $TMP/z"
    # shellcheck disable=SC2086
    bounded timeout 60 ./collbench $opt "$TMP/zero" $out >"$TMP/out" 2>"$TMP/err"
    status=$?
    [ $status -eq 2 ] && grep -q "^collbench: $opt: $TMP/zero:1: a line longer than 1 MiB" "$TMP/err"
    ok $? "$opt on a zero device: exit 2 naming file and line 1 (got $status)"
    [ $status -eq 2 ] || diag "$TMP/err"
  done
else
  skip "mknod of a character device needs root"
  skip "mknod of a character device needs root"
fi

# A folder: the message names the option given.
./collbench --fit "$TMP" >"$TMP/out" 2>"$TMP/err"
status=$?
[ $status -eq 2 ] && grep -q "^collbench: --fit: cannot read '$TMP'" "$TMP/err" &&
  ! grep -q -- --report "$TMP/err"
ok $? "--fit on a folder: exit 2 naming --fit (got $status)"
[ $status -eq 2 ] || diag "$TMP/err"
# gnuplot runs without the user's ~/.gnuplot: root's --report with HOME set
# to another user's folder must not run that user's commands
mkdir "$TMP/home"
printf 'system "touch %s/ran"\n' "$TMP" >"$TMP/home/.gnuplot"
HOME=$TMP/home ./collbench --report "$TMP/one.jsonl" --out "$TMP/home-rep" >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st -eq 0 ] && [ ! -e "$TMP/ran" ] && [ -s "$TMP/home-rep/index.html" ]
ok $? "--report does not run \$HOME/.gnuplot (gnuplot -d; exit $st)"

# Issue 38 item 5: two pair lines naming rank 4095 once made a 4096 x 4096
# heatmap (451 MB .dat, gnuplot at 7 GB); now too sparse to draw, said so.
{ pair 0 4095; pair 4095 0; } >"$TMP/sparse.jsonl"
bounded timeout 120 ./collbench --report "$TMP/sparse.jsonl" --out "$TMP/sparse" \
  >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st -eq 0 ] && [ ! -e "$TMP/sparse/matrix1.dat" ] && grep -q 'rank 4095 in 2 pair lines' "$TMP/err" &&
  grep -q 'No heatmap' "$TMP/sparse/index.html"
ok $? "--report: 2 pair lines naming rank 4095 draw no heatmap, and say why (exit $st)"

# A result line is checked field by field before anything is drawn from it:
# each bad one is named and skipped, the report made from the rest.
result() { # BYTES TIME_US ALGBW [OP]
  printf '{"type":"result","op":"%s","backend":"mpi","mem":"host","transport":"shm",' "${4:-allreduce}"
  printf '"dtype":"float","redop":"sum","inplace":false,"bytes":%s,"count":2,"nranks":2,' "$1"
  printf '"nnodes":1,"iters":10,"time_us":%s,"ci95_us":0.1,"algbw_GBps":%s,' "$2" "$3"
  printf '"busbw_GBps":1,"wrong":0,"samples":10,"noisy":false}\n'
}
{ result 8 1 0.008; result 2305843009213693952 1 1; result -8 1 1; result 64 0 1; result 64 1 -1; } \
  >"$TMP/fields.jsonl"
bounded timeout 120 ./collbench --report "$TMP/fields.jsonl" --out "$TMP/fields" \
  >"$TMP/out" 2>"$TMP/err"
st=$?
ok $st "--report with bytes 2^61, bytes -8, time_us 0 and algbw -1 beside a good line: exit 0 ($st)"
[ $st -eq 0 ] || diag "$TMP/err"
check "bytes 2^61 named (line 2)" grep -q "fields.jsonl:2: 'bytes' is not a size" "$TMP/err"
check "bytes -8 named (line 3)" grep -q "fields.jsonl:3: 'bytes' is not a size" "$TMP/err"
check "time_us 0 named (line 4)" grep -q "fields.jsonl:4: 'time_us' is not a positive time" "$TMP/err"
check "algbw -1 named (line 5)" grep -q "fields.jsonl:5: 'algbw_GBps' or 'busbw_GBps'" "$TMP/err"
# 3,000 op names kept --report busy past 300 s; past 64 ops lines are skipped
i=0
while [ $i -lt 3000 ]; do
  result 8 1 0.008 "op$i"
  i=$((i + 1))
done >"$TMP/ops.jsonl"
bounded timeout 300 ./collbench --report "$TMP/ops.jsonl" --out "$TMP/ops" \
  >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st -eq 0 ] && grep -q 'ops.jsonl:65: more than 2048 series or 64 ops' "$TMP/err" &&
  [ "$(grep -c 'more than 2048 series or 64 ops' "$TMP/err")" -eq 2936 ]
ok $? "--report on 3,000 op names: the first 64 drawn, each further line named and skipped (exit $st)"
finish
