#!/bin/sh
# scripts/gpu-check.sh without a GPU (an empty GPU_CHECK_DEV folder, so on a
# GPU machine too): it prints its whole plan (every step with its limit) and
# exits 2 having run nothing; and its
# fidelity rule (scripts/fidelity.awk) judges collbench against the plain
# NCCL loop with each size's tolerance.
. tests/lib.sh
plan 9
# an empty device folder (GPU_CHECK_DEV): no GPU, on a GPU machine too
mkdir -p "$TMP/nodev"
GPU_CHECK_DEV=$TMP/nodev GPU_CHECK_OUT=$TMP/gco sh scripts/gpu-check.sh >"$TMP/out" 2>&1
st=$?
n=$(grep -c '^  [a-z]*: [a-zA-Z0-9-]*, up to [0-9]* s$' "$TMP/out")
[ $st -eq 2 ] && [ "$n" -eq 17 ] && grep -q "no GPU here (no $TMP/nodev/nvidia0.*nothing run" "$TMP/out" &&
  grep -q '^  tests: tests-build, up to 300 s$' "$TMP/out" && [ ! -e "$TMP/gco/tests.out" ]
ok $? "no GPU: the plan's 17 steps with their limits, nothing run, exit $st"
[ $st -eq 2 ] || diag "$TMP/out"
rule() { awk -v bytes="$1" -v cb="$2" -v ref="$3" -v calls=100 -f scripts/fidelity.awk | cut -d' ' -f1; }
[ "$(rule 268435456 1000 1000)" = PASS ]
ok $? "256 MiB, the same time: PASS"
[ "$(rule 268435456 1019 1000)" = PASS ] && [ "$(rule 268435456 1021 1000)" = FAIL ]
ok $? "256 MiB: 1.9% apart passes, 2.1% fails (2% from 1 MiB)"
[ "$(rule 1048576 980.5 1000)" = PASS ] && [ "$(rule 1048576 975 1000)" = FAIL ]
ok $? "1 MiB: the same 2% both ways"
[ "$(rule 8 10.4 10)" = PASS ] && [ "$(rule 8 10.6 10)" = FAIL ]
ok $? "8 B: 4% passes, 6% fails (5% below 1 MiB)"
# 0.5 us of event resolution over 100 calls of 0.05 us is 10% of a call
[ "$(rule 8 0.054 0.05)" = PASS ] && [ "$(rule 8 0.056 0.05)" = FAIL ]
ok $? "a call shorter than the events resolve: the resolution is the floor (10% here)"
[ "$(rule 1048576 0 1000)" = FAIL ] && [ "$(rule 1048576 1000 '')" = FAIL ]
ok $? "a missing figure fails"
out=$(awk -v bytes=1048576 -v cb=1010 -v ref=1000 -v calls=100 -f scripts/fidelity.awk)
[ "$out" = "PASS +1.00 2.00" ]
ok $? "it says the difference and the tolerance ($out)"
# the steps gpu-check runs take their limits from its plan table
! grep -E '^ *(if )?step [a-zA-Z0-9$_-]+ [0-9] [0-9]+ ' scripts/gpu-check.sh
ok $? "no step call carries its own limit (the plan table is the one place)"
finish
