#!/bin/sh
# Measures how often the all-pairs matrix names a healthy node or link (false
# positive) and how often it misses the throttled one, on the simulated 4-node
# cluster of tests/cluster4.t (scripts/simcluster.sh; root needed):
#   node: node 3's incoming link throttled to 200 Mbit/s (tc tbf), the matrix
#         with topologies/localhost.conf's [matrix] rules, as --accept runs it;
#   link: only node 1 -> node 4 throttled (tc htb + u32), plain --matrix.
# Each run builds its own cluster and holds /tmp/cb.lock for that run only, so
# other users of the lock interleave.
#   scripts/matrix-falsealarms.sh [-n REPEATS] [-c node|link|both] [-o DIR] [COLLBENCH]
# Prints one line per run and a summary per case: runs, hits (the throttled
# node or link named), misses, false positives (runs naming anything else).
set -u
cd "$(dirname "$0")/.." || exit 2
repeats=20 cases="node link" out=
while getopts n:c:o: o; do
    case $o in
    n) repeats=$OPTARG ;;
    c) case $OPTARG in node | link) cases=$OPTARG ;; both) ;; *) echo "bad -c '$OPTARG'" >&2; exit 2 ;; esac ;;
    o) out=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
bin=$(realpath "${1:-./collbench}") || exit 2
[ -x "$bin" ] || { echo "no collbench at '$bin'" >&2; exit 2; }
case $repeats in '' | *[!0-9]*) echo "bad -n '$repeats'" >&2; exit 2 ;; esac
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/falsealarms.XXXXXX")
mkdir -p "$out" || exit 2
[ "$(id -u)" -eq 0 ] || { echo "needs root (network namespaces)" >&2; exit 2; }

# The [matrix] section of topologies/localhost.conf alone: the matrix runs
# first in --accept, so the checks after it do not change what it sees.
conf=$out/matrix.conf
{
    echo "[system]"; echo "name = matrix only"; echo "gpus_per_node = 0"; echo "ranks_per_node = 1"
    sed -n '/^\[matrix\]/,/^\[/p' topologies/localhost.conf
} >"$conf"

# one CASE I: one cluster, one throttle, one run; prints "node|link I STATUS named..."
one() {
    flock /tmp/cb.lock sh -c '
        case=$1 i=$2 bin=$3 conf=$4 out=$5
        . scripts/simcluster.sh
        trap simcluster_down EXIT; trap "exit 130" HUP INT TERM
        simcluster_up 4 >/dev/null 2>&1 || { echo "$case $i cluster-failed"; exit 0; }
        set -- $SIMCLUSTER_NODES
        if [ "$case" = node ]; then
            simcluster_throttle "$3" 200mbit; want="node $3"
            args="--accept $conf"
        else
            simcluster_throttle_link "$1" "$4" 200mbit 2>/dev/null; want="link $1->$4"
            args=--matrix
        fi
        json=$out/$case$i.jsonl
        # shellcheck disable=SC2086
        timeout -k 5 300 mpirun $SIMCLUSTER_MPIRUN_ARGS -np 4 "$bin" $args --max-time 0.3 \
            --json "$json" </dev/null >"$out/$case$i.out" 2>&1
        st=$?
        named=$(jq -r "select(.type == \"verdict\" and (.check | test(\"^(node|link) \"))) | .check" \
                "$json" 2>/dev/null | sed "s/$SIMCLUSTER_ID//g" | tr " " _ | tr "\n" " ")
        want=$(echo "$want" | sed "s/$SIMCLUSTER_ID//g" | tr " " _)
        echo "$case $i status=$st want=$want named: $named"
    ' one "$1" "$2" "$bin" "$conf" "$out"
}

for i in $(seq 1 "$repeats"); do
    for c in $cases; do one "$c" "$i"; done
done | tee "$out/runs.txt"

for c in $cases; do
    awk -v c="$c" '$1 == c {
        runs++
        if ($3 == "cluster-failed") { bad++; next }
        want = substr($4, 6); hit = 0; fp = 0
        for (f = 6; f <= NF; f++) if ($f == want) hit = 1; else fp = 1
        hits += hit; fps += fp
    } END {
        printf "%s: %d runs, %d named the throttled %s, %d missed it, %d named a healthy node or link%s\n",
               c, runs - bad, hits, c, runs - bad - hits, fps, bad ? sprintf(" (%d clusters failed to start)", bad) : ""
    }' "$out/runs.txt"
done
echo "runs and outputs in $out"
