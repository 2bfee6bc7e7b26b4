#!/bin/sh
# bench/modes/OPTIONS.md's options block is the --help text, word for word
# (the man page is made from the same text).
. tests/lib.sh
plan 1
awk '/^## Options$/ { on = 1; next } on && /^```$/ { if (inside) exit; inside = 1; next } inside' \
  bench/modes/OPTIONS.md >"$TMP/readme-help"
./collbench --help >"$TMP/help"
diff -u "$TMP/help" "$TMP/readme-help" >"$TMP/diff"
ok $? "bench/modes/OPTIONS.md's options block equals ./collbench --help"
[ -s "$TMP/diff" ] && diag "$TMP/diff"
finish
