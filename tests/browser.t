#!/bin/sh
# A real --report opened in headless Chromium (Debian's chromium), without a
# network: the page loads from file:// with no console message and no failed
# load, nothing it references is remote or missing, no image is broken and no
# text overflows its table (measured in the browser by a script added to a
# copy of the page: the report itself has none), and a screenshot is saved
# ($TMP/report.png, and KEEP_SCREENSHOT=DIR keeps a copy in DIR). The
# in-browser checks are run on two damaged copies too, a broken <img> and an
# unbreakable over-wide cell, which must fail: the checks can fail.
. tests/lib.sh
plan 12

CHROME=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROME" ]; then
  for _ in $(seq 12); do skip "chromium not installed (scripts/install-test-deps.sh installs it)"; done
  exit 0
fi

# What a user would open: a sweep of two ops, an all-pairs matrix and a
# short burn-in (its exit may be 1: noise can leave a verdict INCONCLUSIVE).
mpi 2 --op allreduce,p2p_lat -e 64K --max-time 0.02 --json "$TMP/r.jsonl" &&
  mpi 2 --matrix=64K --json "$TMP/m.jsonl" &&
  { mpi 2 -b 1K -e 1K -n 20 -w 2 --duration 5 --drift-limit 1000% --json "$TMP/b.jsonl" || [ $STATUS -eq 1 ]; } &&
  ./collbench --report "$TMP/r.jsonl" "$TMP/m.jsonl" "$TMP/b.jsonl" --out "$TMP/rep" >"$TMP/out" 2>&1
ok $? "a real --report of a sweep, a matrix and a burn-in to render"

# refs_missing DIR: the local files index.html references that do not exist
# (img src, a href, link href), one a line; remote ones are printed as such.
refs_missing() {
  grep -o -E '(src|href)="[^"#]*"' "$1/index.html" | sed 's/^[a-z]*="//; s/"$//' | sort -u |
    while read -r u; do
      case $u in
      http:* | https:* | //*) echo "remote: $u" ;;
      "") ;;
      *) [ -s "$1/$u" ] || echo "missing: $u" ;;
      esac
    done
}
[ -z "$(refs_missing "$TMP/rep")" ] && [ "$(grep -c '<img ' "$TMP/rep/index.html")" -gt 0 ]
ok $? "every image and link in index.html is a local file that exists, none remote"
cp -r "$TMP/rep" "$TMP/rep2" && rm "$TMP/rep2/allreduce_busbw.png"
refs_missing "$TMP/rep2" | grep -q 'missing: allreduce_busbw.png'
ok $? "the check names an image that is gone"

# chrome ARGS... URL: headless, no network (every request that is not a
# file goes to a closed proxy port), stderr kept in $TMP/cerr.
chrome() {
  timeout 120 "$CHROME" --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
    --proxy-server=127.0.0.1:9 --window-size=1280,2400 --virtual-time-budget=5000 "$@" \
    2>"$TMP/cerr"
}

# layout PAGE: the page as the browser lays it out, judged by a script that
# runs after every image has loaded or failed: broken images (not complete,
# or no natural width), cells whose text is wider than the cell, and tables
# wider than the window, and tables with a header only. Prints "layout: N images, M cells" then one line
# per problem; the script goes into a copy in the same directory (the
# images' relative paths still hold).
CHECK='<script>addEventListener("load",function(){var out=[],q=function(s){return Array.prototype.slice.call(document.querySelectorAll(s))};
var imgs=q("img"),cells=q("td,th"),w=document.documentElement.clientWidth;
out.push("layout: "+imgs.length+" images, "+cells.length+" cells");
imgs.forEach(function(i){if(!i.complete||i.naturalWidth===0)out.push("broken image: "+i.getAttribute("src"))});
cells.forEach(function(c){if(c.scrollWidth>c.clientWidth+1)out.push("text wider than its cell: "+c.textContent.slice(0,60))});
q("table").forEach(function(t){if(t.rows.length<2)out.push("empty table: "+t.textContent.slice(0,60))});
q("table").forEach(function(t){var r=t.getBoundingClientRect().right;if(r>w+1)out.push("table wider than the window ("+Math.round(r)+" > "+w+" px): "+t.rows[0].textContent.slice(0,60))});
var p=document.createElement("pre");p.id="cb-layout";p.textContent=out.join("\n");document.body.appendChild(p)})</script>'
layout() {
  sed "s#</body>#$(printf '%s' "$CHECK" | tr '\n' ' ' | sed 's/[&#\\]/\\&/g')</body>#" "$1" \
    >"${1%.html}-check.html"
  chrome --dump-dom "file://${1%.html}-check.html" |
    sed -n '/<pre id="cb-layout">/,/<\/pre>/p' | sed 's/<[^>]*>//g; s/&gt;/>/g; s/&lt;/</g; s/&amp;/\&/g'
}
layout "$TMP/rep/index.html" >"$TMP/layout"
n=$(sed -n 's/^layout: \([0-9]*\) images.*/\1/p' "$TMP/layout")
[ "${n:-0}" -gt 0 ] && ! grep -q '^broken image' "$TMP/layout" &&
  grep -q '<img src="burnin3_1.png"' "$TMP/rep/index.html"
ok $? "in the browser: all ${n:-0} images load and have a size, the burn-in's time series among them"
grep -q '^layout: .* cells' "$TMP/layout" && ! grep -q '^text wider\|^table wider' "$TMP/layout"
ok $? "in the browser: no text overflows its cell, no table is wider than the window"
! grep -q '^empty table' "$TMP/layout"
ok $? "no table without rows (a header alone says nothing)"
diag "$TMP/layout"

# What a reader asks first comes first: the verdicts, the matrix, the key
# figures and charts; how it was run (the Runs table) last.
grep -o '<h2>[^<]*' "$TMP/rep/index.html" | sed 's/<h2>//; s/:.*//' | tr '\n' '|' >"$TMP/order"
case $(cat "$TMP/order") in
Verdicts\|Burn-in\|All-pairs\ matrix\|Key\ figures\|allreduce\|*\|Runs\|) st=0 ;;
*) st=1 ;;
esac
ok $st "sections in reading order: $(cat "$TMP/order")"

# Negative controls: the same checks on damaged copies must complain.
sed 's#</h1>#</h1><p><img src="no-such-chart.png" alt="broken on purpose"></p>#' \
  "$TMP/rep/index.html" >"$TMP/rep/broken.html"
layout "$TMP/rep/broken.html" | grep -q '^broken image: no-such-chart.png$'
ok $? "negative control: a broken <img> in a copy of the page is found"
long=$(printf 'x%.0s' $(seq 400))
sed "s#</h1>#</h1><table><tr><th>wide</th></tr><tr><td style=\"white-space:nowrap\">$long</td></tr></table>#" \
  "$TMP/rep/index.html" >"$TMP/rep/wide.html"
layout "$TMP/rep/wide.html" | grep -q '^table wider than the window'
ok $? "negative control: an unbreakable 400-character cell in a copy is found"

chrome --screenshot="$TMP/report.png" "file://$TMP/rep/index.html" >"$TMP/cout"
st=$?
[ $st -eq 0 ] && png_ok "$TMP/report.png" && [ "$(wc -c <"$TMP/report.png")" -gt 20000 ]
ok $? "headless Chromium renders index.html to a screenshot (exit $st, $(wc -c <"$TMP/report.png" 2>/dev/null) bytes)"
if [ -n "${KEEP_SCREENSHOT:-}" ]; then
  mkdir -p "$KEEP_SCREENSHOT" && cp "$TMP/report.png" "$KEEP_SCREENSHOT/report.png" &&
    echo "# screenshot kept: $KEEP_SCREENSHOT/report.png"
fi
! grep -E 'CONSOLE|ERR_FILE_NOT_FOUND|ERR_PROXY|Failed to load' "$TMP/cerr" >"$TMP/bad"
ok $? "no console message and no failed load while rendering"
diag "$TMP/bad"
! grep -E -i '<script|<link[^>]*stylesheet|@import|url\(' "$TMP/rep/index.html" >"$TMP/remote"
ok $? "the page itself has no script, no external style sheet, no font or url() to fetch"
diag "$TMP/remote"
finish
