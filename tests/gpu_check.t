#!/bin/sh
# scripts/gpu-check.sh on a machine without a GPU: it prints its whole plan
# (every step with its limit) and exits 2 having run nothing. Its judging
# rule (scripts/paired.awk) and the rest of its parts run against stand-ins
# in tests/gpu_scripts.t.
. tests/lib.sh
plan 2
if ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
  skip "a GPU is here: scripts/gpu-check.sh would run it (README, Checking on a GPU machine)"
else
  GPU_CHECK_OUT=$TMP/gco sh scripts/gpu-check.sh >"$TMP/out" 2>&1
  st=$?
  n=$(grep -c '^  [a-z]*: [a-zA-Z0-9-]*, up to [0-9]* s$' "$TMP/out")
  [ $st -eq 2 ] && [ "$n" -eq 36 ] && grep -q 'no GPU here.*nothing run' "$TMP/out" &&
    grep -q '^  tests: tests-build, up to 300 s$' "$TMP/out" && [ ! -e "$TMP/gco/tests.out" ]
  ok $? "no GPU: the plan's 36 steps with their limits, nothing run, exit $st"
  [ $st -eq 2 ] || diag "$TMP/out"
fi
# the steps gpu-check runs take their limits from its plan table
! grep -E '^ *(if )?step [a-zA-Z0-9$_-]+ [0-9] [0-9]+ ' scripts/gpu-check.sh
ok $? "no step call carries its own limit (the plan table is the one place)"
finish
