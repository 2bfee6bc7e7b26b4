#!/bin/sh
# Acceptance on four simulated nodes (network namespaces, scripts/simcluster.sh),
# one rank per node, MPI over TCP:
#  - healthy: --accept topologies/localhost.conf passes (exit 0);
#  - one node's incoming link throttled to 200 Mbit/s (tc tbf): --accept fails
#    with exit 1 naming the all-gather check, and the matrix names that node and
#    nothing else;
#  - one direction of one pair throttled (tc htb + u32 filter): --matrix names
#    exactly that link, and no node.
# Needs root; skips visibly otherwise. Run from the repo root after make.
cd "$(dirname "$0")/.." || exit 1
SIM_NAME=cluster4 SIM_TOOLS=tc
. tests/simlib.sh

echo 1..10
check "simulated 4-node cluster up" simcluster_up 4 || { echo "Bail out! no simulated cluster"; exit 1; }
set -- $SIMCLUSTER_NODES
node1=$1 node3=$3 node4=$4

# run EXPECTED-STATUS JSON-FILE COLLBENCH-ARGS...: the status must be the expected one.
run() {
    want=$1 json=$2; shift 2
    sim_mpirun -np 4 ./collbench "$@" --max-time 0.3 --json "$json"; got=$?
    [ "$got" -eq "$want" ] && return 0
    echo "exit status $got, expected $want" | diag; diag "$tmp/out"
    return 1
}
# verdicts FILE: "STATUS name" per verdict, sorted, on one line
verdicts() { jq -r 'select(.type == "verdict") | "\(.status) \(.check)"' "$1" | sort | tr '\n' ';'; }
show() { grep -E '^  (PASS|WARN|FAIL) |retest' "$tmp/out" | sed 's/^/# /'; }

check "healthy: --accept topologies/localhost.conf exits 0" \
    run 0 "$tmp/healthy.jsonl" --accept topologies/localhost.conf
show
# A busy machine may WARN (the levels are for healthy but noisy hosts); never FAIL.
# Four nodes time-share two cores here, so a straggler warning is possible too.
all_pass() {
    v=$(verdicts "$tmp/healthy.jsonl" | sed 's/WARN /PASS /g; s/PASS straggler [^;]*;//g
                                              s/PASS stragglers;//')
    [ "$v" = "PASS allgather-busbw;PASS matrix;PASS p2p-bandwidth;PASS p2p-latency;" ] && return 0
    echo "verdicts: $v" | diag; return 1
}
check "healthy: every check and the matrix PASS (or WARN)" all_pass
four_nodes() { head -n 1 "$tmp/healthy.jsonl" | jq -e '.nnodes == 4' >/dev/null; }
check "the run saw 4 nodes" four_nodes

simcluster_throttle "$node3" 200mbit
check "node 3 throttled: --accept exits 1" run 1 "$tmp/node.jsonl" --accept topologies/localhost.conf
show
allreduce_fails() {
    jq -e -s '[.[] | select(.type == "verdict" and .check == "allgather-busbw")][0]
              | .status == "FAIL" and .margin < 0' "$tmp/node.jsonl" >/dev/null
}
check "the all-gather check is the one that fails, with a negative margin" allreduce_fails
grep -q "^  FAIL    allgather-busbw .*(line [0-9]*)$" "$tmp/out"
check "its FAIL line names the check and its line in the file" [ $? -eq 0 ]
only_node3() {
    v=$(jq -r 'select(.type == "verdict" and (.check | test("^(node|link) "))) | .check' \
        "$tmp/node.jsonl" | tr '\n' ';')
    [ "$v" = "node $node3;" ] && return 0
    echo "matrix verdicts: $v (want node $node3)" | diag; return 1
}
check "the matrix names exactly node 3 ($node3)" only_node3

tc qdisc del dev "${SIMCLUSTER_ID}v3" root
simcluster_throttle_link "$node1" "$node4" 200mbit 2>/dev/null
check "link 1->4 throttled: --matrix exits 1" run 1 "$tmp/link.jsonl" --matrix
show
only_link() {
    v=$(jq -r 'select(.type == "verdict") | "\(.status) \(.check)"' "$tmp/link.jsonl" | tr '\n' ';')
    [ "$v" = "FAIL link $node1->$node4;" ] && return 0
    echo "verdicts: $v (want FAIL link $node1->$node4)" | diag; return 1
}
check "the matrix names exactly the link $node1->$node4, and no node" only_link
