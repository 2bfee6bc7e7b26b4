#!/bin/sh
# configure finds NCCL where NVIDIA's apt packages and NGC containers put it
# (nccl.h in DIR/include, libnccl.so in DIR/lib/<multiarch>), refuses NCCL
# older than 2.24 by name, and finds jansson without a pkg-config binary
# (the bare GPU machine). Each configure runs in a copy of the script in a
# temp dir, so the tree's own config.mk is left alone.
. tests/lib.sh
plan 8

CUDA=/usr/local/cuda
if [ ! -f "$CUDA/include/nccl.h" ] || [ ! -e "$CUDA/lib64/libnccl.so" ]; then
  for i in 1 2 3 4 5; do skip "no NCCL in $CUDA to lay out as NVIDIA's packages do"; done
else
  multiarch=$(mpicc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
  # fake_nccl DIR SED: a /usr-like tree, the header edited by SED
  fake_nccl() {
    mkdir -p "$1/include" "$1/lib/$multiarch"
    sed "$2" "$CUDA/include/nccl.h" >"$1/include/nccl.h"
    ln -s "$CUDA/lib64/libnccl.so" "$1/lib/$multiarch/libnccl.so"
  }
  # conf NAME ARGS...: runs a copy of configure in $TMP/NAME
  conf() {
    d=$TMP/$1
    shift
    mkdir -p "$d" && cp configure "$d/" && (cd "$d" && ./configure "$@") >"$d.out" 2>&1
  }

  fake_nccl "$TMP/usr" ''
  conf new --with-nccl="$TMP/usr"
  ok $? "--with-nccl=DIR with libnccl.so in DIR/lib/$multiarch configures"
  grep -q "^NCCL_LIBS = -L$TMP/usr/lib/$multiarch " "$TMP/new/config.mk" &&
    grep -q '^#define CB_HAVE_NCCL 1' "$TMP/new/config.h"
  ok $? "the nccl backend is built against that directory ($(grep '^nccl:' "$TMP/new.out"))"

  fake_nccl "$TMP/old" 's/^#define NCCL_MINOR .*/#define NCCL_MINOR 23/;
    s/^#define NCCL_VERSION_CODE .*/#define NCCL_VERSION_CODE 22309/'
  conf old --with-nccl="$TMP/old"
  ok $((! ($? == 2))) "an NCCL older than 2.24 asked for by --with-nccl exits 2"
  grep -q 'NCCL 2\.23\.[0-9]* in .* is older than 2\.24' "$TMP/old.out"
  ok $? "and names the version ($(grep '^nccl:' "$TMP/old.out" | cut -c1-100))"
  grep -q "^nccl:.*$TMP/old" "$TMP/old.out"
  ok $? "and the directory it looked in"
fi

PKG_CONFIG=false conf nopc --without-cuda
grep -q '^HAVE_JANSSON = 1' "$TMP/nopc/config.mk"
ok $? "without pkg-config, jansson is found by a link test ($(grep '^json:' "$TMP/nopc.out"))"
grep -q '^HAVE_HWLOC = 1' "$TMP/nopc/config.mk"
ok $? "and hwloc too ($(grep '^hwloc:' "$TMP/nopc.out"))"
# issue 75 finding 4: the GPU machine has no pkg-config; its UCX is in CPATH
# and LIBRARY_PATH (here Debian's libucx-dev, in the compiler's own paths)
if [ -e /usr/include/ucp/api/ucp.h ]; then
  grep -q '^HAVE_UCX = 1' "$TMP/nopc/config.mk"
  ok $? "and UCX by a link test too ($(grep '^ucx:' "$TMP/nopc.out"))"
else
  ok 0 "# SKIP no UCX headers here"
fi

finish
