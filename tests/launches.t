#!/bin/sh
# scripts/launches.sh: N launches of the same command, one baseline of them,
# which --compare reads as one population (issue 40 item 1).
. tests/lib.sh
plan 4

scripts/launches.sh 3 "$TMP/a" -- mpirun -np 2 ./collbench --op allreduce -b 1K -e 4K -f 4 \
  --max-time 0.05 --no-progress >"$TMP/out" 2>&1
ok $? "three launches and their baseline"
[ -s "$TMP/a-1.jsonl" ] && [ -s "$TMP/a-3.jsonl" ] &&
  jq -e '(.runs | length) == 3 and all(.entries[] | select(.kind == "result"); .time_us.n == 3)' \
    "$TMP/a.json" >/dev/null
ok $? "each launch's JSON Lines kept, and every entry of the baseline holds 3 figures"
./collbench --compare "$TMP/a.json" "$TMP/a.json" >"$TMP/cmp" 2>&1 && ! grep -q '^SLOWER' "$TMP/cmp"
ok $? "--compare reads it as one population (itself: nothing slower)"
scripts/launches.sh 1 "$TMP/b" -- mpirun -np 2 ./collbench >"$TMP/out" 2>&1
st=$?
[ $st -eq 2 ] && grep -q 'N must be 2 or more' "$TMP/out" && [ ! -e "$TMP/b-1.jsonl" ]
ok $? "one launch is no population: exit 2, nothing run (exit $st)"
finish
