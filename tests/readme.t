#!/bin/sh
# The README's options block is the --help text, word for word.
. tests/lib.sh
plan 1
awk '/^## Options$/ { on = 1; next } on && /^```$/ { if (inside) exit; inside = 1; next } inside' \
  README.md >"$TMP/readme-help"
./collbench --help >"$TMP/help"
diff -u "$TMP/help" "$TMP/readme-help" >"$TMP/diff"
ok $? "README.md's options block equals ./collbench --help"
[ -s "$TMP/diff" ] && diag "$TMP/diff"
finish
