#!/bin/sh
# --report on --matrix output: bandwidth and latency heatmaps from a real
# 3-rank run, FAIL/WARN verdicts listed, hostnames only in index.html and
# escaped there, bad pair lines named with FILE:LINE and skipped; copy
# matrices (hand-made from the real run: no GPU here) as heatmaps and a table.
. tests/lib.sh
if ! have_gnuplot; then
  echo "1..0 # SKIP configured without gnuplot: --report cannot draw (scripts/install-test-deps.sh installs it)"
  exit 0
fi

plan 39

mpi 3 --matrix=64K --json "$TMP/m.jsonl"
# a slow link on a time-shared machine is a verdict, not a broken run
ok $(($STATUS != 0 && $STATUS != 1)) "--matrix on 3 ranks ran (status $STATUS)"
./collbench --report "$TMP/m.jsonl" --out "$TMP/rep" >"$TMP/out" 2>"$TMP/err"
ok $? "--report on matrix output exits 0"
[ -s "$TMP/err" ] && diag "$TMP/err"
for chart in matrix1_bw matrix1_lat; do
  check "$chart.png is a PNG" png_ok "$TMP/rep/$chart.png"
  check "$chart.svg exists" grep -q '<svg' "$TMP/rep/$chart.svg"
  check "index.html shows $chart.png" grep -q "src=\"$chart.png\"" "$TMP/rep/index.html"
done
# 3 ranks: 3 rows of 3 cells per block, the 6 off-diagonal cells measured
check "bandwidth block: 6 positive cells, a NaN diagonal" sh -c \
  "awk 'blank >= 3 { exit } NF && \$1 == \$2 && \$3 != \"nan\" { bad = 1 }
        NF && \$1 != \$2 && \$3 > 0 { n++ } /^\$/ { blank++ }
        END { exit bad || n != 6 }' '$TMP/rep/matrix1.dat'"
check "index.html counts the run's verdicts" \
  grep -q "<p>$(grep -c '"type":"verdict"' "$TMP/m.jsonl") verdict" "$TMP/rep/index.html"

# Hand-made lines: a hostile hostname on a fresh pair, a FAIL verdict naming
# it, and damaged pair lines (ranks equal, no figure, not a number).
evil="ev<i>l'\"\`touch $TMP/pwned\`; system(\"touch $TMP/pwned2\")"
{
  head -n 1 "$TMP/m.jsonl"
  jq -nc --arg h "$evil" '{type:"pair",src:3,dst:0,src_host:$h,dst_host:"vm",bytes:65536,
    bw_GBps:0.5,lat_us:null,round:1}'
  echo '{"type":"pair","src":1,"dst":1,"src_host":"vm","dst_host":"vm","bytes":65536,"bw_GBps":1,"lat_us":null,"round":1}'
  echo '{"type":"pair","src":0,"dst":1,"src_host":"vm","dst_host":"vm","bytes":8,"bw_GBps":null,"lat_us":null,"round":1}'
  echo '{"type":"pair","src":0,"dst":"2","src_host":"vm","dst_host":"vm","bytes":8,"bw_GBps":null,"lat_us":3,"round":1}'
  jq -nc --arg h "$evil" '{type:"verdict",check:("link 3->0 " + $h),status:"FAIL",measured:0.5,
    warn:null,fail:7.2,unit:"GB/s",margin:null,what:"slow alone <b>"}'
  grep '"type":"pair"' "$TMP/m.jsonl"
} >"$TMP/h.jsonl"
./collbench --report "$TMP/h.jsonl" --out "$TMP/evil" >"$TMP/out" 2>"$TMP/err"
ok $? "--report on hostile and damaged lines exits 0"
check "ranks equal named as FILE:3:" grep -q "^collbench: $TMP/h.jsonl:3: .*src" "$TMP/err"
check "no figure named as FILE:4:" grep -q "^collbench: $TMP/h.jsonl:4: .*bw_GBps" "$TMP/err"
check "string rank named as FILE:5:" grep -q "^collbench: $TMP/h.jsonl:5: " "$TMP/err"
check "the heatmap grew to 4 ranks" grep -q '^nranks = 4$' "$TMP/evil/matrix1.gp"
check "heatmap drawn" png_ok "$TMP/evil/matrix1_bw.png"
check "no backquote or system() ran" test ! -e "$TMP/pwned" -a ! -e "$TMP/pwned2"
check "hostname escaped in the hosts table" \
  grep -q "<td>ev&lt;i&gt;l&#39;&quot;\`touch" "$TMP/evil/index.html"
check "FAIL verdict listed, escaped" \
  sh -c "grep -q '<td>FAIL</td>' '$TMP/evil/index.html' && grep -q 'slow alone &lt;b&gt;' '$TMP/evil/index.html'"
check "hostnames never reach gnuplot" sh -c "! grep -q 'ev<i>l\|vm' '$TMP/evil/'*.gp '$TMP/evil/'*.dat"

# Copy matrices (issue 3's "matrix" and "link" fields). No GPU here, so this
# input is hand-made: the real run's bandwidth pair lines relabelled as GPU
# copy matrices with made-up figures, plus host rows (src or dst -1).
{
  cat "$TMP/m.jsonl"
  # as bench/copy writes them: round 0, and the diagonal (a copy within one GPU)
  jq -c 'select(.type == "pair" and .round > 0 and .bw_GBps != null)
    | .matrix = "copy_ce" | .link = "NVLink" | .round = 0 | .bw_GBps = 100 + 10 * .src + .dst' "$TMP/m.jsonl"
  for g in 0 1 2; do
    echo '{"type":"pair","matrix":"copy_ce","src":'$g',"dst":'$g',"src_host":"vm","dst_host":"vm","bytes":1048576,"bw_GBps":'$((100 + 11 * g))',"lat_us":null,"round":0,"link":"local"}'
  done
  jq -c 'select(.type == "pair" and .round > 0 and .bw_GBps != null)
    | .matrix = "copy_sm_bidir" | .link = "PCIe" | .bw_GBps = 40' "$TMP/m.jsonl"
  jq -c 'select(.type == "pair" and .round > 0 and .bw_GBps != null and .src == 0)
    | .matrix = "copy_h2d" | .link = "host" | .src = -1 | .bw_GBps = 25.5' "$TMP/m.jsonl"
  jq -c 'select(.type == "pair" and .round > 0 and .bw_GBps != null and .dst == 0)
    | .matrix = "copy_d2h" | .link = "host<b>" | .dst = -1 | .bw_GBps = 24.5' "$TMP/m.jsonl"
  echo '{"type":"pair","matrix":"copy ce;x","src":0,"dst":1,"src_host":"vm","dst_host":"vm","bytes":8,"bw_GBps":1,"lat_us":null,"round":1}'
  echo '{"type":"pair","src":-1,"dst":1,"src_host":"vm","dst_host":"vm","bytes":8,"bw_GBps":1,"lat_us":null,"round":1}'
} >"$TMP/c.jsonl"
nlines=$(grep -c . "$TMP/c.jsonl")
./collbench --report "$TMP/c.jsonl" --out "$TMP/copy" >"$TMP/out" 2>"$TMP/err"
ok $? "--report on copy matrices exits 0"
check "a matrix name that is not a word is named and skipped" \
  grep -q "^collbench: $TMP/c.jsonl:$((nlines - 1)): .*'matrix'" "$TMP/err"
check "the host (-1) outside a copy matrix is named and skipped" \
  grep -q "^collbench: $TMP/c.jsonl:$nlines: .*src" "$TMP/err"
for chart in matrix1_bw matrix1_lat matrix1_copy_ce_bw matrix1_copy_sm_bidir_bw; do
  check "$chart.png is a PNG" png_ok "$TMP/copy/$chart.png"
  check "index.html shows $chart.png" grep -q "src=\"$chart.png\"" "$TMP/copy/index.html"
done
check "copies carry no latency: no latency heatmap" test ! -e "$TMP/copy/matrix1_copy_ce_lat.png"
check "copy_ce cells hold the figures of their pairs and diagonal (100 + 10 src + dst)" sh -c \
  "awk 'NF && \$3 != \"nan\" { n++; if (\$3 != 100 + 10 * \$2 + \$1) bad = 1 } /^\$/ { b++ } b >= 3 { exit }
        END { exit bad || n != 9 }' '$TMP/copy/matrix1_copy_ce.dat'"
check "GPU axes, not ranks" grep -q "^x_label = 'destination GPU'" "$TMP/copy/matrix1_copy_ce.gp"
check "no heatmap for host copies" sh -c "! ls '$TMP/copy' | grep -q 'h2d\|d2h'"
check "host copies in a table" sh -c \
  "grep -q '<td>host &rarr; GPU 1</td>' '$TMP/copy/index.html' && grep -q '<td>GPU 2 &rarr; host</td>' '$TMP/copy/index.html'"
check "the link named, escaped" grep -q '<td>host&lt;b&gt;</td>' "$TMP/copy/index.html"

# issue 57: a pair slow in its round (0.1 GB/s among 1) that its retests
# (round 0, measured alone: 0.95, 1, 1.05) cleared is drawn by its retests'
# mean and outlined, not painted red by its round figure
pair() { # SRC DST BW ROUND
  printf '{"type":"pair","src":%s,"dst":%s,"src_host":"vm","dst_host":"vm","bytes":1048576,"bw_GBps":%s,"lat_us":null,"round":%s}\n' "$@"
}
{ for s in 0 1 2; do for d in 0 1 2; do
    [ $s = $d ] && continue
    bw=1
    [ $s = 0 ] && [ $d = 1 ] && bw=0.1
    pair $s $d $bw $(((d - s + 3) % 3))
  done; done
  pair 0 1 0.95 0; pair 0 1 1 0; pair 0 1 1.05 0; } >"$TMP/rt.jsonl"
./collbench --report "$TMP/rt.jsonl" --out "$TMP/rt" >"$TMP/out" 2>&1
check "a retested cell holds its retests' mean (1), not its round's 0.1" \
  sh -c "[ \"\$(awk 'NF == 3 && \$1 == 1 && \$2 == 0 { print \$3; exit }' '$TMP/rt/matrix1.dat')\" = 1 ]"
check "... and is outlined: listed in the retests file, counted in the script, said in the title" \
  sh -c "[ \"\$(cat '$TMP/rt/matrix1_retests.dat')\" = '1 0 1 0' ] && grep -qx 'nretested = 1' '$TMP/rt/matrix1.gp' &&
    grep -q 'outlined: measured again alone' '$TMP/rt/matrix1.gp' && [ -s '$TMP/rt/matrix1_bw.png' ]"

finish
