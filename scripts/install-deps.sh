#!/bin/sh
# Installs the Debian packages collbench needs to build, test and compare itself.
# Run as root (or with sudo) on Debian 12 or a derivative. CUDA and NCCL are not
# Debian packages: install NVIDIA's toolkit separately (configure finds it).
# Open MPI stays the default MPI; MPICH is there so that tests can launch
# collbench with another MPI's launcher (the mis-launch check), and so that
# ./configure --with-mpicc=mpicc.mpich can build against it. clang and its
# runtime (libFuzzer, sanitizers) build the fuzz harnesses (make fuzz).
# Slurm and munge run a one-node test cluster (tests/slurm.t; Slurm's PMIx
# plugin is in slurm-wlm-basic-plugins), prometheus brings promtool to validate
# --prom files, chromium renders --report in a browser test, and help2man
# writes the manual page; python3-yaml and python3-jsonschema check the
# Kubernetes MPIJob against the MPI Operator's schema (tests/k8s.t).
# chromium is the big one (about 360 MB installed; its apt-get install took
# 24 s here with prometheus).
set -eu

packages="
  build-essential pkg-config perl
  openmpi-bin libopenmpi-dev
  mpich
  libjansson-dev
  libhwloc-dev hwloc-nox
  libucx-dev ucx-utils
  libibverbs-dev rdma-core ibverbs-utils
  libinih-dev libopenblas-dev
  gnuplot-nox
  netpipe-openmpi
  iproute2 util-linux procps jq
  clang libclang-rt-14-dev
  slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge
  prometheus
  chromium chromium-driver
  help2man man-db
  python3-yaml python3-jsonschema
"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    missing="$missing $p"
done

if [ -z "$missing" ]; then
  echo "install-deps: all packages already installed"
  exit 0
fi

echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
