#!/bin/sh
# collbench across two simulated nodes (network namespaces, see scripts/simcluster.sh),
# one rank per node: the run must see 2 nodes, use TCP, and check its data clean.
# Needs root; skips visibly otherwise. Run from the repo root after make.
cd "$(dirname "$0")/.." || exit 1
. scripts/simcluster.sh

skip() { echo "1..0 # SKIP $*"; exit 0; }
reason=$(simcluster_can_run) || skip "$reason"
for t in mpirun jq timeout; do
    command -v "$t" >/dev/null 2>&1 || skip "$t not found"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cluster2.XXXXXX") || exit 1
# Teardown always; dash runs the EXIT trap on a signal only if the signal is trapped
# (PIPE too: prove ... | head must not leave namespaces behind).
# mpirun (root namespace) is stopped first, then simcluster_down kills what is left in
# the nodes.
mpirun_pid=
trap '[ -n "$mpirun_pid" ] && kill "$mpirun_pid" 2>/dev/null && wait "$mpirun_pid"
      simcluster_down; rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT TERM PIPE

n=0
check() { # check DESCRIPTION COMMAND...: one TAP line from the command's status
    n=$((n + 1)); d=$1; shift
    if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; return 1; fi
}
diag() { sed 's/^/# /' "$@" >&2; }

echo 1..8
# Without the cluster, mpirun would quietly run both ranks on this host: stop here.
check "simulated 2-node cluster up" simcluster_up 2 || { echo "Bail out! no simulated cluster"; exit 1; }

# A hang must not stall prove for ever. mpirun runs in the background because the shell
# would hold a signal (prove's or ^C) until a foreground command ends; "wait" is
# interrupted. timeout -k: KILL follows if mpirun ignores the TERM.
run() { # run JSON-FILE COLLBENCH-ARGS...
    json=$1; shift
    # shellcheck disable=SC2086 # SIMCLUSTER_MPIRUN_ARGS is a list of words
    timeout -k 5 300 mpirun -x UCX_NET_DEVICES $SIMCLUSTER_MPIRUN_ARGS -np 2 ./collbench "$@" \
        --json "$json" </dev/null >"$tmp/out" 2>&1 &
    mpirun_pid=$!
    wait "$mpirun_pid" && { mpirun_pid=; return 0; }
    mpirun_pid=
    diag "$tmp/out"; [ -n "${SIMCLUSTER_DIR:-}" ] && diag "$SIMCLUSTER_DIR/agent.log"
    return 1
}
export UCX_NET_DEVICES=eth0 # the node's veth: UCX must not reach the other node over lo
check "mpirun -np 2 collbench across 2 nodes exits 0" run "$tmp/r.jsonl" --op allreduce,p2p_lat -b 8 -e 64K

first_run() { head -n 1 "$tmp/r.jsonl" | jq -e '.type == "run" and .nnodes == 2' >/dev/null; }
check 'first line is {"type":"run","nnodes":2}' first_run

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
