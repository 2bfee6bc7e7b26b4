#!/bin/sh
# Outputs another user could redirect (issue 38 item 2): root's collbench must
# not write through a symbolic link that someone else planted in a shared
# sticky folder such as /tmp, whether the output is replaced whole (--prom,
# --baseline-out, --fit --json) or streamed (--json, --csv), nor into a
# world-writable folder without the sticky bit. The other user is a link
# owned by uid 65534 (chown -h), so only root can run these: others skip.
. tests/lib.sh
plan 10

cb() { ./collbench "$@" >"$TMP/out" 2>"$TMP/err"; STATUS=$?; }
FAST="-b 1K -e 1K --max-time 0.05"
if [ "$(id -u)" -ne 0 ]; then
  for i in 1 2 3 4 5 6 7 8 9 10; do skip "not root: a link owned by another user needs chown -h"; done
  finish
fi
mkdir -m 1777 "$TMP/shared"
echo secret >"$TMP/victim"
planted() { # NAME: a link in the shared folder to the victim, owned by uid 65534
  ln -s "$TMP/victim" "$TMP/shared/$1" && chown -h 65534:65534 "$TMP/shared/$1"
}
kept() { [ "$(cat "$TMP/victim")" = secret ]; }

planted p.prom
cb $FAST --prom "$TMP/shared/p.prom"
[ $STATUS -eq 2 ] && kept && grep -q "p.prom is a symbolic link owned by another user (uid 65534)" "$TMP/err"
ok $? "--prom through another user's link in a sticky folder: refused, exit $STATUS, target kept"
[ $STATUS -eq 2 ] || diag "$TMP/err"

planted r.jsonl
cb $FAST --json "$TMP/shared/r.jsonl"
[ $STATUS -eq 2 ] && kept
ok $? "--json (a stream) through it: refused, exit $STATUS, target kept"
planted r.csv
cb $FAST --csv "$TMP/shared/r.csv"
[ $STATUS -eq 2 ] && kept
ok $? "--csv through it: refused, exit $STATUS, target kept"

./collbench $FAST --json "$TMP/h.jsonl" >/dev/null 2>&1
planted b.json
cb --baseline-out "$TMP/shared/b.json" "$TMP/h.jsonl"
[ $STATUS -eq 2 ] && kept
ok $? "--baseline-out through it: refused, exit $STATUS"
planted fit.json
cb --fit tests/fixtures/model_np2.jsonl --json "$TMP/shared/fit.json"
[ $STATUS -eq 2 ] && kept
ok $? "--fit --json through it: refused, exit $STATUS"

planted ex.txt
cb --matrix --exclude-out "$TMP/shared/ex.txt"
[ $STATUS -eq 2 ] && kept && grep -q "ex.txt is a symbolic link owned by another user" "$TMP/err"
ok $? "--exclude-out through it: refused before anything runs, exit $STATUS"

# one's own link in the same folder is followed, as before
ln -s "$TMP/mine.prom" "$TMP/shared/own.prom"
cb $FAST --prom "$TMP/shared/own.prom"
[ $STATUS -eq 0 ] && [ -L "$TMP/shared/own.prom" ] && grep -q '^collbench_run_info' "$TMP/mine.prom"
ok $? "one's own link in a sticky folder is followed (exit $STATUS)"

# a link the folder's owner made is trusted too (the kernel's rule)
mkdir -m 1777 "$TMP/theirs" && chown 65534:65534 "$TMP/theirs"
ln -s "$TMP/mine2.prom" "$TMP/theirs/o.prom" && chown -h 65534:65534 "$TMP/theirs/o.prom"
cb $FAST --prom "$TMP/theirs/o.prom"
[ $STATUS -eq 0 ] && [ -s "$TMP/mine2.prom" ]
ok $? "a link owned by the sticky folder's owner is followed (exit $STATUS)"

# a folder anyone may write to without the sticky bit: anyone could swap the file
mkdir -m 0777 "$TMP/open"
chmod 0777 "$TMP/open"
cb $FAST --prom "$TMP/open/x.prom"
[ $STATUS -eq 2 ] && [ ! -e "$TMP/open/x.prom" ] && grep -q "writable by every user and not sticky" "$TMP/err"
ok $? "--prom into a world-writable folder without the sticky bit: refused (exit $STATUS)"
cb $FAST --json "$TMP/open/x.jsonl"
[ $STATUS -eq 2 ] && [ ! -e "$TMP/open/x.jsonl" ]
ok $? "--json there too, and the file it had made is gone (exit $STATUS)"
finish
