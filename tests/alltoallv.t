#!/bin/sh
# --op alltoallv with --skew (issue 59 item 3): uniform, zipf and a matrix
# file on 4 ranks, checked exactly like alltoall; each row as large as asked
# (the busiest sender's total), its busbw from the busier side of the
# busiest rank (nccl-tests' AlltoAllvGetBw), "skew" on every record; a file
# too small for the job refused before anything runs. The counts themselves
# are test_skew's; the check against broken results test_pattern's.
. tests/lib.sh
plan 9
mpi 4 --op alltoall,alltoallv -b 8 -e 256K --max-time 0.02 --json "$TMP/u.jsonl"
st=$STATUS
[ $st -eq 0 ] && grep -q '^# Out of bounds values : 0 OK' "$TMP/out" &&
  grep -q '^# alltoallv: backend mpi, .*, skew uniform$' "$TMP/out"
ok $? "uniform alltoallv beside alltoall on 4 ranks: exit 0, exact, the header says its skew (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"
# alltoall skips the sizes below one element per rank; alltoallv sends them
jq -s -e '[.[] | select(.type == "result" and .op == "alltoallv")] as $v
  | ($v | length) == 16 and ($v | all(.wrong == 0 and .skew == "uniform"))
  and ([$v[].bytes] == [range(3; 19) | pow(2; .)])' "$TMP/u.jsonl" >/dev/null
ok $? "uniform: 16 rows, 8 B to 256 KiB each as asked, exact, \"skew\": \"uniform\""
jq -s -e '[.[] | select(.type == "result" and .op == "alltoall")] | all(has("skew") | not)' \
  "$TMP/u.jsonl" >/dev/null
ok $? "alltoall's records carry no skew"

mpi 4 --op alltoallv --skew zipf:1.2 -b 1K -e 1M --max-time 0.02 --json "$TMP/z.jsonl"
st=$STATUS
jq -s -e '[.[] | select(.type == "result")] as $v | ($v | length) == 11
  and ($v | all(.wrong == 0 and .skew == "zipf:1.2"))
  and ($v | all(.busbw_GBps / .algbw_GBps > 0.7499 and .busbw_GBps / .algbw_GBps < 0.7501))' \
  "$TMP/z.jsonl" >/dev/null
ok $? "zipf:1.2: 11 rows, exact, busbw = algbw x 3/4 (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"
# rank 0 receives 4 x 52.8% of each row: algbw counts that side, not the row
jq -s -e '[.[] | select(.type == "result" and .bytes == 1048576)][0]
  | (.algbw_GBps * .time_us * 1000) as $moved | $moved > 2.21e6 and $moved < 2.22e6' \
  "$TMP/z.jsonl" >/dev/null
ok $? "zipf:1.2 at 1 MiB: algbw divides rank 0's 2.2 MB received, not the 1 MiB row"

printf '0 4096 8192 0\n4096 0 0 0\n1024 1024 1024 1024\n0 0 0 0\n' >"$TMP/m.txt"
mpi 4 --op alltoallv --skew "$TMP/m.txt" -b 12K -e 12K --iters 5 --check 3 --json "$TMP/f.jsonl"
st=$STATUS
jq -s -e '[.[] | select(.type == "result")] | length == 1 and .[0].wrong == 0
  and .[0].bytes == 12288 and .[0].skew == "file:m.txt"' "$TMP/f.jsonl" >/dev/null
ok $? "a matrix file at its busiest row's 12 KiB: its own bytes, exact over 3 checks (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"

printf '0 1\n1 0\n' >"$TMP/small.txt"
mpi 4 --op alltoallv --skew "$TMP/small.txt" -e 1K --json "$TMP/s.jsonl"
[ $STATUS -eq 2 ] && grep -q 'the matrix has 2 rows for 4 ranks; it needs at least 4' "$TMP/err" &&
  [ ! -e "$TMP/s.jsonl" ]
ok $? "a 2x2 file on 4 ranks: exit 2 naming both, no output written (exit $STATUS)"

./collbench --op alltoall --skew zipf:1.2 -e 1K >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q -- '--skew zipf:1.2 shapes alltoallv.s traffic, and --op has no alltoallv' "$TMP/out"
ok $? "--skew without alltoallv: exit 2"

mpi 1 --op all -b 64 -e 64 --iters 2 --json "$TMP/a.jsonl"
jq -s -e '[.[] | select(.type == "result") | .op] | index("alltoallv") == null' "$TMP/a.jsonl" >/dev/null
ok $? "--op all leaves alltoallv out (it is asked for by name)"
finish
