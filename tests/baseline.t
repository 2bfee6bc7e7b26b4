#!/bin/bash
# Fleet baselines with real runs: a baseline from five short 2-rank runs,
# a healthy --accept judged against it (no FAIL), the same against a
# baseline doctored to a much faster fleet (FAIL, naming the check), and
# --compare quiet between two healthy baselines, loud on a slowdown.
. tests/lib.sh
plan 20

run() { # run N: one short healthy run into $TMP/hN.jsonl
  mpirun -np 2 ./collbench --op allreduce -b 1K -e 4K -f 4 --max-time 0.02 \
    --no-progress --json "$TMP/h$1.jsonl" >/dev/null 2>&1
}
for i in 1 2 3 4 5 6 7 8 9 10; do run $i || break; done
ok $? "ten short healthy runs"

# odd and even runs: load from other work on the machine comes and goes over
# seconds, and would make consecutive runs a slow group
./collbench --baseline-out "$TMP/a.json" "$TMP"/h{1,3,5,7,9}.jsonl >"$TMP/out" 2>&1
ok $? "--baseline of five runs exits 0"
jq -e '.format == "collbench-baseline" and .version == 1 and (.runs | length) == 5 and
       ([.entries[] | select(.kind == "result")] | length) == 4 and
       all(.entries[]; .time_us.n == 5 and .time_us.mad >= 0 and .time_us.p10 <= .time_us.median
           and (.runs | length) == 5)' "$TMP/a.json" >/dev/null
ok $? "the baseline: 4 result entries of 5 figures each, quantiles in order, its runs named"
# issue 44: the old spelling (--baseline FILE... --out B.json) still builds
# the same baseline, and says the new one once
./collbench --baseline "$TMP"/h{1,3,5,7,9}.jsonl --out "$TMP/old.json" >"$TMP/out" 2>"$TMP/err" &&
  [ "$(grep -c -- '--baseline FILE... --out B.json is now --baseline-out B.json FILE...' "$TMP/err")" = 1 ] &&
  jq -e -s '.[0].entries == .[1].entries' "$TMP/a.json" "$TMP/old.json" >/dev/null
ok $? "the old form builds the same entries and names the new form once"
./collbench --baseline-out "$TMP/x.json" "$TMP/h1.jsonl" --out "$TMP/y.json" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q 'give one form' "$TMP/err" && [ ! -e "$TMP/x.json" ] && [ ! -e "$TMP/y.json" ]
ok $? "the two forms mixed: exit 2, nothing written"

# Issue 38 item 5: a run holding a negative size or 0 ranks once went into
# the baseline, which its own reader then refused; now each such line is
# named and skipped, and the baseline written reads back.
{ cat "$TMP/h1.jsonl"
  jq -c 'select(.type == "result") | .bytes = -8' "$TMP/h1.jsonl" | head -1
  jq -c 'select(.type == "result") | .nranks = 0' "$TMP/h1.jsonl" | head -1
} >"$TMP/badsz.jsonl"
bad_line=$(($(wc -l <"$TMP/h1.jsonl") + 1))
./collbench --baseline-out "$TMP/badsz.json" "$TMP/badsz.jsonl" "$TMP/h3.jsonl" >"$TMP/out" 2>&1 &&
  grep -q "badsz.jsonl:$bad_line: 'bytes' is not a size" "$TMP/out" &&
  grep -q "badsz.jsonl:$((bad_line + 1)): 'nranks' or 'nnodes'" "$TMP/out" &&
  ./collbench --compare "$TMP/badsz.json" "$TMP/badsz.json" >"$TMP/cmp" 2>&1
st=$?
ok $st "--baseline skips a negative size and 0 ranks, naming each; its baseline reads back"
[ $st -eq 0 ] || diag "$TMP/out" "$TMP/cmp"

# Verdicts judged against a fleet must not hang on this machine's noise: the
# five runs above can differ by 4x under load (a fleet that wide honestly
# says "cannot judge"), so the verdict tests below use the real baseline's
# medians with the spread planted at 1% and the medians moved where no noise
# reaches: fleet F times as fast (bandwidths x F, times / F).
# A planted fleet F times as fast as the best of the five runs (not their
# median: on a loaded machine a row's median can be one 16 ms moment, as it
# was for the first in-place 1 KiB allreduce in 3 of 5 runs beside a whole
# suite, and then a healthy run "beat" the fleet made 100x faster from it).
fleet() { # IN F OUT
  jq --argjson f "$2" 'def tight($m): .median = $m | .mad = $m * 0.01 | .ci95 = $m * 0.01 |
      .p5 = $m * 0.98 | .p10 = $m * 0.99 | .p90 = $m * 1.01 | .p95 = $m * 1.02 |
      .min = $m * 0.97 | .max = $m * 1.03;
    (.entries[] | select(.kind == "result")) |=
      (.busbw_GBps |= tight(.max * $f) | .algbw_GBps |= tight(.max * $f) |
       .time_us |= tight(.min / $f))' "$1" >"$3"
}
fleet "$TMP/a.json" 0.01 "$TMP/slowfleet.json"
fleet "$TMP/a.json" 100 "$TMP/fast.json"
fleet "$TMP/a.json" 1 "$TMP/tight.json"

cat >"$TMP/acc.conf" <<CONF
[system]
name = baseline test
[check ar4k]
op = allreduce
backend = mpi
size = 4K
metric = busbw
fail = 0.0001 GB/s
[baseline]
file = slowfleet.json
repeat = 3
# k 30, not the default 5: the fail level sits at 40% of the fleet's median
# (30 x the 2% spread floor); this machine against a fleet 100x slower is far
# above it, and against one 100x faster far below, whatever the load
k = 30
CONF
mpi 2 --accept "$TMP/acc.conf" --max-time 0.02 --no-progress --json "$TMP/acc.jsonl"
ok $((STATUS != 0)) "a healthy run judged against the fleet ([baseline] file) exits 0"
grep -q "PASS    fleet ar4k .*fleet median .*5 figures: z .*fails under z -30" "$TMP/out"
ok $? "its verdict says measured, median, spread, figures and the rule"
[ "$STATUS" -eq 0 ] || diag "$TMP/out"

# against a fleet 100 times faster the same machine is slow
# FAIL, or INCONCLUSIVE when a loaded machine left so few samples that the
# figure's own interval reaches past the level (a time interval down to 0 is
# a bandwidth interval up to infinity): both refuse, with exit 1; neither may
# PASS (once in 5 runs under two CPU hogs the old check saw exit 1 without a
# FAIL line: INCONCLUSIVE, by this reasoning)
mpi 2 --accept "$TMP/acc.conf" --baseline "$TMP/fast.json" --repeat 1 --max-time 0.1 \
  --no-progress --junit "$TMP/j.xml"
ok $((STATUS != 1)) "against a much faster fleet: exit 1"
[ "$STATUS" -eq 1 ] || diag "$TMP/out"
grep -Eq "(FAIL|INCONCLUSIVE) +fleet ar4k" "$TMP/out" && grep -q "measured again (1 of 1)" "$TMP/out" &&
  ! grep -q "PASS    fleet ar4k" "$TMP/out"
ok $? "it names the check, not passed, after measuring it again (--repeat 1)"
grep -A1 'name="fleet ar4k"' "$TMP/j.xml" | grep -Eq "<failure|<error"
ok $? "the fleet verdict reaches JUnit as a failure (or, inconclusive, an error)"

# too few runs: cannot judge, neither PASS nor FAIL
./collbench --baseline-out "$TMP/two.json" "$TMP"/h{1,2}.jsonl >"$TMP/bo" 2>&1
grep -q "two.json: [0-9]* figures from fewer than 5 runs: --accept judges a figure against 5 runs or more" "$TMP/bo"
ok $? "--baseline-out says when its figures are from too few runs to judge (issue 57)"
mpi 2 --accept "$TMP/acc.conf" --baseline "$TMP/two.json" --max-time 0.02 --no-progress
grep -q "WARN    fleet ar4k .*cannot judge: the baseline has 2 figures of it, fewer than 5" \
  "$TMP/out"
ok $? "a baseline of 2 runs says it cannot judge"
# issue 57: a run whose fleet verdicts judged nothing never ends in a plain ACCEPTED
tail -n 1 "$TMP/out" | grep -Eq '^(NOT )?ACCEPTED: .*; [0-9]+ of them judged nothing \(WARN: cannot judge'
ok $? "... and the answer says how many verdicts judged nothing"

# --compare: two healthy baselines (of 5 runs each: on this shared 2-core
# machine single runs differ by up to 4x), then a slowdown of 10x
# (quiet: the tight fleet against itself 10% slower, under --min-slowdown 2;
# loud: a run at 10 s a call, far past the noise of any run here)
fleet "$TMP/a.json" 0.9 "$TMP/tight90.json"
./collbench --compare "$TMP/tight.json" "$TMP/tight90.json" --min-slowdown 2 >"$TMP/cmp" 2>&1
s=$?
ok $s "--compare is quiet on two healthy baselines (exit 0)"
[ $s -eq 0 ] || diag "$TMP/cmp"
# (every row planted at 10 s, 5%, and not noisy: a row of h2 itself may have
# been one loaded moment 10000x its usual time, too few samples for an
# interval, or marked noisy, which --compare does not judge)
jq -c 'if .type == "result" then .time_us = 1e7 | .ci95_us = 5e5 | .samples = 20 | .noisy = false else . end' \
  "$TMP/h2.jsonl" >"$TMP/slow.jsonl"
./collbench --compare "$TMP/tight.json" "$TMP/slow.jsonl" --min-slowdown 2 >"$TMP/cmp" 2>&1
s=$?
ok $((s != 1)) "--compare exits 1 on a run at 10 s a call"
[ "$(grep -c '^SLOWER  allreduce mpi host shm float sum .*slowdown x[0-9.]* (95% CI' "$TMP/cmp")" -eq 4 ]
st=$?
ok $st "it names all 4 series and sizes, with the ratio and its CI"
[ $st -eq 0 ] || diag "$TMP/cmp" "$TMP/h2.jsonl" "$TMP/slow.jsonl"

# --report against the fleet: the slowed run's points are outliers, first
./collbench --report "$TMP/slow.jsonl" "$TMP/h4.jsonl" --baseline "$TMP/tight.json" --out "$TMP/rep" \
  >/dev/null 2>&1
ok $? "--report --baseline exits 0"
png_ok "$TMP/rep/fleet1.png" && [ -s "$TMP/rep/fleet1.svg" ]
ok $? "each series drawn against the fleet band (fleet1.png, .svg)"
# the outlier rows come before the healthy ones, and all four slowed points are there
awk '/outliers<\/th>/ { on = 1; next } /within the fleet/ { on = 0 } on' "$TMP/rep/index.html" |
  grep -c '^<tr><td>[^<]*slow.jsonl' | grep -qx 4
st=$?
ok $st "index.html lists the 4 slowed points first, as outliers"
[ $st -eq 0 ] || diag "$TMP/rep/index.html"
finish
