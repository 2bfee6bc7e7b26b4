#!/bin/sh
# --rotate (issue 60): each timed call on the next slice of a 256 MiB buffer,
# as nccl-tests' startColl moves its buffers, so small sizes are timed cold.
# On 2 ranks with host memory: every op and variant still checks exact, every
# record says it was rotated, and the run without --rotate says nothing.
# (That the slices move is test_measure's; what it changes is FIGURES.md's.)
. tests/lib.sh
plan 4
mpi 2 --op allreduce,allgather,reducescatter,alltoall,broadcast,p2p_bw,p2p_lat -b 1K -e 256K \
  --max-time 0.02 --rotate --json "$TMP/r.jsonl"
st=$STATUS
[ $st -eq 0 ] && grep -q '^# Out of bounds values : 0 OK' "$TMP/out"
ok $? "--rotate on 2 ranks, every op: exit 0, no wrong value (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"
jq -s -e '[.[] | select(.type == "result")] | length > 20 and all(.rotate == true and .wrong == 0)' \
  "$TMP/r.jsonl" >/dev/null
ok $? "every record: \"rotate\": true and checked exact"
mpi 2 --op allreduce -b 1K -e 4K --max-time 0.02 --json "$TMP/n.jsonl"
jq -s -e '[.[] | select(.type == "result")] | length > 0 and all(has("rotate") | not)' "$TMP/n.jsonl" >/dev/null
ok $? "without --rotate: no rotate key"
./collbench --rotate --graph 4 -e 1K >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q -- '--rotate does not go with --graph 4' "$TMP/out"
ok $? "--rotate with --graph: exit 2 naming both"
finish
