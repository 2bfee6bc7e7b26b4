#!/bin/sh
# Measures how often a healthy burn-in FAILs its drift verdict at the
# default limit (issue 56): N short burn-ins of one size on 2 ranks, nothing
# planted, each case judged at collbench's default --drift-limit (10%);
# with -H, a CPU hog (`yes`) per core beside them the whole time, as a
# shared machine is loaded.
#   scripts/drift-falsealarms.sh [-n RUNS] [-d DURATION] [-H HOGS] [-s SIZE] [COLLBENCH]
# Prints one line per run (its verdicts' statuses and the largest change
# judged), then: runs, verdicts, FAIL, INCONCLUSIVE, PASS.
set -u
cd "$(dirname "$0")/.." || exit 2
runs=20 dur=10s hogs=0 size=1K
while getopts n:d:H:s: o; do
  case $o in
  n) runs=$OPTARG ;;
  d) dur=$OPTARG ;;
  H) hogs=$OPTARG ;;
  s) size=$OPTARG ;;
  *) echo "usage: scripts/drift-falsealarms.sh [-n RUNS] [-d DURATION] [-H HOGS] [-s SIZE] [COLLBENCH]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
bin=$(realpath "${1:-./collbench}") || exit 2
case $runs$hogs in *[!0-9]*) echo "drift-falsealarms: -n and -H take counts" >&2; exit 2 ;; esac
out=$(mktemp -d "${TMPDIR:-/tmp}/drift.XXXXXX") || exit 2
pids=
i=0
while [ "$i" -lt "$hogs" ]; do
  yes >/dev/null &
  pids="$pids $!"
  i=$((i + 1))
done
trap 'kill $pids 2>/dev/null; rm -rf "$out"' EXIT
trap 'exit 130' HUP INT TERM
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
fail=0 inc=0 pass=0
r=1
while [ "$r" -le "$runs" ]; do
  j=$out/$r.jsonl
  mpirun -np 2 "$bin" -b "$size" -e "$size" --duration "$dur" --json "$j" </dev/null >"$out/$r.out" 2>&1
  st=$?
  line=$(jq -r -s '[.[] | select(.type == "verdict")] |
      "\(map(.status) | join(",")) worst change \(map(.measured) | max | . * 10 | round / 10)%"' "$j" 2>/dev/null)
  echo "run $r: exit $st, $line"
  f=$(jq -s '[.[] | select(.type == "verdict" and .status == "FAIL")] | length' "$j" 2>/dev/null || echo 0)
  n=$(jq -s '[.[] | select(.type == "verdict" and .status == "INCONCLUSIVE")] | length' "$j" 2>/dev/null || echo 0)
  p=$(jq -s '[.[] | select(.type == "verdict" and .status == "PASS")] | length' "$j" 2>/dev/null || echo 0)
  fail=$((fail + f)) inc=$((inc + n)) pass=$((pass + p))
  r=$((r + 1))
done
echo "runs $runs, verdicts $((fail + inc + pass)): FAIL $fail, INCONCLUSIVE $inc, PASS $pass (hogs $hogs, $dur, $size)"
