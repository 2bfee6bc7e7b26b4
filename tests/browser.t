#!/bin/sh
# A real --report opened in headless Chromium (Debian's chromium): the page
# loads from file:// with no console error and no failed load, every image
# and link it references is there, nothing comes from the network, and a
# screenshot is kept in the temp dir ($TMP/report.png) while the test runs.
. tests/lib.sh
plan 5

CHROME=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROME" ]; then
  for _ in 1 2 3 4 5; do skip "chromium not installed (scripts/install-deps.sh installs it)"; done
  exit 0
fi

mpi 2 --op allreduce,p2p_lat -e 4K --max-time 0.02 --json "$TMP/r.jsonl"
./collbench --report "$TMP/r.jsonl" --out "$TMP/rep" >"$TMP/out" 2>&1
ok $? "a real --report to render"

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

# No network: the browser may not fetch anything that is not a file.
timeout 120 "$CHROME" --headless=new --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
  --proxy-server=127.0.0.1:9 --window-size=1280,3000 --virtual-time-budget=5000 \
  --screenshot="$TMP/report.png" "file://$TMP/rep/index.html" >"$TMP/cout" 2>"$TMP/cerr"
st=$?
[ $st -eq 0 ] && png_ok "$TMP/report.png" && [ "$(wc -c <"$TMP/report.png")" -gt 20000 ]
ok $? "headless Chromium renders index.html to a screenshot (exit $st, $(wc -c <"$TMP/report.png" 2>/dev/null) bytes)"
! grep -E 'CONSOLE|ERR_FILE_NOT_FOUND|ERR_PROXY|Failed to load' "$TMP/cerr" >"$TMP/bad"
ok $? "no console message and no failed load while rendering"
diag "$TMP/bad"
finish
