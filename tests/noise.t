#!/bin/sh
# Noise marked where it is (issue 31): a row whose 95% CI stayed wider than
# --precision ends in "~ +-X%" in the table, its records say "noisy": true
# in JSON and CSV, and each series closes with one short count line instead
# of a list of sizes. Point-to-point tables show no empty in-place block and
# no bandwidth for a latency (JSON unchanged).
. tests/lib.sh
plan 11

# 0.01% within 20 ms per size is out of reach for sub-microsecond ops on any
# shared machine, so rows are marked; the test checks that the marks agree
# with the records, not how many there are.
mpi 2 --op allreduce,p2p_lat,p2p_bw -e 4K --precision 0.01% --max-time 0.02 \
  --json "$TMP/n.jsonl" --csv "$TMP/n.csv"
ok $STATUS "a sweep asking 0.01% within 20 ms exits 0"
check "JSON: every result has a boolean noisy; some are true" jq -e -s '
  [.[] | select(.type == "result")] | all(.noisy | type == "boolean") and any(.noisy)' "$TMP/n.jsonl"
check "JSON: noisy exactly where the CI is wider than --precision" jq -e -s '
  [.[] | select(.type == "result")]
  | all(.noisy == (.ci95_us == null or .ci95_us > 1e-4 * .time_us_median))' "$TMP/n.jsonl"
check "CSV: a last column noisy, true on as many lines as JSON" sh -c "
  head -n 1 '$TMP/n.csv' | grep -q ',noisy\$' &&
  test \$(grep -c ',true\$' '$TMP/n.csv') -eq \$(jq -s 'map(select(.noisy == true)) | length' '$TMP/n.jsonl')"
# the table: one "~" per allreduce row with a noisy record
want=$(jq -s '[.[] | select(.type == "result" and .op == "allreduce")] | group_by(.bytes)
  | map(select(any(.noisy))) | length' "$TMP/n.jsonl")
got=$(sed -n '/^# allreduce: backend/,/^# Avg bus/p' "$TMP/out" | grep -c '^ .*  ~ ')
check "table: allreduce rows marked ~ where JSON says noisy ($got, $want)" test "$got" -eq "$want"
check "table: the legend, and one short count line per series instead of size lists" sh -c "
  grep -q '^# ~ ending a row: noisy' '$TMP/out' &&
  grep -Eq '^# allreduce: $want of [0-9]* rows noisy \\(~(: 95% CI of the median wider than --precision 0.01%|; [0-9]+ with n<6 samples: no interval)' '$TMP/out' &&
  ! grep -q 'stayed wider than --precision .* at [0-9]* sizes' '$TMP/out' &&
  test \$(grep '^# [a-z0-9_]*: [0-9]* of ' '$TMP/out' | awk '{ if (length > 160) n++ } END { print n + 0 }') -eq 0"
check "p2p_lat table: time and #wrong only (no bandwidth, no in-place block)" sh -c "
  sed -n '/^# p2p_lat: backend/,/^#\$/p' '$TMP/out' | grep -q '^#  *size  *count  *type  *redop  *root  *time #wrong\$' &&
  ! sed -n '/^# p2p_lat: backend/,/^#\$/p' '$TMP/out' | grep -q 'N/A\|in-place\|busbw\|Avg bus'"
check "p2p_bw table: one block with its bandwidths, no in-place block" sh -c "
  sed -n '/^# p2p_bw: backend/,/^# Avg bus/p' '$TMP/out' | grep -q '^#  *size .* time  *algbw  *busbw #wrong\$' &&
  ! sed -n '/^# p2p_bw: backend/,/^# Avg bus/p' '$TMP/out' | grep -q 'N/A\|in-place'"
check "JSON of p2p_lat keeps its bandwidth fields" jq -e -s '
  [.[] | select(.type == "result" and .op == "p2p_lat")] | length > 0 and all(.busbw_GBps > 0 and .algbw_GBps > 0)' \
  "$TMP/n.jsonl"

# fixed iterations ask for no precision, and claim none: -n 5 is one sample
# of five runs (throughput mode), too few for an interval (issue 40): each
# row says so rather than looking precise; -n 20 in latency mode is 20
# samples, an interval, nothing marked
mpi 2 --op allreduce -e 1K -n 5 -w 1 --json "$TMP/f.jsonl"
check "-n 5: every record without an interval, each row marked 'n=1: no interval'" sh -c "
  jq -e -s '[.[] | select(.type == \"result\")] | all(.noisy and .ci95_us == null and .samples == 1)' '$TMP/f.jsonl' >/dev/null &&
  test \$(grep -c '  ~ n=1: no interval, in place n=1: no interval\$' '$TMP/out') -eq \$(jq -s '[.[] | select(.type == \"result\")] | length / 2' '$TMP/f.jsonl')"
mpi 2 --op p2p_lat -e 1K -n 20 -w 1 --timing latency --json "$TMP/l.jsonl"
check "-n 20 latency: 20 samples, an interval, no mark" sh -c "
  jq -e -s '[.[] | select(.type == \"result\")] | all(.noisy == false and (.ci95_us | type) == \"number\")' '$TMP/l.jsonl' >/dev/null &&
  ! grep -q '  ~ ' '$TMP/out'"
finish
