#!/bin/sh
# Brings Debian's Open MPI (and the libraries collbench builds against) to a
# machine that has no MPI, no apt and no internet, such as the lent GPU
# machine: run this HERE (Debian 12, apt sources reachable), then carry the
# unpacked tree with the working tree (the device tool's `carry`):
#
#   scripts/fetch-gpu-deps.sh            # -> .gpu-deps/root (git-ignored)
#   run(carry=[".gpu-deps/root"], command="scripts/gpu-check.sh")
#
# scripts/gpu-check.sh finds .gpu-deps/root when mpirun is missing and sets
# PATH, LD_LIBRARY_PATH, OPAL_PREFIX and the compile flags from it. The .debs
# are downloaded with `apt-get download` (no root needed, nothing installed
# here) and unpacked with `dpkg -x`; docs, man pages and the .debs are
# dropped so the tree stays small (the device tool carries 64 MiB in all).
# The libraries are Debian 12's (glibc 2.36): the target needs glibc 2.36 or
# newer, which gpu-check.sh checks before using them.
set -eu
cd "$(dirname "$0")/.."
dest=.gpu-deps
# Open MPI's runtime and headers, and its library dependencies beyond glibc
# and libstdc++ (which every target has); then collbench's own build
# dependencies (libinih is required, jansson gives --json, hwloc placement).
packages="openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2
  libevent-core-2.1-7 libevent-pthreads-2.1-7 libevent-2.1-7 libhwloc15 libhwloc-dev
  libfabric1 libucx0 libibverbs1 librdmacm1 libnl-3-200 libnl-route-3-200 libpsm2-2
  libpsm-infinipath1 libnuma1 libltdl7 libgfortran5 libquadmath0 libmunge2 libpciaccess0
  libinih1 libinih-dev libjansson4 libjansson-dev"

# only what this script makes: .gpu-deps also holds a prepared or built UCX
# (scripts/build-cuda-ucx.sh), which a fresh fetch must not delete
rm -rf "$dest/debs" "$dest/root"
mkdir -p "$dest/debs" "$dest/root"
(cd "$dest/debs" && apt-get download $packages) || {
  echo "fetch-gpu-deps: apt-get download failed (run 'apt-get update' first?)" >&2
  exit 3
}
for deb in "$dest"/debs/*.deb; do
  dpkg -x "$deb" "$dest/root"
done
rm -rf "$dest/debs" "$dest/root/usr/share/doc" "$dest/root/usr/share/man" \
  "$dest/root/usr/share/lintian" "$dest/root/usr/share/locale" \
  "$dest/root/usr/lib/x86_64-linux-gnu/fortran"
find "$dest/root" -name '*.a' -delete
# Debian names the commands through alternatives, which dpkg -x does not set up
for cmd in mpirun mpiexec mpicc; do
  [ -e "$dest/root/usr/bin/$cmd.openmpi" ] && ln -sf "$cmd.openmpi" "$dest/root/usr/bin/$cmd"
done
echo "fetch-gpu-deps: $(du -sh "$dest/root" | cut -f1) in $dest/root"
echo "  carry \".gpu-deps/root\"; scripts/gpu-check.sh uses it when mpirun is missing"
