#!/bin/sh
# COLLBENCH_PHASES=1 (issue 45): where a run's wall time goes, printed by
# the launcher's rank 0 only, in order, with times that never go back.
. tests/lib.sh
plan 4

COLLBENCH_PHASES=1 mpirun -x COLLBENCH_PHASES -np 2 ./collbench --op allreduce -b 4 -e 4 -n 1 -w 0 \
  >"$TMP/out" 2>"$TMP/err"
st=$?
grep '^collbench phase: ' "$TMP/err" >"$TMP/ph"
[ $st -eq 0 ] && [ "$(head -n 1 "$TMP/ph" | sed 's/.* s //')" = start ] &&
  [ "$(tail -n 1 "$TMP/ph" | sed 's/.* s //')" = end ] &&
  [ "$(grep -c ' s MPI_Init done$' "$TMP/ph")" -eq 1 ] && grep -q ' s backend ready$' "$TMP/ph"
ok $? "one rank's phases, start to end, MPI_Init and the backend among them (exit $st)"
sed 's/^collbench phase: +\([0-9.]*\) s .*/\1/' "$TMP/ph" |
  awk 'NR > 1 && $1 < prev {bad = 1} {prev = $1} END {exit bad || NR < 5}'
ok $? "their times never go back ($(wc -l <"$TMP/ph") phases)"
for v in out-of-place in-place; do
  grep -q "s mpi allreduce 4 B ($v, host memory): buffers filled$" "$TMP/ph" &&
    grep -q "s mpi allreduce 4 B ($v, host memory): measured ([0-9]* samples, 1 runs, [0-9.]* ms timed)$" "$TMP/ph" &&
    grep -q "s mpi allreduce 4 B ($v, host memory): checked$" "$TMP/ph" || break
done
ok $? "each row's steps: buffers filled, measured (samples, runs, time), checked ($v)"
diag "$TMP/ph"
mpi 2 --op allreduce -b 4 -e 4 -n 1 -w 0
[ $STATUS -eq 0 ] && ! grep -q 'collbench phase' "$TMP/err"
ok $? "without COLLBENCH_PHASES: none"
finish
