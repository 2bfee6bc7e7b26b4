#!/bin/sh
# --stat: records carry the median, the anchors' mean (total time over
# iterations), min, max, p5, p95 and p99; the table's time column, time_us,
# algbw and busbw follow the chosen one, and the table's header names it.
. tests/lib.sh

plan 14

run() { # STAT-OPTION...: a short real run on 2 ranks
  mpi 2 -b 1K -e 64K -f 8 --max-time 0.05 --json "$TMP/r.jsonl" --csv "$TMP/r.csv" "$@"
}

run
ok $STATUS "default run"
check "the header says the time is the median" grep -q '^# time: median per op (us)' "$TMP/out"
check "default: stat median, time_us is the median" \
  jq_all "$TMP/r.jsonl" '.stat == "median" and .time_us == .time_us_median and .source == "collbench"'
check "every statistic is there and in order: min <= p5 <= median <= p95 <= p99 <= max" \
  jq_all "$TMP/r.jsonl" '.time_us_min <= .time_us_p5 and .time_us_p5 <= .time_us_median and .time_us_median <= .time_us_p95 and .time_us_p95 <= .time_us_p99 and .time_us_p99 <= .time_us_max'
check "the mean (total time / iterations) lies between min and max" \
  jq_all "$TMP/r.jsonl" '.time_us_mean > 0 and .time_us_min <= .time_us_mean and .time_us_mean <= .time_us_max'

run --stat mean
ok $STATUS "--stat mean"
check "the header says the time is the mean" grep -q '^# time: mean (total time / iterations) per op (us)' "$TMP/out"
check "--stat mean: stat mean, time_us is the mean" jq_all "$TMP/r.jsonl" '.stat == "mean" and .time_us == .time_us_mean'
check "algbw = bytes / mean time, busbw = algbw (2 ranks)" \
  jq_all "$TMP/r.jsonl" '((.algbw_GBps - .bytes / .time_us / 1000) | fabs) <= 1e-5 * .algbw_GBps and .busbw_GBps == .algbw_GBps'
# the table's 64 KiB out-of-place time is the JSON's mean, to the table's 2 decimals
t=$(awk '$1 == 65536 { print $6 }' "$TMP/out")
j=$(jq -r 'select(.type == "result" and .bytes == 65536 and (.inplace | not)) | .time_us_mean * 100 | round / 100' "$TMP/r.jsonl")
ok $(awk -v t="$t" -v j="$j" 'BEGIN { exit !(t != "" && (t - j) < 0.011 && (j - t) < 0.011) }'; echo $?) \
  "the table's time column shows the mean ($t us, JSON $j)"
check "CSV: the stat column says mean" sh -c "tail -n +2 '$TMP/r.csv' | cut -d, -f24 | sort -u | grep -qx mean"

run --stat min
ok $(test $STATUS -eq 0 && jq_all "$TMP/r.jsonl" '.stat == "min" and .time_us == .time_us_min'; echo $?) \
  "--stat min: time_us is the fastest sample"
check "the header says min" grep -q '^# time: min (fastest sample) per op' "$TMP/out"

./collbench --stat average >"$TMP/out" 2>"$TMP/err"
ok $(test $? -eq 2 && grep -q -- "--stat: unknown value 'average'" "$TMP/err"; echo $?) \
  "--stat average: exit 2 naming the value"
finish
