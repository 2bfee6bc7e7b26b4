#!/bin/sh
# Prints how many packages and MB a list of install-deps.sh installs on a
# fresh Debian machine, without one: apt-get simulates the install (-s)
# against a dpkg status cut down to a minimal base (Essential and
# Priority: required packages, apt, and what they depend on, as a
# debootstrap --variant=minbase or the debian:bookworm image has), and the
# new packages' Installed-Size fields are summed. Needs python3 and apt's
# package lists (apt-get update). Writes nothing outside a temp directory.
#
#   sh scripts/install-size.sh             the light list (build and run)
#   sh scripts/install-size.sh --test      with the test packages
#   sh scripts/install-size.sh FILE        a list in FILE, one package a line
set -eu
tmp=$(mktemp -d "${TMPDIR:-/tmp}/install-size.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ $# -gt 0 ] && [ -f "$1" ]; then
  cat "$1" >"$tmp/list"
else
  sh "$(dirname "$0")/install-deps.sh" --list "$@" >"$tmp/list"
fi
python3 - "$tmp/status" <<'PY'
import re, sys
pk, prov = {}, {}
for b in open("/var/lib/dpkg/status").read().split("\n\n"):
    f = dict(m.groups() for m in re.finditer(r"^([A-Za-z-]+): ?(.*)$", b, re.M))
    if "install ok installed" in f.get("Status", ""):
        pk[f["Package"]] = (f, b.strip())
for n, (f, _) in pk.items():
    for p in f.get("Provides", "").split(","):
        if p.strip():
            prov.setdefault(p.strip().split(" ")[0], n)
keep = {n for n, (f, _) in pk.items()
        if f.get("Priority") == "required" or f.get("Essential") == "yes" or n == "apt"}
todo = list(keep)
while todo:
    f = pk[todo.pop()][0]
    for alt in (f.get("Depends", "") + "," + f.get("Pre-Depends", "")).split(","):
        names = [a.strip().split(" ")[0].split(":")[0] for a in alt.split("|") if a.strip()]
        if not names or any(c in keep for c in names):
            continue
        for c in names:
            c = c if c in pk else prov.get(c)
            if c:
                keep.add(c)
                todo.append(c)
                break
open(sys.argv[1], "w").write("\n\n".join(pk[n][1] for n in sorted(keep)) + "\n\n")
PY
# shellcheck disable=SC2046
apt-get -s -o Dir::State::status="$tmp/status" install --no-install-recommends \
  $(cat "$tmp/list") 2>"$tmp/err" | sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1=\2/p' >"$tmp/new" ||
  { cat "$tmp/err" >&2; exit 1; }
kb=0
while read -r pv; do
  s=$(apt-cache show "$pv" 2>/dev/null | sed -n 's/^Installed-Size: //p' | head -n 1)
  kb=$((kb + ${s:-0}))
done <"$tmp/new"
echo "$(wc -l <"$tmp/list") listed, $(wc -l <"$tmp/new") packages installed, $((kb / 1024)) MB"
