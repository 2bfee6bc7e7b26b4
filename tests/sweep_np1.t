#!/bin/sh
# One rank: collectives run (busbw 0 by definition), p2p is skipped visibly.
. tests/lib.sh
plan 5

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
finish
