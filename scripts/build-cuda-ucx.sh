#!/bin/sh
# Builds a CUDA-aware UCX (cuda_copy, cuda_ipc, gdr_copy where found) from
# its source against a machine's CUDA, into .gpu-deps/ucx (git-ignored), for
# the lent GPU machine, whose carried UCX (Debian's 1.13) has no CUDA
# transports:
#
#   scripts/build-cuda-ucx.sh SRC                # build here
#   scripts/build-cuda-ucx.sh --source-only SRC  # only prepare the source:
#       -> .gpu-deps/ucx-src, configure generated; then on the GPU machine
#   run(carry=[".gpu-deps/ucx-src", ".gpu-deps/root"],
#       command="scripts/build-cuda-ucx.sh .gpu-deps/ucx-src && scripts/gpu-check.sh ucx")
#
# SRC is a UCX git repository (a clone of https://github.com/openucx/ucx,
# or the tool library's fetched mirror, a bare git directory), from which
# UCX_TAG (default v1.20.1) is exported, so the same tag gives the same
# tree; or a source tree with configure (a release unpacked, or what
# --source-only made). A git tree needs autoconf, automake and libtool for
# UCX's autogen.sh. Building needs gcc, make and CUDA at CUDA_HOME (default
# /usr/local/cuda) with NVML's header (nvml.h, the cuda-nvml-dev part of
# the toolkit), which UCX's CUDA support requires: a toolkit without it (this
# development VM's) is refused, and the GPU machine's toolkit and driver have
# it. Options are UCX's contrib/configure-release's (no debug logging,
# assertions or parameter checks), with CUDA, without the language bindings
# and docs. libucp.so.0 keeps its ABI, so LD_LIBRARY_PATH=.gpu-deps/ucx/lib
# puts the result under collbench's ucx backend and Open MPI's pml ucx alike.
# GPU_DEPS moves .gpu-deps (the tests use it).
#
# Exit: 0 done (the last line says where, the size and, built, the version
# and CUDA modules), 2 bad input (checked before anything is removed or
# built), 3 the build failed (the log named says why).
set -eu
cd "$(dirname "$0")/.."
usage() {
  echo "usage: scripts/build-cuda-ucx.sh [--source-only] SRC  (a UCX git repository or source tree)" >&2
  exit 2
}
only=0
[ "${1:-}" = --source-only ] && only=1 && shift
[ $# -eq 1 ] || usage
src=$1
tag=${UCX_TAG:-v1.20.1}
cuda=${CUDA_HOME:-/usr/local/cuda}
deps=${GPU_DEPS:-$PWD/.gpu-deps}
dest=$deps/ucx
work=$deps/ucx-build
log=$deps/ucx-build.log
if [ ! -e "$src" ]; then
  echo "build-cuda-ucx: $src: no such UCX source" >&2
  exit 2
fi
if [ $only -eq 0 ]; then
  if [ ! -x "$cuda/bin/nvcc" ] || [ ! -e "$cuda/include/cuda.h" ]; then
    echo "build-cuda-ucx: no CUDA at $cuda (set CUDA_HOME)" >&2
    exit 2
  fi
  if [ ! -e "$cuda/include/nvml.h" ]; then
    echo "build-cuda-ucx: $cuda has no nvml.h, which UCX's CUDA support needs (the toolkit's cuda-nvml-dev); build where it is, e.g. on the GPU machine from a tree made here with --source-only" >&2
    exit 2
  fi
fi
# every check before anything is removed or built
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  kind=git
  if ! git -C "$src" rev-parse -q --verify "$tag^{commit}" >/dev/null; then
    echo "build-cuda-ucx: $src has no tag $tag (set UCX_TAG; e.g. $(git -C "$src" tag | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sort -V | tail -n 3 | tr '\n' ' '))" >&2
    exit 2
  fi
  for tool in autoconf automake libtoolize; do
    command -v $tool >/dev/null || {
      echo "build-cuda-ucx: a git tree needs $tool (apt-get install autoconf automake libtool)" >&2
      exit 2
    }
  done
elif [ -x "$src/configure" ]; then
  kind=tree
  tag=$(basename "$(cd "$src" && pwd)")
else
  echo "build-cuda-ucx: $src is neither a git repository nor a source tree with configure" >&2
  exit 2
fi
[ $kind = tree ] && [ "$(realpath -m "$src")" = "$(realpath -m "$work")" ] && {
  echo "build-cuda-ucx: $src is the build folder itself" >&2
  exit 2
}
rm -rf "$work"
mkdir -p "$work"
if [ $kind = git ]; then
  git -C "$src" archive --format=tar "$tag" | tar -x -C "$work"
  (cd "$work" && ./autogen.sh) >"$log" 2>&1 || {
    echo "build-cuda-ucx: autogen.sh failed; $log says why" >&2
    exit 3
  }
else
  cp -R "$src/." "$work"
  : >"$log"
fi
if [ $only -eq 1 ]; then
  rm -rf "$deps/ucx-src"
  mv "$work" "$deps/ucx-src"
  echo "build-cuda-ucx: $deps/ucx-src ($(du -sh "$deps/ucx-src" | cut -f1)): UCX $tag, configure made; build it with scripts/build-cuda-ucx.sh $deps/ucx-src"
  exit 0
fi
rm -rf "$dest"
(
  cd "$work" &&
    ./configure --prefix="$dest" --with-cuda="$cuda" --enable-mt \
      --disable-logging --disable-debug --disable-assertions --disable-params-check \
      --without-java --without-go --disable-doxygen-doc --without-rocm \
      --without-knem --without-xpmem &&
    make -j"$(nproc)" &&
    make install
) >>"$log" 2>&1 || {
  echo "build-cuda-ucx: the build failed; $log says why" >&2
  exit 3
}
# what the machine needs to run it and build against it: the libraries,
# ucx_info and the headers (the GPU machine has no pkg-config: collbench's
# configure links against lib/ and include/ there), stripped
rm -rf "$dest/share" "$dest/lib/cmake" "$dest/lib/pkgconfig"
find "$dest" -name '*.a' -o -name '*.la' | xargs rm -f
find "$dest" -name '*.so*' -type f -exec strip --strip-unneeded {} + 2>/dev/null || true
strip "$dest/bin/"* 2>/dev/null || true
rm -rf "$work"
cudamods=$(ls "$dest/lib/ucx" 2>/dev/null | grep -o 'cuda[a-z_]*\|gdr[a-z_]*' | sort -u | tr '\n' ' ')
if [ -z "$cudamods" ]; then
  echo "build-cuda-ucx: built without CUDA transports (configure found no CUDA?); $log says why" >&2
  exit 3
fi
version=$(LD_LIBRARY_PATH=$dest/lib "$dest/bin/ucx_info" -v 2>/dev/null | grep -o 'Library version: [0-9.]*' || echo "$tag")
echo "build-cuda-ucx: $dest ($(du -sh "$dest" | cut -f1)): UCX $tag, $version; CUDA modules: $cudamods"
