#!/bin/sh
# A measurement that outlives --timeout names rank, host, op and size, and
# the job ends with status 3 instead of hanging.
. tests/lib.sh
plan 2

mpi 2 --op allreduce -b 64M -e 64M -n 100000 --timeout 1
[ $STATUS -eq 3 ]
ok $? "exit status 3 (got $STATUS)"
grep -q 'timeout: rank [01] on .* allreduce 64 MiB' "$TMP/err"
ok $? "the message names the rank, host, op and size"
[ $STATUS -eq 3 ] || diag "$TMP/err"
finish
