#!/bin/sh
# One rank: collectives run (busbw 0 by definition), p2p is skipped visibly.
. tests/lib.sh
plan 7

mpi 1 --sweep -e 64K --max-time 0.1 --json "$TMP/r.jsonl"
ok $STATUS "mpirun -np 1 --sweep exits 0"
jq_all "$TMP/r.jsonl" '.nranks == 1 and .nnodes == 1 and .wrong == 0 and .transport == "self"'
ok $? "results: 1 rank, 1 node, transport self, wrong = 0"
jq_all "$TMP/r.jsonl" 'if .op == "broadcast" then .busbw_GBps == .algbw_GBps else .busbw_GBps == 0 end' &&
  [ "$(jq -s '[.[] | select(.type == "result" and .op == "broadcast")] | length' "$TMP/r.jsonl")" -gt 0 ]
ok $? "with one rank busbw is 0, broadcast's its algbw (nccl-tests' factors: 2(n-1)/n, (n-1)/n, 1)"
n=$(jq -s '[.[] | select(.type == "result" and (.op | startswith("p2p")))] | length' "$TMP/r.jsonl")
[ "$n" -eq 0 ]
ok $? "no p2p results with one rank"
grep -q '^# p2p_lat skipped.*needs at least 2 ranks' "$TMP/out"
ok $? "the table says why p2p was skipped"
# issue 57: a newcomer without mpirun saw "Avg bus bandwidth: 1.088e+06 GB/s"
# and a row of 13051512.00 that pushed its columns out of line
grep -q '^# one rank (mpirun -np 1, or no mpirun): nothing crosses a link' "$TMP/out" &&
  ! grep '^# Avg bus bandwidth' "$TMP/out" | grep -q 'GB/s' &&
  grep -q '^# Avg bus bandwidth *: none with one rank' "$TMP/out"
ok $? "one rank: the table says nothing crosses a link, and gives no average bus bandwidth"
# every row of a collective's table has its figures in the header's columns:
# the busbw column ends at the same character in every row, the 256 MiB
# broadcast's too (a no-op timed at about 0.1 us: over 1e6 GB/s)
cp "$TMP/out" "$TMP/sweep.out"
mpi 1 --op broadcast -b 1K -e 256M -f 16384 --max-time 0.05
cat "$TMP/out" >>"$TMP/sweep.out"
awk 'function end_of(k,  pos, i) {
       for (i = 1; i <= k; i++) { match(substr($0, pos + 1), /[^ ]+/); pos += RSTART + RLENGTH - 1 }
       return pos
     }
     /^# [a-z_]+: backend/ { p = ($2 !~ /^p2p/) }
     p && /^ +[0-9]/ { print end_of(8), end_of(12) }' "$TMP/sweep.out" | sort -u | wc -l | grep -qx 1
ok $? "every collective row keeps its columns, however large a figure (a broadcast to itself)"
finish
