# Shared by the shell tests: a TAP writer and an mpirun wrapper.
# Sourced from the repository root, where make check runs prove.

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Keep Open MPI quiet about missing RDMA devices on test machines.
export OMPI_MCA_btl_base_warn_component_unused=0

# The shell tests read JSON with jq: without it, each skips whole, visibly.
if ! command -v jq >/dev/null 2>&1; then
  echo "1..0 # SKIP jq not installed (scripts/install-test-deps.sh installs it)"
  exit 0
fi

TESTS_RUN=0
TESTS_FAILED=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/collbench-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

plan() { echo "1..$1"; }

# ok CONDITION-EXIT-STATUS DESCRIPTION
ok() {
  TESTS_RUN=$((TESTS_RUN + 1))
  if [ "$1" -eq 0 ]; then
    echo "ok $TESTS_RUN - $2"
  else
    echo "not ok $TESTS_RUN - $2"
    TESTS_FAILED=$((TESTS_FAILED + 1))
  fi
}

# check DESCRIPTION COMMAND...: runs the command, ok when it succeeds
check() {
  desc=$1
  shift
  "$@" >/dev/null 2>&1
  ok $? "$desc"
}

# on stderr: prove shows it without -v, so a CI log says why a test failed
diag() { sed 's/^/# /' "$@" >&2; }

# skip DESCRIPTION: a visible TAP skip for a check this host cannot make
skip() {
  TESTS_RUN=$((TESTS_RUN + 1))
  echo "ok $TESTS_RUN # SKIP $1"
}

finish() { [ "$TESTS_FAILED" -eq 0 ]; exit $?; }

# gpu_usable: collbench can use a GPU here (its --list says the nccl backend
# is usable, which pinned and device memory share), as a test's GPU branch asks
# Whether collbench can draw (--report needs the gnuplot configure found;
# a lent GPU machine has none): from config.mk, as the build saw it.
have_gnuplot() { grep -q '^GNUPLOT = .' config.mk 2>/dev/null; }
gpu_usable() { ./collbench --list 2>&1 | grep -q '^  nccl *usable'; }

# mpi NP ARGS...: ./collbench under mpirun; stdout, stderr and status in
# $TMP/out, $TMP/err, $STATUS. Oversubscribes only when NP exceeds cores.
mpi() {
  np=$1
  shift
  extra=
  [ "$np" -gt "$(nproc)" ] && extra=--oversubscribe
  mpirun -np "$np" $extra ./collbench "$@" >"$TMP/out" 2>"$TMP/err"
  STATUS=$?
}

# last_interval FILE: the highest burn-in interval a --json FILE holds so far; 0
# before any (a line half written reads as none yet)
last_interval() {
  { [ -s "$1" ] && jq -s '[.[] | select(.type == "result") | .interval] | max // 0' "$1" 2>/dev/null; echo 0; } | head -n 1
}

# wait_interval FILE N [PID]: polls (at most TIMES tenths of a second,
# default 600) until FILE holds interval N, or PID has ended
wait_interval() {
  i=0
  while [ "$(last_interval "$1")" -lt "$2" ] && [ $i -lt "${TIMES:-600}" ] && { [ -z "${3:-}" ] || kill -0 "$3" 2>/dev/null; }; do
    i=$((i + 1))
    sleep 0.1 # a polling interval, not a synchronisation
  done
}

# jq_all FILE FILTER: true when FILTER holds on every result line
jq_all() {
  jq -e -s "[.[] | select(.type == \"result\")] | length > 0 and all($2)" "$1" >/dev/null
}

# png_ok FILE: non-empty, PNG signature, and (with python3) IHDR size > 0
png_ok() {
  [ -s "$1" ] || return 1
  [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ] || return 1
  command -v python3 >/dev/null || return 0
  python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24)
w,h=struct.unpack(">II",d[16:24]); sys.exit(not(d[12:16]==b"IHDR" and w>0 and h>0))' "$1"
}

# promtool_ok FILE: Prometheus' own parser accepts the --prom file (a visible
# skip where promtool, from Debian's prometheus package, is missing)
promtool_ok() {
  if ! command -v promtool >/dev/null; then
    skip "promtool not installed (scripts/install-test-deps.sh installs prometheus)"
    return
  fi
  promtool check metrics <"$1" >"$TMP/promtool.out" 2>&1
  ok $? "promtool check metrics accepts $(basename "$1")"
  diag "$TMP/promtool.out"
}
