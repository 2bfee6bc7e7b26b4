#!/bin/sh
# Files cite their original sources (issues 30, 31): nothing points at a
# file the repository does not have (the project's REFERENCE.md), and every
# GPU preset names at least one public address for its figures.
. tests/lib.sh
plan 2

bad=$(git grep -l 'REFERENCE\.md' -- . ':!tests/sources.t' 2>/dev/null | tr '\n' ' ')
[ -z "$bad" ]
ok $? "no file of the repository (code, guides, presets) cites REFERENCE.md${bad:+ ($bad)}"

bad=
n=0
for f in topologies/*.conf; do
  grep -q 'backend = nccl' "$f" || continue
  n=$((n + 1))
  grep -q '^# .*https://' "$f" || bad="$bad $f"
done
[ "$n" -gt 0 ] && [ -z "$bad" ]
ok $? "each of the $n GPU presets cites a public address${bad:+ (none in$bad)}"
finish
