#!/bin/bash
# scripts/model-simcluster.sh: checks the performance model across nodes on a simulated
# two-node cluster (scripts/simcluster.sh; root only). It measures
#   intra.jsonl  2 ranks on one node (shared memory: the intra-node tier)
#   inter.jsonl  2 ranks on two nodes, one each (TCP between namespaces: the inter-node tier)
#   held.jsonl   4 ranks on two nodes, two each: held out, the fit never sees it
# fits both tiers on the first two, validates on the third (--validate), and builds a
# report of all three with the validation error on its page.
#   usage: sudo scripts/model-simcluster.sh [OUTDIR]   (default ./model-simcluster)
# A measuring tool, not a test: its figures go into notes, not into assertions.
set -u
cd "$(dirname "$0")/.." || exit 2
out=${1:-model-simcluster}
[ -x ./collbench ] || { echo "model-simcluster: build collbench first (./configure && make)" >&2; exit 2; }
. scripts/simcluster.sh
reason=$(simcluster_can_run) || { echo "model-simcluster: $reason" >&2; exit 2; }
mkdir -p "$out" || exit 2
trap simcluster_down EXIT
trap 'exit 130' HUP INT TERM
simcluster_up 2 2 || exit 3

# Collectives only (what the model fits), up to 4 MiB so the four-rank run stays short
# on a small machine; checking on, auto iterations with a budget per size.
# simcluster makes ranks talk TCP even on one node; here ranks on one node use shared
# memory (vader), as on a real cluster, and TCP only between nodes.
ops=allreduce,allgather,reducescatter,broadcast,alltoall
args=$(echo "$SIMCLUSTER_MPIRUN_ARGS" | sed 's/--mca btl tcp,self/--mca btl vader,tcp,self/')
sweep() { # sweep JSON NP MPIRUN-PLACEMENT...
    json=$1 np=$2; shift 2
    # shellcheck disable=SC2086 # args is a list of words
    mpirun $args -np "$np" "$@" ./collbench --op $ops -b 8 -e 4M \
        --max-time 0.5 --json "$out/$json" >"$out/${json%.jsonl}.txt" 2>&1 ||
        { echo "model-simcluster: the $json run failed:" >&2; tail -n 20 "$out/${json%.jsonl}.txt" >&2; exit 3; }
}
sweep intra.jsonl 2 --host "$SIMCLUSTER_NET.1:2"
sweep inter.jsonl 2 --map-by ppr:1:node
sweep held.jsonl 4 --map-by ppr:2:node

./collbench --fit "$out/intra.jsonl" "$out/inter.jsonl" --validate "$out/held.jsonl" \
    --json "$out/model.json" | tee "$out/model.txt"
./collbench --report "$out/intra.jsonl" "$out/inter.jsonl" "$out/held.jsonl" --out "$out/report" >/dev/null
echo "model-simcluster: fits, validation and report in $out/"
