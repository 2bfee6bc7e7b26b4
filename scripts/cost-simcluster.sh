#!/bin/sh
# Checks a defect's price against the step it slows (issue 74), on the simulated 4-node
# cluster (scripts/simcluster.sh; root needed), one rank a node, every node's egress
# shaped to RATE (the fabric). Per repeat, one cluster:
#   1. healthy: --accept of an all-reduce check at the tiny step's gradient size and a
#      [step] (tiny) measures the fabric's busbw and the step;
#   2. the file's inter-node tier is set to that busbw (the model then describes the
#      healthy fabric, as a file written from a healthy run's figures would), node 3's
#      egress is throttled to SLOW, and --accept runs again: the check FAILs and its
#      cost is the step priced at the run's own scale (scale = 4) with the measured
#      figure and the [step]'s T_compute measured in that run (no compute_time: the
#      step's own compute, as a file without one is priced); its [step] is the same
#      step measured on the same nodes.
# Prints per repeat the priced step growth, the measured one (T_step throttled /
# healthy - 1) and the priced one's error against it; a measuring tool, not a test:
# its figures go into tests/measured-2026.md.
#   sudo scripts/cost-simcluster.sh [-r REPEATS] [-R RATE] [-s SLOW] [-o DIR] [COLLBENCH]
set -u
cd "$(dirname "$0")/.." || exit 2
repeats=3 rate=400mbit slow=200mbit out=
while getopts r:R:s:o: o; do
    case $o in
    r) repeats=$OPTARG ;; R) rate=$OPTARG ;; s) slow=$OPTARG ;; o) out=$OPTARG ;;
    *) echo "usage: scripts/cost-simcluster.sh [-r REPEATS] [-R RATE] [-s SLOW] [-o DIR] [COLLBENCH]" >&2
       exit 2 ;;
    esac
done
shift $((OPTIND - 1))
case $repeats in '' | *[!0-9]*) echo "cost-simcluster: -r takes a count" >&2; exit 2 ;; esac
bin=$(realpath "${1:-./collbench}") || exit 2
[ -x "$bin" ] || { echo "cost-simcluster: no collbench at '$bin'" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "cost-simcluster: needs root (network namespaces)" >&2; exit 2; }
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/cost-sim.XXXXXX")
mkdir -p "$out" || exit 2

conf() { # BANDWIDTH FILE: the file, its inter-node tier at BANDWIDTH
    cat >"$2" <<CONF
[system]
name = four simulated nodes, egress shaped to $rate
nodes = 4
scale = 4
gpus_per_node = 0
ranks_per_node = 1

[tier shm]
scope = intra-node
kind = shm
bandwidth = 5 GB/s
latency = 1 us

[tier tcp]
scope = inter-node
kind = tcp
bandwidth = $1
latency = 100 us

[check grads]
op = allreduce
backend = mpi
size = 3M             ; the tiny step's gradients, 3.0 MiB: one bucket
metric = busbw
fail = 90% model

[step]
workload = tiny
reps = 10
limit = 99%
CONF
}
tstep() { # JSON: the [step]'s T_step, ms
    jq -r 'select(.type == "verdict" and .check == "step") | .what' "$1" |
        sed -n 's/.* of T_step \([0-9.]*\) ms.*/\1/p'
}

i=1
while [ "$i" -le "$repeats" ]; do
    conf "1 GB/s" "$out/healthy$i.conf"
    flock /tmp/cb.lock sh -c '
        i=$1 bin=$2 out=$3 rate=$4 slow=$5
        . scripts/simcluster.sh
        trap simcluster_down EXIT; trap "exit 130" HUP INT TERM
        simcluster_up 4 >/dev/null 2>&1 || { echo "repeat $i: cluster failed"; exit 1; }
        for n in $SIMCLUSTER_NODES; do simcluster_shape_egress "$n" "$rate" || exit 1; done
        set -- $SIMCLUSTER_NODES
        timeout -k 5 600 mpirun $SIMCLUSTER_MPIRUN_ARGS -np 4 "$bin" --accept "$out/healthy$i.conf" \
            --json "$out/healthy$i.jsonl" </dev/null >"$out/healthy$i.out" 2>&1
        bw=$(jq -r "select(.type == \"verdict\" and .check == \"grads\") | .measured" "$out/healthy$i.jsonl")
        sed "s|^bandwidth = 1 GB/s$|bandwidth = $bw GB/s|" "$out/healthy$i.conf" >"$out/slow$i.conf"
        simcluster_shape_egress "$3" "$slow" || exit 1
        timeout -k 5 600 mpirun $SIMCLUSTER_MPIRUN_ARGS -np 4 "$bin" --accept "$out/slow$i.conf" \
            --json "$out/slow$i.jsonl" </dev/null >"$out/slow$i.out" 2>&1
        exit 0
    ' one "$i" "$bin" "$out" "$rate" "$slow" || exit 1
    i=$((i + 1))
done 2>&1 | sed 's/^/# /' >&2

echo "| repeat | healthy busbw | throttled busbw | factor | priced step growth | T_step healthy | T_step throttled | measured growth | priced / measured |"
echo "|---|---|---|---|---|---|---|---|---|"
i=1
while [ "$i" -le "$repeats" ]; do
    h=$out/healthy$i.jsonl s=$out/slow$i.jsonl
    hb=$(jq -r 'select(.type == "verdict" and .check == "grads") | .measured' "$h")
    sb=$(jq -r 'select(.type == "verdict" and .check == "grads") | .measured' "$s")
    f=$(jq -r 'select(.type == "verdict" and .check == "grads") | .cost.factor // "-"' "$s")
    g=$(jq -r 'select(.type == "verdict" and .check == "grads") | .cost.step_growth // "-"' "$s")
    th=$(tstep "$h") ts=$(tstep "$s")
    awk -v i="$i" -v hb="$hb" -v sb="$sb" -v f="$f" -v g="$g" -v th="$th" -v ts="$ts" 'BEGIN {
        m = (th > 0) ? ts / th - 1 : "nan"
        printf "| %d | %.4g GB/s | %.4g GB/s | %s | %s | %s ms | %s ms | %s | %s |\n", i, hb, sb, f,
            g == "-" ? "-" : sprintf("%+.1f%%", 100 * g), th, ts,
            m == "nan" ? "-" : sprintf("%+.1f%%", 100 * m),
            (g == "-" || m == "nan" || m == 0) ? "-" : sprintf("%.2f", g / m) }'
    i=$((i + 1))
done
