#!/bin/sh
# Installs the Debian packages collbench needs to build and run: the
# compiler, Open MPI, and the libraries configure turns into features
# (jansson: --json, --fit, --report's input; hwloc: placement in --probe;
# UCX and libibverbs: the ucx and verbs backends; inih: topology and
# acceptance files; OpenBLAS: --tune on host; gnuplot: --report's charts;
# help2man: the manual page `make install` writes). No daemon, no browser.
# Run as root (or with sudo) on Debian 12 or a derivative. CUDA and NCCL are
# not Debian packages: install NVIDIA's toolkit separately (configure finds
# it). An RDMA node's own stack (rdma-core or MOFED) is left as it is.
#
#   sh scripts/install-deps.sh          build and run (the quick start)
#   sh scripts/install-deps.sh --test   that, plus what `make check` needs
#                                       (scripts/install-test-deps.sh)
#   sh scripts/install-deps.sh --list [--test]   print the list, install nothing
#
# --test adds: MPICH (the mis-launch test, and ./configure
# --with-mpicc=mpicc.mpich), clang and its runtime (make fuzz, sanitizers),
# Slurm and munge (a one-node test cluster, tests/slurm.t; Slurm's PMIx plugin
# is in slurm-wlm-basic-plugins), prometheus (promtool checks --prom files),
# chromium (renders --report in tests/browser.t; about 360 MB), man-db
# (tests/install.t renders the page), python3-yaml and python3-jsonschema
# (tests/k8s.t), NetPIPE (scripts/compare-anchors.sh), jq (the shell tests
# read JSON with it), iproute2 and util-linux (the simulated clusters), procps,
# hwloc-nox, ucx-utils, rdma-core and ibverbs-utils (the tests' views of the
# same devices), strace (tests/threads.t), autoconf, automake and libtool
# (tests/build_ucx.t makes configure from a git tree as
# scripts/build-cuda-ucx.sh does). Tests whose tool is missing skip, visibly.
set -eu

run_packages="
  build-essential pkg-config
  openmpi-bin libopenmpi-dev
  libjansson-dev
  libhwloc-dev
  libucx-dev
  libibverbs-dev
  libinih-dev libopenblas-dev
  gnuplot-nox
  help2man
"

test_packages="
  mpich
  clang libclang-rt-14-dev
  slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge
  prometheus
  chromium chromium-driver
  man-db
  python3-yaml python3-jsonschema
  netpipe-openmpi
  jq iproute2 util-linux procps
  hwloc-nox ucx-utils rdma-core ibverbs-utils
  strace
  autoconf automake libtool
"

list=0 with_tests=0
for a in "$@"; do
  case $a in
  --list) list=1 ;;
  --test) with_tests=1 ;;
  *)
    echo "install-deps: unknown option '$a' (--test, --list)" >&2
    exit 2
    ;;
  esac
done
packages=$run_packages
what="build and run"
if [ $with_tests -eq 1 ]; then
  packages="$run_packages $test_packages"
  what="build, run and test"
fi

if [ $list -eq 1 ]; then
  # shellcheck disable=SC2086
  printf '%s\n' $packages
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    missing="$missing $p"
done

if [ -z "$missing" ]; then
  echo "install-deps: all packages to $what already installed"
  exit 0
fi

echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
