#!/bin/sh
# bench/modes/OPTIONS.md's options block is the --help text, word for word
# (the man page is made from the same text); and every option of it
# answers `collbench --OPTION --help` with its own entry, exit 0 (issue 76:
# --concurrent, --parallel, --duration and --calls took "--help" as their
# value and exited 2).
. tests/lib.sh
plan 2
awk '/^## Options$/ { on = 1; next } on && /^```$/ { if (inside) exit; inside = 1; next } inside' \
  bench/modes/OPTIONS.md >"$TMP/readme-help"
./collbench --help >"$TMP/help"
diff -u "$TMP/help" "$TMP/readme-help" >"$TMP/diff"
ok $? "bench/modes/OPTIONS.md's options block equals ./collbench --help"
[ -s "$TMP/diff" ] && diag "$TMP/diff"
grep -o '^ *\(-[a-zA-Z], \)\{0,1\}--[a-z0-9-]*' "$TMP/help" | sed 's/.*--/--/' | sort -u >"$TMP/opts"
bad=
for o in $(cat "$TMP/opts"); do
  ./collbench "$o" --help >"$TMP/one" 2>&1 </dev/null
  st=$?
  [ $st -eq 0 ] && grep -q -- "^ *\(-[a-zA-Z], \)\{0,1\}$o\( \|=\|\[\|$\)" "$TMP/one" || bad="$bad $o($st)"
done
n=$(wc -l <"$TMP/opts")
[ -z "$bad" ] && [ "$n" -ge 80 ]
ok $? "every one of the $n options answers --OPTION --help with its entry, exit 0${bad:+ (not:$bad)}"
finish
