#!/bin/sh
# --report: charts and index.html from real runs, two files compared; input
# strings never executed (gnuplot) nor rendered raw (HTML); bad lines
# skipped with FILE:LINE; usage errors exit 2; the model drawn dashed with
# its held-out error, capacity charts, tuner trials and step-ratio charts.
. tests/lib.sh

plan 92

mpi 2 --op allreduce,p2p_lat -e 64K --max-time 0.05 --json "$TMP/a.jsonl"
ok $STATUS "run on 2 ranks"
mpi 4 --op allreduce,p2p_lat -e 64K --max-time 0.05 --json "$TMP/b.jsonl"
ok $STATUS "run on 4 ranks"

./collbench --report "$TMP/a.jsonl" "$TMP/b.jsonl" --out "$TMP/rep//" >"$TMP/out" 2>"$TMP/err"
ok $? "--report with two files exits 0"
[ -s "$TMP/err" ] && diag "$TMP/err"
check "--out DIR/ says DIR/index.html, not DIR//index.html (issue 57), and gnuplot warned of nothing" \
  sh -c "grep -qx 'collbench: report in $TMP/rep/index.html' '$TMP/out' && [ ! -s '$TMP/err' ]"
check "index.html exists" test -s "$TMP/rep/index.html"
check "index.html names a.jsonl" grep -q "$TMP/a.jsonl" "$TMP/rep/index.html"
check "index.html names b.jsonl" grep -q "$TMP/b.jsonl" "$TMP/rep/index.html"
for chart in allreduce_busbw allreduce_algbw p2p_lat_latency allreduce_latency; do
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
# (and nan: a point with no interval has no error bar, which gnuplot skips)
check "data files hold only numbers" \
  sh -c "! grep -qv '^\([0-9.e+ -]\|nan\)*\$' '$TMP/rep/allreduce.dat' '$TMP/rep/p2p_lat.dat'"
check "no JavaScript in index.html" sh -c "! grep -qi '<script' '$TMP/rep/index.html'"

# The model drawn with the measurements: fitted on a.jsonl (2 ranks), dashed
# at both files' rank counts; b.jsonl's 4-rank points are held out.
check "allreduce_latency.png is a PNG" png_ok "$TMP/rep/allreduce_latency.png"
nblocks() { awk 'NF == 0 { blank++ } END { print blank / 2 + 1 }' "$1"; }
check "model data: one block per allreduce series ($(nblocks "$TMP/rep/allreduce.dat"))" \
  test "$(nblocks "$TMP/rep/allreduce_model.dat")" -eq "$(nblocks "$TMP/rep/allreduce.dat")"
# busbw = factor * bytes / time: factor 1 for 2 ranks, 1.5 for 4; both seen
check "model data: predicted busbw = 2(n-1)/n bytes / time, n = 2 and 4" sh -c \
  "awk 'NF { r = \$3 * \$2 * 1e3 / \$1; if (r > 0.999 && r < 1.001) two++;
        else if (r > 1.499 && r < 1.501) four++; else bad = 1 }
        END { exit bad || !two || !four }' '$TMP/rep/allreduce_model.dat'"
awk '{ print $1 }' "$TMP/rep/allreduce.dat" >"$TMP/sizes"
awk '{ print $1 }' "$TMP/rep/allreduce_model.dat" >"$TMP/msizes"
check "model sizes are the measured sizes" cmp "$TMP/sizes" "$TMP/msizes"
check "the chart's key names the model and its error on the points drawn" \
  grep -q "^model_title = 'model fit on a.jsonl: [0-9]*% median error here, [0-9]*% max'" "$TMP/rep/allreduce.gp"
# issue 57: the error in the key is the lines' error on the very points
# drawn (one fit group's own error once labelled lines 50% off theirs 4%)
n=$(grep -c . "$TMP/rep/allreduce_model.dat")
max=$(paste "$TMP/rep/allreduce.dat" "$TMP/rep/allreduce_model.dat" | awk 'NF {
  e = ($9 - $2) / $2; if (e < 0) e = -e; if (e > m) m = e } END { printf "%.0f", 100 * m }')
check "... its error is on the $n points drawn, the largest $max% as the data files give it" \
  grep -q "^model_title = 'model fit on a.jsonl: [0-9]*% median error here, $max% max'" "$TMP/rep/allreduce.gp"
check "p2p_lat (no model) has no model lines" grep -q '^nmodel = 0$' "$TMP/rep/p2p_lat.gp"
# the fit is a.jsonl's, one node of 2 ranks: one cluster size, so no
# capacity chart (issue 57: a column of points under seven legend entries)
check "a fit of one 2-rank node: no capacity chart drawn" test ! -e "$TMP/rep/allreduce_capacity.png"
check "index.html says why, with the held-out error" sh -c \
  "grep -q 'Capacity planning: no chart. The model predicts no cluster size past the one measured' '$TMP/rep/index.html' && grep -q 'Model error on held-out data' '$TMP/rep/index.html'"
check "... and names what would draw one (2 or more nodes, or --topology)" \
  grep -q 'measure 2 or more nodes, or give --topology with an inter-node tier' "$TMP/rep/index.html"
check "... and no capacity script or data are left for it" sh -c \
  "[ ! -e '$TMP/rep/allreduce_capacity.gp' ] && [ ! -e '$TMP/rep/allreduce_capacity.dat' ]"
# the key figures: beside the overall peak, the peak among the sizes within
# 8x of the largest (here 16-64 KiB), a.jsonl's allreduce out of place
want=$(jq -s -r '[.[] | select(.type == "result" and .op == "allreduce" and (.inplace | not))]
  | (map(.bytes) | max) as $m | map(select(.bytes * 8 > $m)) | max_by(.busbw_GBps) | "\(.busbw_GBps * 1000 | round / 1000)"' "$TMP/a.jsonl")
check "index.html: peak busbw at large sizes beside the peak ($want GB/s)" sh -c "
  grep -q '<th>peak at large sizes (GB/s)</th>' '$TMP/rep/index.html' &&
  grep '<td>allreduce</td><td>[^<]*a.jsonl</td>' '$TMP/rep/index.html' | grep 'out-of-place' |
    awk -F'<td class=n>' -v w=$want '{ split(\$4, v, \"<\"); d = v[1] - w; exit !(d < 0.0011 && d > -0.0011) }'"
./collbench --report "$TMP/a.jsonl" "$TMP/b.jsonl" --topology topologies/h100-ndr.conf --out "$TMP/topo" >"$TMP/out" 2>"$TMP/err"
ok $? "--report --topology exits 0"
check "with --topology: predictions from 2 to 16384 GPUs" \
  sh -c "awk 'NF { if (\$1 > max) max = \$1 } END { exit max != 16384 }' '$TMP/topo/allreduce_capacity.dat' &&
  grep -q \"^unit = 'GPUs'\$\" '$TMP/topo/allreduce_capacity.gp' && grep -q '^cap_xmax = 16384\$' '$TMP/topo/allreduce_capacity.gp'"
check "... the chart names the topology's inter-node tier" grep -q "inter-node: topology tier ''ib''" "$TMP/topo/allreduce_capacity.gp"
check "... measured 4-rank points of 1 MiB? none at -e 64K: no measured block" \
  grep -q '^npoints = 0$' "$TMP/topo/allreduce_capacity.gp"
./collbench --report "$TMP/a.jsonl" --topology "$TMP/nope.conf" --out "$TMP/z" >"$TMP/out" 2>"$TMP/err"
ok $(($? != 2)) "a missing --topology file exits 2"
check "... naming it, and nothing written" sh -c "grep -q nope.conf '$TMP/err' && test ! -e '$TMP/z'"

# Tuner trials: a short exhaustive search on 2 ranks; its file is one more
# --report input, next to a.jsonl whose allreduce fit predicts the step.
mpi 2 --tune --workload tiny --tune-reps 3 --exhaustive --tune-algorithms 0,4,5 --tune-segments 64K \
  --tune-buckets 256K,1M --trials "$TMP/trials.jsonl"
ok $STATUS "--tune --trials on 2 ranks"
check "the summary carries grad_bytes and nranks" \
  jq -e 'select(.type == "summary") | .grad_bytes > 0 and .nranks == 2' "$TMP/trials.jsonl"
./collbench --report "$TMP/a.jsonl" "$TMP/trials.jsonl" --out "$TMP/tune" >"$TMP/out" 2>"$TMP/err"
ok $? "--report with a trials file exits 0"
check "no trials line skipped" sh -c "! grep -q 'skipped' '$TMP/err'"
for chart in tune2_trials tune2_step; do
  check "$chart.png is a PNG" png_ok "$TMP/tune/$chart.png"
  check "index.html shows $chart.png" grep -q "src=\"$chart.png\"" "$TMP/tune/index.html"
done
# 0 default, 4 ring, 5 segmented ring 64 KiB: three lines
check "trials chart: one line per algorithm (3)" grep -q '^nconfigs = 3$' "$TMP/tune/tune2_trials.gp"
check "trials chart: the chosen setting marked" grep -q "^chosen_title = 'chosen: " "$TMP/tune/tune2_trials.gp"
# the first point: algorithm 0 at the smallest bucket, its trials' mean step
check "trials data: rho = mean T_step / T_compute - 1 at the first point" sh -c "
  want=\$(jq -s '(map(select(.type == \"summary\"))[0].default.t_compute_us) as \$tc
    | map(select(.type == \"trial\" and .algorithm == 0)) | (map(.bucket_bytes) | min) as \$b
    | map(select(.bucket_bytes == \$b) | .t_step_us) | add / length / \$tc - 1' '$TMP/trials.jsonl')
  awk -v r=\$want 'NR == 1 { exit !((\$2 - r) < 1e-4 && (r - \$2) < 1e-4) }' '$TMP/tune/tune2_trials.dat'"
check "step data: rho predicted up to 8 GPUs (one node, no --topology)" \
  sh -c "awk 'NF == 2 { n++; if (\$1 > 8 || \$2 < 0) bad = 1 } END { exit bad || n == 0 }' '$TMP/tune/tune2_step.dat'"
check "index.html: the re-measure table and the held-out note" sh -c \
  "grep -q '<th>closing re-measure</th>' '$TMP/tune/index.html' && grep -q 'No held-out data' '$TMP/tune/index.html'"
./collbench --report "$TMP/trials.jsonl" --out "$TMP/tune1" >"$TMP/out" 2>"$TMP/err"
check "a trials file alone: trials chart, no step chart" \
  sh -c "test -s '$TMP/tune1/tune1_trials.png' && test ! -e '$TMP/tune1/tune1_step.png'"
# The same trials as the GPU tuner would name them (library nccl,
# algorithm and protocol NCCL's): lines named by NCCL's names.
jq -c 'if .type == "tune" then .setup.library = "nccl"
  elif .type == "trial" then .algorithm = (if .algorithm == 4 then 2 else 1 end) | .segsize = 0 | .protocol = 3
  else . end' "$TMP/trials.jsonl" >"$TMP/nccl.jsonl"
./collbench --report "$TMP/nccl.jsonl" --out "$TMP/nccl" >"$TMP/out" 2>"$TMP/err"
check "NCCL trials: one line per algorithm x protocol, named as NCCL_ALGO and NCCL_PROTO" sh -c \
  "grep -q '^nconfigs = 2$' '$TMP/nccl/tune1_trials.gp' && grep -q \"= 'Tree Simple'\" '$TMP/nccl/tune1_trials.gp' &&
   grep -q \"= 'Ring Simple'\" '$TMP/nccl/tune1_trials.gp'"
grep -v '"type":"summary"' "$TMP/trials.jsonl" >"$TMP/cut.jsonl"
./collbench --report "$TMP/cut.jsonl" --out "$TMP/cut" >"$TMP/out" 2>"$TMP/err"
ok $? "a trials file cut before its summary is drawn"
check "... as step times, saying why" grep -q "no summary line" "$TMP/cut/tune1_trials.gp"

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
check "the model's key quotes the file name" grep -q "^model_title = 'model fit on o''q\`touch" "$TMP/evil/allreduce.gp"
cp "$TMP/trials.jsonl" "$evil_file.trials"
./collbench --report "$evil_file" "$evil_file.trials" --out "$TMP/evil2" >"$TMP/out" 2>"$TMP/err"
ok $? "--report on a hostile trials file name exits 0"
check "... its charts drawn, nothing ran" sh -c \
  "test -s '$TMP/evil2/tune2_step.png' && test ! -e '$TMP/pwned' -a ! -e pwned5 -a ! -e '$TMP/evil2/pwned5'"
check "... the step title quotes it" grep -q "^chart_title = 'o''q\`touch pwned5\`.jsonl.trials: step" "$TMP/evil2/tune2_step.gp"

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

# Three files (a simulated two-node cluster, scripts/model-simcluster.sh: one node, two
# nodes, then the held-out two nodes x two ranks): the first two are fitted, the last held out.
F=tests/fixtures
./collbench --report $F/sim2_intra.jsonl $F/sim2_inter.jsonl $F/sim2_held.jsonl --out "$TMP/sim" \
    >"$TMP/sim.out" 2>&1
ok $? "--report with three files exits 0"
fitted_from() { sed -n '/alpha-beta fit/,/<table>/p' "$TMP/sim/index.html" | grep -q "sim2_intra.jsonl and .*sim2_inter.jsonl"; }
check "index.html: fitted from the first two files" fitted_from
held_rows() {
    rows=$(sed -n '/prediction error/,/<\/table>/p' "$TMP/sim/index.html" | grep -c '<tr><td>')
    [ "$rows" -eq 1 ] && sed -n '/prediction error/,/<\/table>/p' "$TMP/sim/index.html" | grep -q 'sim2_held.jsonl'
}
check "... and only the last file is held out (one allreduce row)" held_rows
check "the chart's key names both fitted files, and gnuplot fits every title in the key" sh -c \
  "grep -q 'sim2_intra.jsonl + sim2_inter.jsonl' '$TMP/sim/allreduce.gp' && ! grep -q 'difficulty fitting' '$TMP/sim.out'"

# The rendezvous wait in the fit table: 2-rank allreduce times made with
# alpha 5 us, beta 0.1 ns/B and a wait of 0.3 beta on every ring step's
# message from 64 KiB, queueing behind at most 1 MiB; --fit finds it
# exactly, and index.html says so in the fit's row.
jq -c 'select(.type == "run" or (.type == "result" and .op == "allreduce" and .inplace == false))
  | if .type == "result" then (.bytes / 2) as $m
    | (if $m >= 65536 then 2 * ([$m, 1048576] | min) else 0 end) as $w
    | .time_us = (2 * 5e-6 + .bytes * 1e-10 + 3e-11 * $w) * 1e6 else . end' \
  tests/fixtures/model_np2.jsonl >"$TMP/wait.jsonl"
./collbench --report "$TMP/wait.jsonl" --out "$TMP/wait" >"$TMP/out" 2>"$TMP/err"
ok $? "--report on times with a rendezvous wait exits 0"
check "the fit table has a rendezvous-wait column" grep -q '<th title="rendezvous wait: .*">wait</th>' "$TMP/wait/index.html"
check "... the fit's row: 0.30 x beta on messages from 64 KiB, queued behind up to 1 MiB" \
  grep -q '<td title="gamma 3e-11 s/B on every message of 64 KiB or more, queued behind up to 1 MiB">0.30 beta, 64 KiB-1 MiB</td>' \
  "$TMP/wait/index.html"

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
