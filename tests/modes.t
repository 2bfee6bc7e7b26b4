#!/bin/sh
# Timing modes, fixed iteration counts, disabled checks, odd rank counts.
. tests/lib.sh
plan 8

mpi 2 --timing latency --op allreduce,p2p_lat -e 1K --max-time 0.1 --json "$TMP/lat.jsonl"
ok $STATUS "--timing latency runs"
jq -e -s '.[0].settings.mode == "latency"' "$TMP/lat.jsonl" >/dev/null &&
  jq_all "$TMP/lat.jsonl" '.wrong == 0 and .time_us_min <= .time_us and .time_us <= .time_us_max'
ok $? "latency records are checked and ordered min <= median <= max"

mpi 2 -n 50 -w 3 --op allreduce,broadcast -e 64K --json "$TMP/fixed.jsonl"
jq_all "$TMP/fixed.jsonl" '.iters == 50'
ok $? "-n 50 times exactly 50 operations per record"
jq -e -s '.[0].settings.iters == 50 and .[0].settings.warmup == 3' "$TMP/fixed.jsonl" >/dev/null
ok $? "the run record keeps the fixed counts"

mpi 2 -c 0 -e 64 --max-time 0.05 --json "$TMP/nocheck.jsonl" --csv "$TMP/nocheck.csv"
jq_all "$TMP/nocheck.jsonl" '.wrong == null'
ok $? "-c 0: wrong is null in JSON"
grep -q ' N/A *\($\|  ~ \)' "$TMP/out" && grep -q 'not checked' "$TMP/out"
ok $? "-c 0: the table says N/A and counts unchecked records"

mpi 3 --op p2p_lat,p2p_bw,allgather -e 1K --max-time 0.05 --json "$TMP/odd.jsonl"
ok $STATUS "3 ranks: the odd rank sits out of p2p without a hang"
jq_all "$TMP/odd.jsonl" '.nranks == 3 and .wrong == 0'
ok $? "3 ranks: every record checked with wrong = 0"
finish
