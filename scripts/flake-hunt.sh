#!/bin/sh
# Runs test files N times with a CPU hog per core beside them (as a shared CI
# machine is loaded) and prints a table of every failure: file, test number,
# how many runs of N it failed, and its description. A test that fails in
# some runs and not others depends on a quiet machine: fix it, do not rerun.
#
#   scripts/flake-hunt.sh [-n RUNS] [-H HOGS] [-k DIR] [TEST...]
#     RUNS  default 5; HOGS default one per core (nproc), 0 for none
#     DIR   keep each failing file's whole output there (RUN-FILE.log), to
#           find the cause without running it again
#     TEST  test files (tests/*.t, build/tests/*.t); default: make check's list
#
# Needs a built tree (make, and the unit tests: make build/tests/test_X.t).
# Output: one line per run ("run 2 of 5: 3 failed in 2 files, 512 s"), then
# the table; exit 1 when anything failed, 0 when every run was green.
set -u
cd "$(dirname "$0")/.." || exit 2
runs=5 hogs=$(nproc) keep=
while getopts n:H:k: o; do
  case $o in
  n) runs=$OPTARG ;;
  H) hogs=$OPTARG ;;
  k) keep=$OPTARG ;;
  *)
    echo "usage: scripts/flake-hunt.sh [-n RUNS] [-H HOGS] [-k DIR] [TEST...]" >&2
    exit 2
    ;;
  esac
done
shift $((OPTIND - 1))
case $runs$hogs in *[!0-9]*)
  echo "flake-hunt: -n and -H take counts (got '$runs', '$hogs')" >&2
  exit 2
  ;;
esac
if [ $# -eq 0 ]; then
  set -- build/tests/*.t tests/*.t
fi
for t in "$@"; do
  [ -e "$t" ] || {
    echo "flake-hunt: no test file '$t' (build the unit tests first)" >&2
    exit 2
  }
done
tmp=$(mktemp -d)
pids=
stop_hogs() {
  [ -n "$pids" ] && kill $pids 2>/dev/null
  pids=
}
trap 'stop_hogs; rm -rf "$tmp"' EXIT
trap 'exit 3' INT TERM
i=0
while [ "$i" -lt "$hogs" ]; do
  yes >/dev/null &
  pids="$pids $!"
  i=$((i + 1))
done
: >"$tmp/fails"
r=1
while [ "$r" -le "$runs" ]; do
  t0=$(date +%s)
  for t in "$@"; do
    # each file on its own so a file that dies still names its tests
    prove -v --exec '' "$t" >"$tmp/out" 2>&1
    sed -n "s|^not ok \([0-9]*\) - \(.*\)|$r\t$t\t\1\t\2|p" "$tmp/out" >>"$tmp/fails"
    if ! grep -q '^Result: PASS' "$tmp/out" && ! grep -q '^not ok' "$tmp/out"; then
      printf '%s\t%s\t-\t%s\n' "$r" "$t" "the file failed without a failing test (died, or a wrong plan)" >>"$tmp/fails"
    fi
    if [ -n "$keep" ] && ! grep -q '^Result: PASS' "$tmp/out"; then
      mkdir -p "$keep" && cp "$tmp/out" "$keep/$r-$(basename "$t").log"
    fi
  done
  n=$(awk -F'\t' -v r="$r" '$1 == r' "$tmp/fails" | wc -l)
  f=$(awk -F'\t' -v r="$r" '$1 == r {print $2}' "$tmp/fails" | sort -u | wc -l)
  echo "run $r of $runs: $n failed in $f files, $(($(date +%s) - t0)) s (hogs: $hogs)"
  r=$((r + 1))
done
stop_hogs
if [ ! -s "$tmp/fails" ]; then
  echo "no failures in $runs runs of $# files"
  exit 0
fi
echo "# file test | runs failed of $runs | description"
awk -F'\t' '{k = $2 " " $3; n[k]++; d[k] = $4} END {for (k in n) printf "%s | %d | %s\n", k, n[k], d[k]}' \
  "$tmp/fails" | sort
exit 1
