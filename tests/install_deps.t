#!/bin/sh
# The light install (issue 31): scripts/install-deps.sh, the quick start's
# first step, installs what building and running need and no daemon, no
# browser, no test cluster; scripts/install-test-deps.sh adds what the
# tests need, and CI runs both. Nothing is installed here: --list prints.
. tests/lib.sh
plan 7

lab="slurmd slurmctld slurm-client munge prometheus chromium chromium-driver clang mpich"
sh scripts/install-deps.sh --list >"$TMP/light" 2>"$TMP/err"
ok $? "install-deps.sh --list exits 0"
bad=
for p in $lab; do grep -qx "$p" "$TMP/light" && bad="$bad $p"; done
grep -qx build-essential "$TMP/light" && grep -qx openmpi-bin "$TMP/light" &&
  grep -qx libjansson-dev "$TMP/light" && [ -z "$bad" ]
ok $? "the light list builds and runs (compiler, Open MPI, jansson) and holds no daemon or test tool${bad:+ (has$bad)}"

# What the light list pulls in (every alternative, so more than apt installs)
# must bring no daemon either: no test-lab package, and every systemd service
# of an installed package in it a one-shot (dpkg's backup, pam_namespace).
if ! command -v apt-cache >/dev/null || ! apt-cache show build-essential >/dev/null 2>&1; then
  skip "no apt-cache with package lists here: the dependency closure is not checked"
else
  # shellcheck disable=SC2046
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances $(cat "$TMP/light") 2>/dev/null | grep -v '^[ <]' | sort -u >"$TMP/closure"
  bad=
  for p in $lab; do grep -qx "$p" "$TMP/closure" && bad="$bad $p"; done
  for p in $(cat "$TMP/closure"); do
    for u in $(dpkg -L "$p" 2>/dev/null | grep -E '^(/usr)?/lib/systemd/system/[^/]*\.service$'); do
      [ -f "$u" ] && ! grep -q '^Type=oneshot' "$u" && bad="$bad $p($u)"
    done
  done
  [ -s "$TMP/closure" ] && [ -z "$bad" ]
  ok $? "its $(wc -l <"$TMP/closure") dependencies bring no daemon${bad:+:$bad}"
fi

sh scripts/install-test-deps.sh --list >"$TMP/full" 2>&1
missing=
for p in $lab $(cat "$TMP/light"); do grep -qx "$p" "$TMP/full" || missing="$missing $p"; done
[ -z "$missing" ]
ok $? "install-test-deps.sh lists the light packages and the test lab${missing:+ (lacks$missing)}"

grep -q '^sh scripts/install-deps.sh$' .ci/run && grep -q '^sh scripts/install-test-deps.sh$' .ci/run
ok $? ".ci/run installs both"

sed -n '/^## Quick start/,/^make check/p' README.md >"$TMP/quick"
grep -q '^sh scripts/install-deps.sh && ./configure' "$TMP/quick" &&
  ! grep -q 'install-deps.sh --test\|install-test-deps.sh &&' "$TMP/quick" &&
  grep -q 'sh scripts/install-test-deps.sh' "$TMP/quick"
ok $? "the README's quick start uses the light script; the tests' script comes before make check"

sh scripts/install-deps.sh --bogus >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "'--bogus'" "$TMP/err"
ok $? "an unknown option exits 2 naming it, installing nothing"
finish
