#!/bin/sh
# Measures fleet-baseline judging on the simulated 4-node cluster
# (scripts/simcluster.sh; root needed): a baseline from B healthy runs of the
# matrix (topologies/localhost.conf's [matrix] rules, through --accept), then
# H healthy runs judged against it (any "fleet ..." FAIL is a false alarm) and
# T runs with node 3's incoming link throttled to 200 Mbit/s by tc (hit: "fleet
# node N3" FAILs; a healthy node named is a false alarm). Each run builds its
# own cluster and holds /tmp/cb.lock for that run only.
#   scripts/baseline-simcluster.sh [-b 10] [-h 20] [-t 10] [-o DIR] [COLLBENCH]
set -u
cd "$(dirname "$0")/.." || exit 2
nbase=10 nhealthy=20 nthrottled=10 out=
while getopts b:h:t:o: o; do
    case $o in
    b) nbase=$OPTARG ;; h) nhealthy=$OPTARG ;; t) nthrottled=$OPTARG ;; o) out=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
bin=$(realpath "${1:-./collbench}") || exit 2
[ -x "$bin" ] || { echo "no collbench at '$bin'" >&2; exit 2; }
for n in "$nbase" "$nhealthy" "$nthrottled"; do
    case $n in '' | *[!0-9]*) echo "bad count '$n'" >&2; exit 2 ;; esac
done
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/baseline-sim.XXXXXX")
mkdir -p "$out" || exit 2
[ "$(id -u)" -eq 0 ] || { echo "needs root (network namespaces)" >&2; exit 2; }

conf=$out/matrix.conf
{
    echo "[system]"; echo "name = matrix only"; echo "gpus_per_node = 0"; echo "ranks_per_node = 1"
    sed -n '/^\[matrix\]/,/^\[/p' topologies/localhost.conf | grep -v '^\[[a-z]* [^]]*\]'
} >"$conf"

# one PHASE I [ARGS...]: one cluster, one run; prints "PHASE I status=S fleet-fails: ..."
one() {
    flock /tmp/cb.lock sh -c '
        phase=$1 i=$2 bin=$3 conf=$4 out=$5; shift 5
        . scripts/simcluster.sh
        trap simcluster_down EXIT; trap "exit 130" HUP INT TERM
        simcluster_up 4 >/dev/null 2>&1 || { echo "$phase $i cluster-failed"; exit 0; }
        set -- $SIMCLUSTER_NODES "$@"
        node3=$3
        [ "$phase" = throttled ] && simcluster_throttle "$node3" 200mbit
        shift 4
        json=$out/$phase$i.jsonl
        timeout -k 5 300 mpirun $SIMCLUSTER_MPIRUN_ARGS -np 4 "$bin" --accept "$conf" "$@" \
            --max-time 0.3 --json "$json" </dev/null >"$out/$phase$i.out" 2>&1
        st=$?
        fails=$(jq -r "select(.type == \"verdict\" and .status == \"FAIL\" and
                       (.check | startswith(\"fleet \"))) | .check" "$json" 2>/dev/null |
                sed "s/$SIMCLUSTER_ID//g; s/^fleet //" | tr " " _ | tr "\n" " ")
        echo "$phase $i status=$st want=node_n3 fleet-fails: $fails"
    ' one "$@" 
}

for i in $(seq 1 "$nbase"); do one base "$i" "$bin" "$conf" "$out"; done | tee "$out/runs.txt"
"$bin" --baseline-out "$out/baseline.json" "$out"/base*.jsonl || exit 1
for i in $(seq 1 "$nhealthy"); do
    one healthy "$i" "$bin" "$conf" "$out" --baseline "$out/baseline.json"
done | tee -a "$out/runs.txt"
for i in $(seq 1 "$nthrottled"); do
    one throttled "$i" "$bin" "$conf" "$out" --baseline "$out/baseline.json"
done | tee -a "$out/runs.txt"

awk '$1 == "healthy" || $1 == "throttled" {
    p = $1; runs[p]++
    if ($3 == "cluster-failed") { bad[p]++; next }
    hit = 0; fp = 0
    for (f = 6; f <= NF; f++) if ($f == "node_n3") hit = 1; else fp = 1
    hits[p] += hit; fps[p] += fp
} END {
    printf "healthy: %d runs, %d with a fleet FAIL (false alarm)\n", runs["healthy"] - bad["healthy"], fps["healthy"] + hits["healthy"]
    printf "throttled: %d runs, %d named node 3, %d missed it, %d named something healthy\n",
           runs["throttled"] - bad["throttled"], hits["throttled"], runs["throttled"] - bad["throttled"] - hits["throttled"], fps["throttled"]
}' "$out/runs.txt" | tee "$out/summary.txt"
