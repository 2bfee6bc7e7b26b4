#!/bin/sh
# The classic mis-launch, for real: MPICH's launcher starting a binary built
# with Open MPI, so that each process would run alone as rank 0 of 1.
. tests/lib.sh
if ! command -v mpiexec.mpich >/dev/null 2>&1; then
  echo "1..0 # SKIP mpiexec.mpich not installed (apt-get install mpich)"
  exit 0
fi
plan 3

mpiexec.mpich -np 2 ./collbench -e 1K >"$TMP/out" 2>"$TMP/err"
status=$?
[ $status -eq 2 ]
ok $? "exit status 2 (got $status)"
grep -q 'mis-launch: the launcher started 2 processes' "$TMP/err"
ok $? "the message says what happened"
[ "$(grep -c 'mis-launch' "$TMP/err")" -eq 1 ]
ok $? "it is printed once, by the launcher's rank 0"
[ -s "$TMP/out" ] && diag "$TMP/out"
finish
