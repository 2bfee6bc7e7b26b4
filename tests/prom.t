#!/bin/sh
# --prom: node_exporter textfile format, replaced atomically, from the same
# records as every other output.
. tests/lib.sh
plan 9

echo 'old_metric 1' >"$TMP/cb.prom"
mpi 2 --op nope --prom "$TMP/cb.prom"
grep -q '^old_metric 1$' "$TMP/cb.prom"
ok $? "a run refused for bad input leaves the previous file alone"

mpi 2 --op allreduce,p2p_lat -e 1K --max-time 0.05 --prom "$TMP/cb.prom" --json "$TMP/r.jsonl"
ok $STATUS "--prom run exits 0"
! grep -q old_metric "$TMP/cb.prom" && [ -z "$(ls "$TMP" | grep 'cb.prom.tmp')" ]
ok $? "the file was replaced whole and no temporary file is left"
promtool_ok "$TMP/cb.prom"

# Every line is HELP, TYPE or a sample of a family announced before it.
awk '
  /^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* / { help[$3] = 1; next }
  /^# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* gauge$/ { if (!help[$3]) bad = 1; type[$3] = 1; next }
  {
    name = $0; sub(/[{ ].*/, "", name)
    if (!type[name] || name !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) bad = 1
    if ($NF !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) bad = 1
    n++
  }
  END { exit bad || n == 0 }' "$TMP/cb.prom"
ok $? "well-formed: HELP and TYPE before each family, numeric samples"

grep -q '^collbench_busbw_bytes_per_second{op="allreduce",backend="mpi",mem="host",transport="shm",dtype="float",redop="sum",inplace="false",size_bytes="1024"} [1-9]' "$TMP/cb.prom"
ok $? "busbw in bytes per second with op/backend/mem/transport/size_bytes labels"

# the same figure as the JSON record, in base units
want=$(jq -r 'select(.type == "result" and .op == "allreduce" and .bytes == 1024 and .inplace == false) | .busbw_GBps * 1e9' "$TMP/r.jsonl")
got=$(grep '^collbench_busbw_bytes_per_second{op="allreduce".*inplace="false",size_bytes="1024"}' "$TMP/cb.prom" | awk '{print $NF}')
awk -v a="$want" -v b="$got" 'BEGIN { exit !(b > 0 && (a - b) / a < 1e-6 && (b - a) / a < 1e-6) }'
ok $? "it is the JSON record's busbw ($got = $want)"

mpi 2 -e 8 --prom "$TMP/missing/x.prom"
[ $STATUS -eq 2 ] && grep -q 'prom' "$TMP/err"
ok $? "an unwritable --prom path exits 2 before running (got $STATUS)"
# two acceptance checks of one op and size: each series once (a series written
# twice makes node_exporter drop both at every scrape); the later figure stands
printf '[system]\nname = t\n[check a]\nop = allreduce\nbackend = mpi\nsize = 4K\nmetric = busbw\nfail = 0.0001 GB/s\n[check b]\nop = allreduce\nbackend = mpi\nsize = 4K\nmetric = time\nfail = 1000000 us\n' >"$TMP/two.conf"
mpi 2 --accept "$TMP/two.conf" --max-time 0.02 --prom "$TMP/two.prom"
[ $STATUS -le 1 ] && [ -s "$TMP/two.prom" ] &&
  [ -z "$(grep -v '^#' "$TMP/two.prom" | sed 's/ [^ ]*$//' | sort | uniq -d)" ] &&
  grep -q '^collbench_busbw_bytes_per_second{op="allreduce".*size_bytes="4096"}' "$TMP/two.prom"
ok $? "--accept --prom with two checks of one op and size: every series once (exit $STATUS)"
finish
