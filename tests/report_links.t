#!/bin/bash
# --report --out DIR never writes through a symbolic link planted in DIR
# (dangling or not: the link is replaced, its target untouched), neither
# collbench's own files nor gnuplot's charts; an --out folder every user may
# write without the sticky bit, or another user's, is refused (issue 28).
. tests/lib.sh
plan 7
in=tests/fixtures/model_np2.jsonl
out=$TMP/out.d
mkdir -m 0755 "$out"
echo keep >"$TMP/victim_dat"
echo keep >"$TMP/victim_png"
ln -s "$TMP/victim_html" "$out/index.html" # dangling
ln -s "$TMP/victim_dat" "$out/allreduce.dat"
ln -s "$TMP/victim_png" "$out/allreduce_busbw.png"
./collbench --report "$in" --out "$out" >"$TMP/stdout" 2>"$TMP/err"
ok $? "--report with links planted in --out exits 0"
[ ! -e "$TMP/victim_html" ]
ok $? "a dangling link's target is not created"
grep -qx keep "$TMP/victim_dat" && grep -qx keep "$TMP/victim_png"
ok $? "existing targets keep their content (collbench's .dat, gnuplot's .png)"
[ -f "$out/index.html" ] && [ ! -L "$out/index.html" ] && [ ! -L "$out/allreduce.dat" ] &&
  [ ! -L "$out/allreduce_busbw.png" ] && png_ok "$out/allreduce_busbw.png"
ok $? "the report's own files replace the links"
[ -z "$(find "$out" -name '.*' ! -name . -print -quit)" ]
ok $? "no temporary file or private folder is left behind"

mkdir -m 0777 "$TMP/open.d"
chmod 0777 "$TMP/open.d" # whatever the umask
./collbench --report "$in" --out "$TMP/open.d" >"$TMP/stdout" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "writable by every user without the sticky bit" "$TMP/err" &&
  [ -z "$(ls -A "$TMP/open.d")" ]
ok $? "a world-writable folder without the sticky bit: exit 2, nothing written"

mkdir "$TMP/other.d"
if [ "$(id -u)" -eq 0 ] && chown 65534 "$TMP/other.d"; then
  ./collbench --report "$in" --out "$TMP/other.d" >"$TMP/stdout" 2>"$TMP/err"
  [ $? -eq 2 ] && grep -q "belongs to another user" "$TMP/err" && [ -z "$(ls -A "$TMP/other.d")" ]
  ok $? "another user's folder: exit 2, nothing written"
else
  skip "not root: cannot give a folder to another user"
fi
finish
