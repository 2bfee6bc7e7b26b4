#!/bin/sh
# The core acceptance run: every op on 2 ranks, checked, in all outputs.
. tests/lib.sh
plan 12

mpi 2 --sweep -e 256K --max-time 0.2 --json "$TMP/r.jsonl" --csv "$TMP/r.csv"
ok $STATUS "mpirun -np 2 --sweep exits 0"
[ $STATUS -eq 0 ] || diag "$TMP/err"

for op in allreduce allgather reducescatter broadcast alltoall p2p_lat p2p_bw p2p_bibw; do
  n=$(jq -s "[.[] | select(.type == \"result\" and .op == \"$op\" and .wrong == 0)] | length" "$TMP/r.jsonl")
  [ "$n" -gt 0 ]
  ok $? "$op has result lines with wrong = 0 ($n)"
done

jq -e -s '.[0].type == "run" and .[0].nranks == 2 and .[0].nnodes == 1 and
  (.[0].hostnames | length) == 1 and .[0].ranks_per_node == [2] and
  (.[0].mpi_library | length) > 0 and (.[0].git_commit | length) > 0' "$TMP/r.jsonl" >/dev/null
ok $? "first JSON line is the run record with ranks, nodes, hosts and MPI library"

results=$(jq -s '[.[] | select(.type == "result")] | length' "$TMP/r.jsonl")
rows=$(($(wc -l <"$TMP/r.csv") - 1))
[ "$results" -eq "$rows" ]
ok $? "CSV has one line per JSON result ($rows, $results)"

grep -q '^# Out of bounds values : 0 OK' "$TMP/out" &&
  grep -q '^# Avg bus bandwidth' "$TMP/out" &&
  grep -q 'out-of-place' "$TMP/out"
ok $? "table has the nccl-tests header and footer"
finish
