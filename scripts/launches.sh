#!/bin/sh
# One launch's interval says how precise that launch was, not how much the
# next launch will differ (bench/engine/FIGURES.md, "The interval is of one
# launch"). This runs the same launch N times and makes one baseline of
# them, a population whose spread includes the launch-to-launch part, so
# that --compare judges a change against it:
#
#   scripts/launches.sh N NAME -- mpirun -np 2 ./collbench --op allreduce -e 1M
#   (after a change)  scripts/launches.sh N NAME2 -- ...the same...
#   ./collbench --compare NAME.json NAME2.json
#
# Writes NAME-1.jsonl .. NAME-N.jsonl (each launch's --json, given here) and
# NAME.json (./collbench --baseline of them). Exit 2 on bad arguments, 3 when
# a launch fails (its output is shown), else --baseline's status.
set -u
usage() {
  echo "usage: scripts/launches.sh N NAME -- LAUNCH-COMMAND... (e.g. mpirun -np 2 ./collbench ...)" >&2
  exit 2
}
[ $# -ge 4 ] && [ "$3" = -- ] || usage
n=$1 name=$2
shift 3
case $n in '' | *[!0-9]*) echo "launches.sh: N must be a count of launches (got '$n')" >&2; exit 2 ;; esac
[ "$n" -ge 2 ] || { echo "launches.sh: N must be 2 or more (a population), got $n" >&2; exit 2; }
case " $* " in *" --json "* | *" -J "*) echo "launches.sh: give no --json: each launch's is NAME-K.jsonl" >&2; exit 2 ;; esac
cb=${COLLBENCH:-./collbench}
files=
i=1
while [ "$i" -le "$n" ]; do
  out=$("$@" --json "$name-$i.jsonl" 2>&1) || {
    echo "launches.sh: launch $i of $n failed:" >&2
    echo "$out" | tail -n 20 >&2
    exit 3
  }
  files="$files $name-$i.jsonl"
  i=$((i + 1))
done
# shellcheck disable=SC2086
"$cb" --baseline-out "$name.json" $files
