#!/bin/sh
# --parallel and --concurrent (issue 59 item 3): collectives at once on the
# communicators of a job's layout, each beside itself alone in the same
# rounds. On 4 ranks as tp=2,dp=2: every op that runs side by side checks
# exact at once; records carry the communicator, the layout, the time alone
# and the paired slowdown with its interval; --iters N gives N rounds;
# layouts that do not fit the job are refused before anything runs. (The
# placement itself is test_parallel's.)
. tests/lib.sh
plan 8
mpi 4 --parallel tp=2,dp=2 --concurrent allreduce@tp,allgather@dp -b 1K -e 256K --max-time 0.05 \
  --json "$TMP/c.jsonl"
st=$STATUS
[ $st -eq 0 ] && grep -q '^# Out of bounds values : 0 OK' "$TMP/out" &&
  [ "$(grep -c '^# on each .. group, at once with allreduce@tp,allgather@dp' "$TMP/out")" -eq 2 ]
ok $? "allreduce@tp with allgather@dp on 4 ranks: exit 0, exact, a series each (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"
jq -s -e '[.[] | select(.type == "result")] as $v | ($v | length) == 18
  and ($v | all(.wrong == 0 and .nranks == 2 and .parallel == "tp=2,dp=2"
               and .concurrent == "allreduce@tp,allgather@dp"
               and .time_us_alone > 0 and .slowdown > 0
               and .slowdown_lo <= .slowdown and .slowdown <= .slowdown_hi))
  and ([$v[] | select(.op == "allreduce") | .comm] | unique) == ["tp"]
  and ([$v[] | select(.op == "allgather") | .comm] | unique) == ["dp"]' "$TMP/c.jsonl" >/dev/null
ok $? "18 records (9 sizes x 2 ops): groups of 2, the layout, the ops, time alone and slowdown inside its interval"
grep -Eq '^ +262144 .* alone [0-9.]+ us, x[0-9.]+ \[[0-9.]+, [0-9.]+\]$' "$TMP/out"
ok $? "the table's rows add the time alone and the slowdown's interval"

mpi 4 --parallel tp=2,dp=2 --concurrent allreduce@tp,reducescatter@dp,broadcast@tp,alltoall@dp \
  -b 4K -e 64K --iters 7 --check 3 -d int32 --json "$TMP/all.jsonl"
st=$STATUS
jq -s -e '[.[] | select(.type == "result")] as $v | ($v | length) == 20
  and ($v | all(.wrong == 0 and .samples == 7))
  and ([$v[] | select(.op == "broadcast")] | all(.inplace))' "$TMP/all.jsonl" >/dev/null
ok $? "four ops at once, int32, 3 checks: all exact, --iters 7 gives 7 rounds, broadcast in place (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"

mpi 4 --parallel tp=2,dp=4 --concurrent allreduce@tp -e 1K --json "$TMP/no.jsonl"
[ $STATUS -eq 2 ] && grep -q 'hold 8 ranks, the job has 4' "$TMP/err" && [ ! -e "$TMP/no.jsonl" ]
ok $? "a layout of 8 ranks on 4: exit 2 naming both, nothing written (exit $STATUS)"

./collbench --concurrent allreduce@tp -e 1K >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q -- '--concurrent needs --parallel' "$TMP/out"
ok $? "--concurrent without --parallel: exit 2"
./collbench --parallel tp=2 --concurrent p2p_lat@tp -e 1K >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "'p2p_lat' is not a collective that runs side by side" "$TMP/out"
ok $? "--concurrent p2p_lat@tp: exit 2"
./collbench --parallel tp=2 --concurrent allreduce@dp -e 1K >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q -- '--parallel gives dp=1, so there are no dp groups of 2 or more ranks' "$TMP/out"
ok $? "--concurrent on a dimension the layout lacks: exit 2"
finish
