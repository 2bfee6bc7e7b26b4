#!/bin/sh
# Four ranks (oversubscribed on small machines): busbw factors and pairs.
. tests/lib.sh
plan 5

mpi 4 --sweep -e 64K --max-time 0.1 --json "$TMP/r.jsonl"
ok $STATUS "mpirun -np 4 --sweep exits 0"
[ $STATUS -eq 0 ] || diag "$TMP/err"
jq_all "$TMP/r.jsonl" '.nranks == 4 and .wrong == 0'
ok $? "every result has 4 ranks and wrong = 0"
# busbw = algbw * factor, factor 2(n-1)/n = 1.5 for allreduce, 3/4 for allgather
jq_all "$TMP/r.jsonl" 'if .op == "allreduce" then ((.busbw_GBps - 1.5 * .algbw_GBps) | fabs) <= 1e-6 * .algbw_GBps + 1e-9 else true end'
ok $? "allreduce busbw = 1.5 x algbw with 4 ranks"
jq_all "$TMP/r.jsonl" 'if .op == "allgather" then ((.busbw_GBps - 0.75 * .algbw_GBps) | fabs) <= 1e-6 * .algbw_GBps + 1e-9 else true end'
ok $? "allgather busbw = 0.75 x algbw with 4 ranks"
# allgather with 4 ranks of float: the row size is 4 x count x 4 bytes
jq_all "$TMP/r.jsonl" 'if .op == "allgather" then .bytes == .count * 16 else true end'
ok $? "allgather size counts the whole gathered buffer"
finish
