#!/bin/sh
# scripts/gpu-check.sh on a machine without a GPU: it prints its whole plan
# (every step with its limit) and exits 2 having run nothing. Its judging
# rule (scripts/paired.awk) and the rest of its parts run against stand-ins
# in tests/gpu_scripts.t.
. tests/lib.sh
plan 5
if ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
  skip "a GPU is here: scripts/gpu-check.sh would run it (README, Checking on a GPU machine)"
else
  GPU_CHECK_OUT=$TMP/gco sh scripts/gpu-check.sh >"$TMP/out" 2>&1
  st=$?
  n=$(grep -c '^  [a-z0-9]*: [a-zA-Z0-9-]*, up to [0-9]* s$' "$TMP/out")
  [ $st -eq 2 ] && [ "$n" -eq 38 ] && grep -q 'no GPU here.*nothing run' "$TMP/out" &&
    grep -q '^  tests: tests-build, up to 120 s$' "$TMP/out" && [ ! -e "$TMP/gco/tests.out" ]
  ok $? "no GPU: the plan's 38 steps with their limits, nothing run, exit $st"
  [ $st -eq 2 ] || diag "$TMP/out"
fi
# issue 75 finding 6: each part's steps fit the default budget (480 s) by
# themselves, so a part run alone in one call never ends in SKIP (budget)
GPU_CHECK_OUT=$TMP/gco GPU_CHECK_DEV=$TMP sh scripts/gpu-check.sh >"$TMP/plan" 2>&1
over=$(awk '/^  [a-z0-9]+: [a-zA-Z0-9-]+, up to [0-9]+ s$/ { p = $1; sub(":", "", p); t[p] += $(NF - 1) }
  END { for (p in t) if (t[p] > 480) printf "%s %d s; ", p, t[p] }' "$TMP/plan")
[ -z "$over" ] && grep -q '^  layouts2: ' "$TMP/plan"
ok $? "every part planned within the 480 s budget${over:+ (over: $over)}"
# the default order: what has never run on a GPU first, after the build
first=$(awk '/^  [a-z0-9]+: [a-zA-Z0-9-]+, up to/ { p = $1; sub(":", "", p); if (p != last) printf "%s ", p; last = p }' "$TMP/plan")
[ "$first" = "basics layouts layouts2 ran ucx tuner nccl copy watchdog anchor tests " ]
ok $? "the default order puts the never-run parts first ($first)"
# issue 75 finding 11: fetching the MPI tree again keeps a prepared UCX
mkdir -p "$TMP/fr/scripts" "$TMP/fr/.gpu-deps/ucx/lib" "$TMP/fr/bin"
cp scripts/fetch-gpu-deps.sh "$TMP/fr/scripts/"
: >"$TMP/fr/.gpu-deps/ucx/lib/libucp.so.0"
printf '#!/bin/sh\nexit 100\n' >"$TMP/fr/bin/apt-get" && chmod +x "$TMP/fr/bin/apt-get"
PATH="$TMP/fr/bin:$PATH" sh "$TMP/fr/scripts/fetch-gpu-deps.sh" >"$TMP/fr.out" 2>&1
st=$?
[ $st -eq 3 ] && [ -e "$TMP/fr/.gpu-deps/ucx/lib/libucp.so.0" ]
ok $? "scripts/fetch-gpu-deps.sh (apt failing here, exit $st) leaves .gpu-deps/ucx in place"
# the steps gpu-check runs take their limits from its plan table
! grep -E '^ *(if )?step [a-zA-Z0-9$_-]+ [0-9] [0-9]+ ' scripts/gpu-check.sh
ok $? "no step call carries its own limit (the plan table is the one place)"
finish
