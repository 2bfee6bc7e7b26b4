#!/bin/sh
# --import-nccl-tests: nccl-tests' table and -J JSON (fixtures made by hand
# from the formats in nccl-tests' src/util.cu) become collbench's records,
# which --report and the model read; a malformed file exits 2 naming the
# file and line, and leaves the output untouched. No MPI.
. tests/lib.sh

plan 33

T=tests/fixtures/nccl_tests_allreduce.txt
J=tests/fixtures/nccl_tests_allgather.json

./collbench --import-nccl-tests "$T" --json "$TMP/t.jsonl" --csv "$TMP/t.csv" >"$TMP/out" 2>"$TMP/err"
ok $? "the table imports (exit 0)"
[ -s "$TMP/err" ] && diag "$TMP/err"
check "it says what it read" grep -q '3 rows of nccl-tests all_reduce_perf (table, 4 ranks on 2 hosts) as op allreduce' "$TMP/out"
check "6 records: 3 sizes out of place and in place" \
  test "$(jq -s '[.[] | select(.type == "result")] | length' "$TMP/t.jsonl")" -eq 6
check "records say op, backend, source, ranks and hosts" \
  jq_all "$TMP/t.jsonl" '.op == "allreduce" and .backend == "nccl" and .source == "nccl-tests" and .nranks == 4 and .nnodes == 2 and .iters == 20'
check "time is nccl-tests' mean: stat mean, time_us = time_us_mean, median unknown" \
  jq_all "$TMP/t.jsonl" '.stat == "mean" and .time_us == .time_us_mean and .time_us_median == null'
check "1 MiB in place: 98 us, busbw 16.05, 3 wrong" \
  jq -e -s 'any(.[]; .bytes == 1048576 and .inplace and .time_us == 98 and .busbw_GBps == 16.05 and .wrong == 3)' "$TMP/t.jsonl"
check "CSV: a header and 6 records, with stat, source and batch columns (one batch of 20)" \
  sh -c "test \$(wc -l <'$TMP/t.csv') -eq 7 && head -n 1 '$TMP/t.csv' | grep -q ',stat,time_us_median,time_us_mean,time_us_p99,source,samples,batch_min,batch_max,noisy\$' && grep -c ',mean,,.*,nccl-tests,1,20,20,false\$' '$TMP/t.csv' | grep -qx 6"

./collbench --import-nccl-tests "$J" --json "$TMP/j.jsonl" >"$TMP/out" 2>"$TMP/err"
ok $? "the -J JSON imports (exit 0)"
check "3 records (the \"nan\" one left out, and said)" \
  sh -c "test \$(jq -s 'length' '$TMP/j.jsonl') -eq 3 && grep -q '\"nan\": left out' '$TMP/out'"
check "per-iteration p50 and p99 become time_us_median and time_us_p99" \
  jq -e -s 'any(.[]; .bytes == 1024 and (.inplace | not) and .time_us_median == 12 and .time_us_p99 == 19.5 and .op == "allgather")' "$TMP/j.jsonl"

# the records go where collbench's own go
./collbench --report "$TMP/t.jsonl" "$TMP/j.jsonl" --out "$TMP/rep" >"$TMP/out" 2>"$TMP/err"
ok $? "--report reads imported files (exit 0)"
check "--report skips no line of them" test ! -s "$TMP/err"
check "the allreduce busbw chart is drawn" png_ok "$TMP/rep/allreduce_busbw.png"
./collbench --fit "$TMP/t.jsonl" >"$TMP/out" 2>"$TMP/err"
ok $? "--fit reads an imported file (exit 0)"
check "the model fits allreduce between the two hosts" grep -q '^allreduce *inter-node *nccl/device/auto/float' "$TMP/out"

# malformed: a row cut short (a killed run) at line 17
sed '17s/ *98.00 .*$//' "$T" >"$TMP/cut.txt"
echo keep >"$TMP/keep.jsonl"
./collbench --import-nccl-tests "$TMP/cut.txt" --json "$TMP/keep.jsonl" >"$TMP/out" 2>"$TMP/err"
ok $(test $? -eq 2; echo $?) "a cut row exits 2"
check "the message names the file and line 17" grep -q "$TMP/cut.txt:17: " "$TMP/err"
check "the output file is untouched" grep -qx keep "$TMP/keep.jsonl"
printf '{"results": [{"size": 8,' >"$TMP/cut.json"
./collbench --import-nccl-tests "$TMP/cut.json" --json "$TMP/keep.jsonl" >"$TMP/out" 2>"$TMP/err"
ok $(test $? -eq 2 && grep -q "$TMP/cut.json:1:" "$TMP/err"; echo $?) "cut JSON exits 2 naming file and line"

# nccl-tests before 2.16 did not name the program: --op says
grep -v 'Collective test' "$T" >"$TMP/old.txt"
./collbench --import-nccl-tests "$TMP/old.txt" --json "$TMP/old.jsonl" >"$TMP/out" 2>"$TMP/err"
ok $(test $? -eq 2 && grep -q -- '--op NAME' "$TMP/err"; echo $?) "no program name, no --op: exit 2 asking for --op"
./collbench --import-nccl-tests "$TMP/old.txt" --op allreduce --json "$TMP/old.jsonl" >"$TMP/out" 2>"$TMP/err"
ok $(test $? -eq 0 && jq_all "$TMP/old.jsonl" '.op == "allreduce"'; echo $?) "with --op allreduce it imports"

./collbench --import-nccl-tests "$T" >"$TMP/out" 2>"$TMP/err"
ok $(test $? -eq 2 && grep -q -- '--json FILE' "$TMP/err"; echo $?) "no --json or --csv: exit 2"
./collbench --import-nccl-tests "$T" --json "$TMP/x.jsonl" --iters 5 >"$TMP/out" 2>"$TMP/err"
ok $(test $? -eq 2 && grep -q "'--iters' does not go with --import-nccl-tests" "$TMP/err"; echo $?) \
  "a measuring option: exit 2 naming it"
./collbench --import-nccl-tests "$TMP/none.txt" --json "$TMP/x.jsonl" >"$TMP/out" 2>"$TMP/err"
ok $(test $? -eq 2 && grep -q "cannot read '$TMP/none.txt'" "$TMP/err"; echo $?) \
  "a file that is not there: exit 2 naming it"

# issue 28: out-of-range numbers are refused with the line, never cast (UBSan
# flagged 1e23 into size_t and 1e308 into long); bytes 0 is not a row
row=$(grep -n '^ *8192 ' "$T" | head -n 1 | cut -d: -f1)
while IFS='|' read -r what edit where; do
  if [ "${edit#s/}" != "$edit" ]; then
    sed "${row}$edit" "$T" >"$TMP/range.txt" && f=$TMP/range.txt
  else
    sed "$edit" "$J" >"$TMP/range.json" && f=$TMP/range.json
  fi
  echo keep >"$TMP/keep.jsonl"
  ./collbench --import-nccl-tests "$f" --json "$TMP/keep.jsonl" >"$TMP/out" 2>"$TMP/err"
  ok $(test $? -eq 2 && grep -q "$f$where" "$TMP/err" && grep -qx keep "$TMP/keep.jsonl"
    echo $?) "$what: exit 2 naming the place, output untouched"
done <<EOF
text size 1e23|s/^ *8192 /  1e23 /|:$row: size
text size 0|s/^ *8192  *2048 /  0  0 /|:$row: size
text #wrong 1e308|s/ 0\.51  *0$/ 0.51 1e308/|:$row: #wrong
json nwrong 1e308|0,/"nwrong":0.000000/s//"nwrong":1e308/|: results\[0\].out_of_place
json size 0|0,/"size":1024,"count":128/s//"size":0,"count":0/|: results\[0\]
json root 2^40|0,/"root":"    -1"/s//"root":1099511627776/|: results\[0\]
EOF
# an endless input: refused at the line bound, memory capped so a
# regression fails here instead of eating the machine
(ulimit -v 4000000 2>/dev/null; timeout 20 ./collbench --import-nccl-tests /dev/zero --json "$TMP/z.jsonl") \
  >"$TMP/out" 2>"$TMP/err"
ok $(test $? -eq 2 && grep -q '/dev/zero:1: a line longer than 1 MiB' "$TMP/err"; echo $?) \
  "/dev/zero: exit 2 at the 1 MiB line bound"
# text from the input reaches CSV cells escaped (RFC 4180): a comma, a quote
# and a line break stay inside one quoted field, and a cell a spreadsheet would
# run as a formula is kept as text ('=...)
sed 's/"type":"float","redop":"none"/"type":"=HYPERLINK(1)","redop":"a,b\\nc\\"d"/' "$J" >"$TMP/inj.json"
./collbench --import-nccl-tests "$TMP/inj.json" --csv "$TMP/inj.csv" >"$TMP/out" 2>"$TMP/err"
ok $? "a -J file with a formula, a comma, a quote and a newline in its text imports (exit 0)"
grep -q "^allgather,nccl,device,auto,\"'=HYPERLINK(1)\",\"a,b\$" "$TMP/inj.csv" &&
  grep -q '^c""d",false,1024,' "$TMP/inj.csv" && ! grep -q '^allgather,nccl,device,auto,=' "$TMP/inj.csv"
ok $? "CSV: the formula kept as text, the redop one quoted field over its line break"
finish
