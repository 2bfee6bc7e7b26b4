#!/bin/sh
# Acceptance on four simulated nodes (network namespaces, scripts/simcluster.sh),
# one rank per node, MPI over TCP:
#  - healthy: --accept topologies/localhost.conf passes (exit 0);
#  - one node's incoming link throttled to 20 Mbit/s (tc tbf): --accept fails
#    with exit 1 naming the all-gather check, and the matrix names that node and
#    nothing else;
#  - one direction of one pair throttled (tc htb + u32 filter): the matrix names
#    exactly that link, and no node;
#  - a fleet baseline (--baseline) from four healthy runs' matrices: a further
#    healthy run judged against it gets no fleet FAIL, and the run with node 3
#    throttled gets exactly one, naming node 3 (scripts/baseline-simcluster.sh
#    is the long version: 10 + 20 + 10 runs).
# Needs root; skips visibly otherwise. Run from the repo root after make.
cd "$(dirname "$0")/.." || exit 1
SIM_NAME=cluster4 SIM_TOOLS=tc
. tests/simlib.sh

echo 1..15
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

# topologies/localhost.conf with the all-gather's levels at 3% and 6% of the
# pair bandwidth: under two CPU hogs a healthy run's 2 MiB all-gather fell
# to 11% of it, a FAIL against the shipped 15%, rightly for the machine but
# not what this test is about (a flake hunt at aa1530a); node 3 throttled
# to 20 Mbit/s gives it under 1% (at 200 Mbit/s it was 7%, too near). The
# matrix's bw_fraction 0.2, not the shipped 0.5: under two CPU hogs a healthy
# pair measured 0.28 of its reference in all 11 retests (the scheduler kept
# its two nodes' ranks on a loaded core; a flake hunt at 084b44f, 1 run of
# 5), while the faults planted here are 1/30 to 1/60 of a healthy pair
sed -e 's/^warn = 25% pairbw/warn = 6% pairbw/' -e 's/^fail = 15% pairbw/fail = 3% pairbw/' \
    -e 's/^bw_fraction = 0.5 .*/bw_fraction = 0.2/' topologies/localhost.conf >"$tmp/local.conf"
check "healthy: --accept topologies/localhost.conf (all-gather levels lowered) exits 0" \
    run 0 "$tmp/healthy.jsonl" --accept "$tmp/local.conf"
show
# A busy machine may WARN (the levels are for healthy but noisy hosts); never FAIL.
# Four nodes time-share two cores here, so a straggler warning is possible too.
all_pass() {
    # WARN read as PASS before sorting (sorted after, a WARN moved its check
    # to the end and failed the comparison on a loaded machine)
    v=$(jq -r 'select(.type == "verdict") | "\(.status) \(.check)"' "$tmp/healthy.jsonl" |
        sed 's/^WARN /PASS /' | grep -v '^PASS stragglers*\( \|$\)' | sort | tr '\n' ';')
    [ "$v" = "PASS allgather-busbw;PASS matrix;PASS p2p-bandwidth;PASS p2p-latency;" ] && return 0
    echo "verdicts: $v" | diag; return 1
}
check "healthy: every check and the matrix PASS (or WARN)" all_pass
four_nodes() { head -n 1 "$tmp/healthy.jsonl" | jq -e '.nnodes == 4' >/dev/null; }
check "the run saw 4 nodes" four_nodes

# A fleet baseline: the healthy run above and three runs of the matrix alone.
# Nodes are judged by their slower direction's share of their run's median
# pair (0.56-1.94 for a healthy node in 480 figures of 120 runs here, 0.016-0.036
# for node 3 throttled), so a run this VM slows as a whole names no node;
# default k (5).
cat >"$tmp/matrix.conf" <<CONF
[system]
name = matrix only
ranks_per_node = 1
[matrix]
size = 1M
bw_fraction = 0.2
lat_factor = 10
CONF
fleet_section() { printf '[baseline]\nfile = baseline.json\n'; }
{ cat "$tmp/matrix.conf"; fleet_section; } >"$tmp/fleet.conf"
{ cat "$tmp/local.conf"; fleet_section; } >"$tmp/node.conf"
healthy_matrices() {
    for i in 2 3 4; do run 0 "$tmp/healthy$i.jsonl" --accept "$tmp/matrix.conf" || return 1; done
}
check "three more healthy runs of the matrix alone" healthy_matrices
./collbench --baseline-out "$tmp/baseline.json" "$tmp"/healthy*.jsonl >"$tmp/out" 2>&1
check "a baseline of the four healthy runs" [ $? -eq 0 ]
# fleet FILE: "STATUS check" of each fleet verdict, sorted, on one line
fleet() { jq -r 'select(.type == "verdict" and (.check | startswith("fleet "))) | "\(.status) \(.check)"' \
            "$1" | sort | tr '\n' ';'; }
check "a healthy run judged against the fleet exits 0" run 0 "$tmp/judged.jsonl" --accept "$tmp/fleet.conf"
show
no_fleet_fail() { # a verdict for every node and the links, none a FAIL
    v=$(fleet "$tmp/judged.jsonl" | tr ';' '\n' | cut -d' ' -f2- | sort | tr '\n' ';')
    want="fleet links;fleet node $1;fleet node $2;fleet node $3;fleet node $4;"
    [ "$v" = "$want" ] && ! fleet "$tmp/judged.jsonl" | grep -q FAIL && return 0
    echo "fleet verdicts: $(fleet "$tmp/judged.jsonl") (want $want, none a FAIL)" | diag; return 1
}
check "its fleet verdicts: every node and the links, none FAILs" no_fleet_fail $SIMCLUSTER_NODES

# 20 Mbit/s: node 3's share of its run's median pair near 0, so the fleet
# FAILs it whenever it can judge at all (a spread under 1/5 of the median is
# exactly z under -5 at share 0; at 200 Mbit/s, share 0.094, a loaded
# baseline's spread of 0.163 left node 3 at z -4.8: neither FAIL nor
# "cannot judge", the flake hunt at aa1530a)
simcluster_throttle "$node3" 20mbit
check "node 3 throttled: --accept exits 1" run 1 "$tmp/node.jsonl" --accept "$tmp/node.conf"
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
# Node 3 FAILs and nothing healthy does. Should the baseline's shares still
# differ too much (over 1/5 of their median), the fleet cannot fail anything and
# says so (WARN, cannot judge): then only "nothing healthy" is checked, and the
# line says why.
fleet_node3() { # [wide]: no FAIL wanted at all, else node 3's (links into it may FAIL too)
    want="FAIL fleet node $node3;"
    [ "${1:-}" = wide ] && want=
    v=$(fleet "$tmp/node.jsonl" | tr ';' '\n' | grep '^FAIL' | grep -v "^FAIL fleet link [^ ]*->$node3\$" |
        tr '\n' ';')
    [ "$v" = "$want" ] && return 0
    echo "fleet FAILs: $v (want ${want:-none}, and links into node 3); node 3: $(jq -r --arg n "fleet node $node3" \
        'select(.type == "verdict" and .check == $n) | "\(.status) \(.what)"' "$tmp/node.jsonl")" | diag
    return 1
}
why=$(jq -r -s --arg n "fleet node $node3" '[.[] | select(.type == "verdict" and .check == $n)][0] |
      select(.status == "WARN") | .what | select(test("cannot judge: the fleet.s spread")) |
      sub(".*cannot judge: "; "")' "$tmp/node.jsonl")
if [ -n "$why" ]; then
    n=$((n + 1)); d="against the fleet, nothing healthy FAILs"
    if fleet_node3 wide; then echo "ok $n - $d # SKIP node 3 not judged: the baseline's runs differ too much ($why)"
    else echo "not ok $n - $d"; fi
else
    check "against the fleet, node 3 FAILs and nothing healthy" fleet_node3
fi

tc qdisc del dev "${SIMCLUSTER_ID}v3" root
# 50 Mbit/s, about 1/60 of a healthy pair here: at 200 Mbit/s (1/15) a
# reference pair slowed as much by load in one of the K paired retests
# cleared the link (1 of 5 flake-hunt runs under two CPU hogs); 60x is
# beyond the load's reach
simcluster_throttle_link "$node1" "$node4" 50mbit 2>/dev/null
# The matrix's rules above (bw_fraction 0.2, localhost.conf's 0.5): pairs of this VM's
# simulated nodes differ by up to 0.66 of each other for good, which ClusterKit's
# 0.9 (--matrix's default) calls slow.
check "link 1->4 throttled: the matrix exits 1" run 1 "$tmp/link.jsonl" --accept "$tmp/matrix.conf"
show
only_link() {
    v=$(jq -r 'select(.type == "verdict" and (.check | test("^(node|link) "))) | "\(.status) \(.check)"' \
        "$tmp/link.jsonl" | tr '\n' ';')
    [ "$v" = "FAIL link $node1->$node4;" ] && return 0
    echo "verdicts: $v (want FAIL link $node1->$node4)" | diag; return 1
}
check "the matrix names exactly the link $node1->$node4, and no node" only_link
