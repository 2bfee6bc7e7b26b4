#!/bin/sh
# scripts/build-cuda-ucx.sh (issue 60 item 5): each bad input exits 2 naming
# what is wrong before anything is removed or built; a CUDA without NVML's
# header (this VM's) is refused as UCX's configure would refuse it;
# --source-only exports the tag and makes configure (a stand-in UCX
# repository here, GPU_DEPS keeping it out of the real .gpu-deps). The real
# build needs NVML and minutes: tests/measured-2026.md says where it ran.
. tests/lib.sh
plan 8
export GPU_DEPS=$TMP/deps
s=scripts/build-cuda-ucx.sh
sh $s >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q '^usage: scripts/build-cuda-ucx.sh \[--source-only\] SRC' "$TMP/out"
ok $? "no source: usage, exit 2"
sh $s --source-only "$TMP/none" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "none: no such UCX source" "$TMP/out"
ok $? "a missing source: exit 2 naming it"
mkdir -p "$TMP/empty" "$TMP/cuda/bin" "$TMP/cuda/include"
sh $s --source-only "$TMP/empty" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "neither a git repository nor a source tree with configure" "$TMP/out"
ok $? "a folder that is no UCX source: exit 2"
CUDA_HOME=$TMP/empty sh $s "$TMP/empty" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "no CUDA at $TMP/empty (set CUDA_HOME)" "$TMP/out"
ok $? "no CUDA: exit 2"
printf '#!/bin/sh\n' >"$TMP/cuda/bin/nvcc" && chmod +x "$TMP/cuda/bin/nvcc" && : >"$TMP/cuda/include/cuda.h"
CUDA_HOME=$TMP/cuda sh $s "$TMP/empty" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "cuda has no nvml.h, which UCX's CUDA support needs" "$TMP/out" &&
  grep -q -- '--source-only' "$TMP/out"
ok $? "CUDA without nvml.h: exit 2, naming the way round"
# a stand-in UCX repository: one tag, an autogen.sh that makes configure
r=$TMP/ucx
git init -q "$r"
printf '#!/bin/sh\nprintf "#!/bin/sh\\n" >configure && chmod +x configure\n' >"$r/autogen.sh"
chmod +x "$r/autogen.sh"
git -C "$r" add autogen.sh && git -C "$r" -c user.name=t -c user.email=t@t commit -q -m x &&
  git -C "$r" tag v9.9.9
sh $s --source-only "$r" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "ucx has no tag v1.20.1 (set UCX_TAG; e.g. v9.9.9" "$TMP/out" && [ ! -e "$GPU_DEPS" ]
ok $? "a repository without the tag: exit 2 naming those it has; nothing made"
# a git tree's configure is made by autoconf, automake and libtool, as the
# script checks first (scripts/install-test-deps.sh installs them)
if ! command -v autoconf >/dev/null || ! command -v automake >/dev/null ||
  ! command -v libtoolize >/dev/null; then
  skip "--source-only on a git tree: no autoconf, automake or libtoolize here"
  skip "a prepared tree taken again: no autoconf, automake or libtoolize here"
  finish
fi
UCX_TAG=v9.9.9 sh $s --source-only "$r" >"$TMP/out" 2>&1
st=$?
[ $st -eq 0 ] && [ -x "$GPU_DEPS/ucx-src/configure" ] && [ -x "$GPU_DEPS/ucx-src/autogen.sh" ] &&
  [ ! -e "$GPU_DEPS/ucx-build" ] && grep -q "ucx-src .*: UCX v9.9.9, configure made" "$TMP/out"
ok $? "--source-only: the tag exported to ucx-src with configure made (exit $st)"
sh $s --source-only "$GPU_DEPS/ucx-src" >"$TMP/out" 2>&1
[ $? -eq 0 ] && [ -x "$GPU_DEPS/ucx-src/configure" ]
ok $? "a prepared tree taken again as a source tree"
finish
