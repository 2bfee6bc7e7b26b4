#!/bin/sh
# No zero-width interval anywhere (issue 40 item 1): a figure from fewer
# samples than a 95% interval of the median needs (6: the range of n
# samples covers the median with probability 1 - 2^(1-n)) has no interval
# and is marked noisy in the table, JSON, CSV and Prometheus file, and
# --compare and --baseline never state an interval they do not have.
# A 16 MiB all-reduce with --max-time 0.001 takes one sample: its first
# sample alone (4 runs) outlasts the budget and the overrun cap.
. tests/lib.sh
plan 9

mpi 2 --op allreduce -b 16M -e 16M --max-time 0.001 --json "$TMP/one.jsonl" --csv "$TMP/one.csv" \
  --prom "$TMP/one.prom"
ok $STATUS "a one-sample run exits 0"
jq -e -s '[.[] | select(.type == "result")] | length == 2 and
  all(.samples < 6 and .ci95_us == null and .noisy == true)' "$TMP/one.jsonl" >/dev/null
ok $? "--json: each record from fewer than 6 samples has ci95_us null and noisy true"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { if ($c["ci95_us"] != "" || $c["noisy"] != "true" || $c["samples"] >= 6) bad++ }
  END { exit !(NR == 3 && !bad) }' "$TMP/one.csv"
ok $? "--csv: the same rows with an empty ci95_us and noisy true"
grep -Eq '^ +16777216 .*~ n=[1-5]: no interval, in place n=[1-5]: no interval$' "$TMP/out" &&
  grep -Eq '^# allreduce: 1 of 1 rows noisy \(~; 1 with n<6 samples: no interval\)' "$TMP/out"
ok $? "the table marks the row '~ n=K: no interval' and counts such rows"
! grep -q '^collbench_time_ci95_seconds{' "$TMP/one.prom"
ok $? "--prom: no interval series for it (rather than a zero or NaN)"
./collbench --compare "$TMP/one.jsonl" "$TMP/one.jsonl" >"$TMP/cmp" 2>&1
st=$?
[ $st -eq 0 ] && [ "$(grep -c '^unknown .*no interval: a one-run figure from too few samples' "$TMP/cmp")" -eq 2 ] &&
  ! grep -q '^SLOWER\|(95% CI' "$TMP/cmp"
ok $? "--compare of two one-sample files says there is no interval, flags nothing (exit $st)"
[ $st -eq 0 ] || diag "$TMP/cmp"
./collbench --baseline-out "$TMP/one-bl.json" "$TMP/one.jsonl" >"$TMP/bl" 2>&1 &&
  jq -e '[.entries[] | .time_us.ci95] | length == 2 and all(. == null)' "$TMP/one-bl.json" >/dev/null
ok $? "--baseline of it writes ci95 null, not 0"
./collbench --compare "$TMP/one-bl.json" "$TMP/one.jsonl" >"$TMP/cmp" 2>&1 &&
  grep -q '^unknown .*no interval' "$TMP/cmp"
ok $? "that baseline reads back, and --compare against it says the same"

# A row with enough samples keeps its interval: an 8-byte all-reduce
mpi 2 --op allreduce -b 8 -e 8 --max-time 0.2 --json "$TMP/many.jsonl"
jq -e -s '[.[] | select(.type == "result")] | all(.samples >= 6 and (.ci95_us | type) == "number")' \
  "$TMP/many.jsonl" >/dev/null
ok $? "a row of 6 samples or more has a numeric ci95_us"
finish
