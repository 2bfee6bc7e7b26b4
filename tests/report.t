#!/bin/sh
# --report: charts and index.html from real runs, two files compared; input
# strings never executed (gnuplot) nor rendered raw (HTML); bad lines
# skipped with FILE:LINE; usage errors exit 2.
. tests/lib.sh

plan 42

mpi 2 --op allreduce,p2p_lat -e 64K --max-time 0.05 --json "$TMP/a.jsonl"
ok $STATUS "run on 2 ranks"
mpi 4 --op allreduce,p2p_lat -e 64K --max-time 0.05 --json "$TMP/b.jsonl"
ok $STATUS "run on 4 ranks"

./collbench --report "$TMP/a.jsonl" "$TMP/b.jsonl" --out "$TMP/rep" >"$TMP/out" 2>"$TMP/err"
ok $? "--report with two files exits 0"
[ -s "$TMP/err" ] && diag "$TMP/err"
check "index.html exists" test -s "$TMP/rep/index.html"
check "index.html names a.jsonl" grep -q "$TMP/a.jsonl" "$TMP/rep/index.html"
check "index.html names b.jsonl" grep -q "$TMP/b.jsonl" "$TMP/rep/index.html"
for chart in allreduce_busbw p2p_lat_busbw p2p_lat_latency; do
  check "$chart.png is a PNG" png_ok "$TMP/rep/$chart.png"
  check "$chart.svg exists" grep -q '<svg' "$TMP/rep/$chart.svg"
  check "index.html shows $chart.png" grep -q "src=\"$chart.png\"" "$TMP/rep/index.html"
done
check "the allreduce chart compares both files, naming their rank counts" \
  sh -c "grep -q \"'a.jsonl (2 ranks, 1 node): \" '$TMP/rep/allreduce.gp' && grep -q \"'b.jsonl (4 ranks, 1 node): \" '$TMP/rep/allreduce.gp'"
check "the ratio chart compares b.jsonl with a.jsonl" png_ok "$TMP/rep/allreduce_ratio.png"
check "index.html shows the ratio chart" grep -q 'src="allreduce_ratio.png"' "$TMP/rep/index.html"
# 4 ranks over 2: every ratio a positive number, one per size both measured
check "ratio data: sizes and positive ratios only" \
  sh -c "awk 'NF && !(\$1 > 0 && \$2 > 0) { exit 1 } NF { n++ } END { exit n == 0 }' '$TMP/rep/allreduce_ratio.dat'"
./collbench --report "$TMP/a.jsonl" --out "$TMP/one" >/dev/null 2>&1
check "one file alone gets charts but no ratio chart" \
  sh -c "ls '$TMP/one' | grep -q allreduce_busbw.png && ! ls '$TMP/one' | grep -q ratio"
check "data files hold only numbers" \
  sh -c "! grep -qv '^[0-9.e+ -]*\$' '$TMP/rep/allreduce.dat' '$TMP/rep/p2p_lat.dat'"
check "no JavaScript in index.html" sh -c "! grep -qi '<script' '$TMP/rep/index.html'"

# Injection: hostnames, a transport and the file name carry shell, gnuplot
# and HTML syntax. Nothing may run and the page must show them as text.
evil_host="evil'\"\`touch $TMP/pwned\`; system(\"touch $TMP/pwned2\")"
evil_transport="it's \`touch $TMP/pwned3\` system(\"touch $TMP/pwned4\") @png_term
<b>"
evil_file="$TMP/o'q\`touch pwned5\`.jsonl" # no slash: a file name
jq -c --arg h "$evil_host" --arg t "$evil_transport" '
  if .type == "run" then .hostnames = [$h, "<script>alert(1)</script>"]
  elif .op == "allreduce" then .transport = $t else . end' "$TMP/a.jsonl" >"$evil_file"
./collbench --report "$evil_file" --out "$TMP/evil" >"$TMP/out" 2>"$TMP/err"
ok $? "--report on hostile strings exits 0"
[ -s "$TMP/err" ] && diag "$TMP/err"
check "no backquote ran" test ! -e "$TMP/pwned" -a ! -e "$TMP/pwned3" -a ! -e "$TMP/evil/pwned5" -a ! -e pwned5
check "no system() ran" test ! -e "$TMP/pwned2" -a ! -e "$TMP/pwned4"
check "allreduce chart drawn" png_ok "$TMP/evil/allreduce_busbw.png"
check "html escapes quotes" grep -q "evil&#39;&quot;\`touch" "$TMP/evil/index.html"
check "html escapes <script>" grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$TMP/evil/index.html"
check "no raw <b> or <script> from input" \
  sh -c "! grep -q '<b>\|<script' '$TMP/evil/index.html'"
check "gnuplot title doubles the quote" grep -q "it''s \`touch" "$TMP/evil/allreduce.gp"
check "hostnames never reach gnuplot" sh -c "! grep -q evil '$TMP/evil/'*.gp"

# Malformed input: a garbage line 2, a result without busbw at line 4 and a
# truncated last line are named and skipped; the rest is drawn.
{
  head -n 1 "$TMP/a.jsonl"
  echo 'this is not JSON'
  grep '"op":"allreduce"' "$TMP/a.jsonl" | head -n 3
  grep '"op":"allreduce"' "$TMP/a.jsonl" | sed -n 4p | jq -c 'del(.busbw_GBps)'
  grep '"op":"allreduce"' "$TMP/a.jsonl" | sed -n 5p | cut -c 1-60 | tr -d '\n'
} >"$TMP/m.jsonl"
./collbench --report "$TMP/m.jsonl" --out "$TMP/mal" >"$TMP/out" 2>"$TMP/err"
ok $? "--report on a damaged file exits 0"
check "garbage line named as FILE:2:" grep -q "^collbench: $TMP/m.jsonl:2: " "$TMP/err"
check "missing key named as FILE:6:" grep -q "^collbench: $TMP/m.jsonl:6: .*busbw_GBps" "$TMP/err"
check "truncated last line named as FILE:7:" grep -q "^collbench: $TMP/m.jsonl:7: " "$TMP/err"
check "chart drawn from the good lines" png_ok "$TMP/mal/allreduce_busbw.png"
check "data file has the 3 good points" test "$(grep -c . "$TMP/mal/allreduce.dat")" -eq 3

# Usage errors
./collbench --report "$TMP/a.jsonl" >"$TMP/out" 2>"$TMP/err"
ok $(($? != 2)) "--report without --out exits 2"
check "... and says --out is needed" grep -q -- '--out' "$TMP/err"
./collbench --report "$TMP/nope.jsonl" --out "$TMP/x" >"$TMP/out" 2>"$TMP/err"
ok $(($? != 2)) "missing input file exits 2"
check "... naming it" grep -q "$TMP/nope.jsonl" "$TMP/err"
head -n 1 "$TMP/a.jsonl" >"$TMP/empty.jsonl"
./collbench --report "$TMP/empty.jsonl" --out "$TMP/y" >"$TMP/out" 2>"$TMP/err"
ok $(($? != 2)) "no result lines at all exits 2"

finish
