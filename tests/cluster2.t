#!/bin/sh
# collbench across two simulated nodes (network namespaces, see scripts/simcluster.sh),
# one rank per node: the run must see 2 nodes, use TCP, and check its data clean.
# Needs root; skips visibly otherwise. Run from the repo root after make.
cd "$(dirname "$0")/.." || exit 1
SIM_NAME=cluster2 SIM_TOOLS=
. tests/simlib.sh

echo 1..9
# Without the cluster, mpirun would quietly run both ranks on this host: stop here.
check "simulated 2-node cluster up" simcluster_up 2 || { echo "Bail out! no simulated cluster"; exit 1; }

run() { # run JSON-FILE COLLBENCH-ARGS...: exit 0 expected
    json=$1; shift
    sim_mpirun -x UCX_NET_DEVICES -np 2 ./collbench "$@" --json "$json" && return 0
    diag "$tmp/out"; [ -n "${SIMCLUSTER_DIR:-}" ] && diag "$SIMCLUSTER_DIR/agent.log"
    return 1
}
export UCX_NET_DEVICES=eth0 # the node's veth: UCX must not reach the other node over lo
check "mpirun -np 2 collbench across 2 nodes exits 0" run "$tmp/r.jsonl" --op allreduce,p2p_lat -b 8 -e 64K

first_run() { head -n 1 "$tmp/r.jsonl" | jq -e '.type == "run" and .nnodes == 2' >/dev/null; }
check 'first line is {"type":"run","nnodes":2}' first_run
# each node's local rank 0 probes; rank 0 gathers them in node order
probed() { head -n 1 "$tmp/r.jsonl" | jq -e '(.probe.nodes | length) == 2 and
    ([.probe.nodes[].hostname] == .hostnames)' >/dev/null; }
check "the run record carries the probe of both nodes, in node order" probed

# jq -s also rejects the whole file if any line is not valid JSON.
nresults() { jq -s '[.[] | select(.type == "result")] | length' "$tmp/r.jsonl"; }
has_results() { [ "$(nresults 2>/dev/null)" -ge 1 ] 2>/dev/null; }
check "at least one result line" has_results

good_results() {
    bad=$(jq -c 'select(.type == "result" and
                        (.nnodes != 2 or .transport != "tcp" or .wrong != 0))' "$tmp/r.jsonl") || return 1
    [ -z "$bad" ] && return 0
    echo "$bad" | diag; return 1
}
check 'every result has nnodes 2, transport "tcp", wrong 0' good_results

# UCX would use shared memory across namespaces (same host, same IPC
# namespace) unless told otherwise: --transport tcp makes it cross the link.
check "ucx over tcp across 2 nodes exits 0" run "$tmp/u.jsonl" --backend ucx --transport tcp \
    --op p2p_lat,p2p_bw,p2p_bibw -b 8 -e 64K --max-time 0.2
ucx_results() {
    bad=$(jq -c 'select(.type == "result" and
                        (.nnodes != 2 or .transport != "tcp" or .wrong != 0 or .backend != "ucx"))' \
              "$tmp/u.jsonl") || return 1
    count=$(jq -s '[.[] | select(.type == "result")] | length' "$tmp/u.jsonl")
    [ -z "$bad" ] && [ "$count" -eq 42 ] && return 0
    echo "$bad ($count results)" | diag; return 1
}
check 'ucx: 42 results, all nnodes 2, transport "tcp", wrong 0' ucx_results
net_devices_recorded() { head -n 1 "$tmp/u.jsonl" | jq -e '.env.UCX_NET_DEVICES == "eth0"' >/dev/null; }
check "the run record keeps UCX_NET_DEVICES" net_devices_recorded
