#!/bin/sh
# make install into a DESTDIR: the layout (binary, topology presets, chart
# templates, manual page, the NCCL tuner plugin where NCCL was found), the
# page renders with man -l, the installed binary sweeps, reports and accepts
# a preset by name from another directory, and make uninstall removes it all.
. tests/lib.sh
plan 11
for b in help2man man; do
  if ! command -v $b >/dev/null; then
    for _ in 1 2 3 4 5 6 7 8 9 10; do skip "$b not installed (scripts/install-deps.sh installs it)"; done
    exit 0
  fi
done

D=$TMP/dest
P=$(sed -n 's/^PREFIX = //p' config.mk)
make -s install DESTDIR="$D" >"$TMP/out" 2>&1
ok $? "make install DESTDIR=... exits 0"
diag "$TMP/out"
I=$D$P
n=$(ls topologies/*.conf | wc -l)
[ -x "$I/bin/collbench" ] && [ "$(ls "$I"/share/collbench/topologies/*.conf | wc -l)" -eq "$n" ] &&
  [ -s "$I/share/collbench/topologies/README.md" ] && [ -s "$I/share/collbench/reports/busbw.gp" ] &&
  [ -s "$I/share/man/man1/collbench.1" ] && [ -s "$I/share/doc/collbench/README.md" ]
ok $? "installed: bin/collbench, $n topology presets, chart templates, collbench.1, README"
# every guide README links to is installed beside it, at the same path
missing=
for g in $(grep -o '](\([a-z][^)#]*\.md\)' README.md | sed 's/^](//' | sort -u); do
  [ -s "$I/share/doc/collbench/$g" ] || missing="$missing $g"
done
[ -z "$missing" ] && [ -n "$(grep -o '](\([a-z][^)#]*\.md\)' README.md)" ]
ok $? "installed: every guide README links to, at its path under share/doc/collbench${missing:+ (missing:$missing)}"
if grep -q '^HAVE_NCCL = 1' config.mk; then
  # where NCCL looks for it by name (NCCL_TUNER_PLUGIN=collbench), loadable as NCCL loads it
  so=$I/lib/libnccl-tuner-collbench.so
  [ -f "$so" ] && nm -D --defined-only "$so" | grep -q ' ncclTunerPlugin_v5$' &&
    LD_LIBRARY_PATH=$I/lib CB_TUNER_PLUGIN=libnccl-tuner-collbench.so \
      build/tests/test_nccl_tuner.t >"$TMP/plugin" 2>&1 && grep -q "^# loaded $so\$" "$TMP/plugin"
  st=$?
  ok $st "installed: lib/libnccl-tuner-collbench.so, found by name as NCCL finds it, passes the dlopen test"
  [ $st -eq 0 ] || diag "$TMP/plugin"
else
  skip "configure found no NCCL: no tuner plugin built or installed"
fi

MANWIDTH=80 man -l "$I/share/man/man1/collbench.1" >"$TMP/man" 2>"$TMP/manerr"
grep -q '^EXIT STATUS' "$TMP/man" && grep -q '^FILES' "$TMP/man" && grep -q -- '--sweep' "$TMP/man" &&
  grep -q 'share/collbench/topologies' "$TMP/man" && ! grep -q . "$TMP/manerr"
ok $? "man -l renders the page: options from --help, EXIT STATUS, FILES, no warnings"
# issue 57: no SYNOPSIS nor EXAMPLES, and a footer cut at 80 columns
# ("git 4ed3e70a7597November 2026": the version string was too long for it)
grep -q '^SYNOPSIS' "$TMP/man" && grep -q '^ *mpirun -np N collbench \[options\]' "$TMP/man" &&
  grep -q '^EXAMPLES' "$TMP/man" && grep -q '^ *collbench --compare old.jsonl new.jsonl' "$TMP/man" &&
  tail -n 1 "$TMP/man" | grep -Eq '^collbench [0-9.]+ +[A-Z][a-z]+ [0-9]{4} +COLLBENCH\(1\)$'
ok $? "the page has a SYNOPSIS, EXAMPLES, and a whole footer (version, date, name)"

# From another directory, the installed binary: a sweep, its report, and an
# acceptance of a preset named without a path.
mkdir "$TMP/elsewhere"
cd "$TMP/elsewhere" || exit 1
mpirun -np 2 "$I/bin/collbench" --sweep -e 1K --max-time 0.02 --json s.jsonl >"$TMP/out" 2>&1 &&
  jq_all s.jsonl '.nranks == 2 and .wrong == 0'
ok $? "the installed binary sweeps from elsewhere (--sweep -e 1K)"
"$I/bin/collbench" --report s.jsonl --out rep >"$TMP/out" 2>&1 && [ -s rep/index.html ] &&
  png_ok rep/allreduce_busbw.png
ok $? "the installed binary's --report writes index.html and the charts"
# the preset found and run; its verdicts (exit 0 or 1) are the machine's
# load's to give, accept.t judges them
mpirun -np 2 "$I/bin/collbench" --accept localhost --max-time 0.05 >"$TMP/out" 2>&1
st=$?
[ $st -le 1 ] && grep -q '^# acceptance: localhost (' "$TMP/out" &&
  grep -Eq '^  (PASS|WARN|FAIL|INCONCLUSIVE) +matrix' "$TMP/out"
ok $? "--accept localhost finds the preset by name (exit $st)"
"$I/bin/collbench" --accept no-such-preset >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "'no-such-preset'.*preset.*share/collbench/topologies" "$TMP/err"
ok $? "an unknown preset name exits 2 naming where it looked"
cd - >/dev/null || exit 1

make -s uninstall DESTDIR="$D" >"$TMP/out" 2>&1 && [ -z "$(find "$D" -type f)" ]
ok $? "make uninstall removes every installed file"
finish
