# Shared by the simulated-cluster tests (cluster2.t, cluster4.t): skip unless a
# namespace cluster can be built here, a temporary directory and a teardown
# that always runs, TAP check/diag, and mpirun in the background.
#   cd to the repo root; SIM_NAME=cluster4 SIM_TOOLS="tc"; . tests/simlib.sh
. scripts/simcluster.sh

skip() { echo "1..0 # SKIP $*"; exit 0; }
reason=$(simcluster_can_run) || skip "$reason"
for t in mpirun jq timeout ${SIM_TOOLS:-}; do
    command -v "$t" >/dev/null 2>&1 || skip "$t not found"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/${SIM_NAME:-cluster}.XXXXXX") || exit 1
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

# sim_mpirun MPIRUN-ARGS...: mpirun across the cluster, output in $tmp/out, its exit
# status returned. A hang must not stall prove for ever: mpirun runs in the
# background because the shell would hold a signal (prove's or ^C) until a foreground
# command ends, while "wait" is interrupted; timeout -k: KILL follows if mpirun
# ignores the TERM.
sim_mpirun() {
    # shellcheck disable=SC2086 # SIMCLUSTER_MPIRUN_ARGS is a list of words
    timeout -k 5 300 mpirun $SIMCLUSTER_MPIRUN_ARGS "$@" </dev/null >"$tmp/out" 2>&1 &
    mpirun_pid=$!
    wait "$mpirun_pid"; sim_status=$?
    mpirun_pid=
    return $sim_status
}
