#!/bin/sh
# Progress goes to stderr only when asked (under mpirun stderr is a pipe),
# and never into the table on stdout.
. tests/lib.sh
plan 3

mpi 2 -e 1K --max-time 0.05 --progress
grep -q 'collbench: mpi allreduce 1 KiB (in-place) [0-9.]* s' "$TMP/err"
ok $? "--progress shows op, size and elapsed time on stderr"
! grep -q 'collbench: mpi' "$TMP/out"
ok $? "stdout stays a clean table"
mpi 2 -e 1K --max-time 0.05
! grep -q 'collbench: mpi' "$TMP/err"
ok $? "no progress by default when stderr is not a terminal"
finish
