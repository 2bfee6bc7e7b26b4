#!/bin/sh
# Checks tuner/plugin/nccl_abi.h (collbench's own declaration of NCCL's tuner
# plugin interface) against NCCL's headers at each given tag, at compile time:
# struct sizes, alignments and member offsets, the entry points' exact
# signatures (NCCL's enums read as int), and the algorithm, protocol,
# collective and log numbers. NCCL's headers are read from a git clone of
# github.com/NVIDIA/nccl into a temporary directory, never copied into this
# tree. Needs g++ and an nccl.h (for ncclResult_t; --with-nccl's, or
# NCCL_INC=DIR).
# usage: scripts/check-tuner-abi.sh NCCL_GIT_DIR [TAG...]
#   default tags: v2.24.3-1 v2.25.1-1 v2.26.2-1 v2.27.7-1 v2.28.9-1 v2.30.7-1
# Exit 0 when every tag matches, 1 when one does not, 2 on bad usage.
set -u
[ $# -ge 1 ] && git -C "$1" rev-parse --git-dir >/dev/null 2>&1 || {
  echo "usage: $0 NCCL_GIT_DIR [TAG...] (a clone of github.com/NVIDIA/nccl)" >&2
  exit 2
}
repo=$1
shift
[ $# -gt 0 ] || set -- v2.24.3-1 v2.25.1-1 v2.26.2-1 v2.27.7-1 v2.28.9-1 v2.30.7-1
inc=${NCCL_INC:-/usr/local/cuda/include}
[ -f "$inc/nccl.h" ] || { echo "$0: no nccl.h in $inc (set NCCL_INC)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/check.cc" <<'CC'
#include <cstddef>
#include <type_traits>
#include <nccl.h>
#if __has_include("plugin/nccl_tuner.h")
#include "plugin/nccl_tuner.h"
#else
#include "nccl_tuner.h"
#endif
extern "C" {
#include "tuner/plugin/nccl_abi.h"
}
#define SAME(a, b) static_assert(sizeof(a) == sizeof(b) && alignof(a) == alignof(b), #a)
#define OFF(a, b, m) static_assert(offsetof(a, m) == offsetof(b, m), #a "." #m)
static_assert(sizeof(ncclResult_t) == sizeof(int) && sizeof(ncclFunc_t) == sizeof(int) &&
              sizeof(ncclDebugLogLevel) == sizeof(int), "NCCL's enums are int-sized");
static_assert(NCCL_ALGO_TREE == 0 && NCCL_ALGO_RING == 1 && NCCL_ALGO_COLLNET_DIRECT == 2 &&
              NCCL_ALGO_COLLNET_CHAIN == 3 && NCCL_ALGO_NVLS == 4 && NCCL_ALGO_NVLS_TREE == 5 &&
              NCCL_ALGO_PAT == 6 && NCCL_NUM_ALGORITHMS == CB_NCCL_NUM_ALGORITHMS, "algorithms");
static_assert(NCCL_PROTO_LL == 0 && NCCL_PROTO_LL128 == 1 && NCCL_PROTO_SIMPLE == 2 &&
              NCCL_NUM_PROTOCOLS == CB_NCCL_NUM_PROTOCOLS, "protocols");
static_assert(NCCL_ALGO_PROTO_IGNORE == CB_NCCL_ALGO_PROTO_IGNORE, "NCCL_ALGO_PROTO_IGNORE");
static_assert(ncclFuncBroadcast == 0 && ncclFuncReduce == 1 && ncclFuncAllGather == 2 &&
              ncclFuncReduceScatter == 3 && ncclFuncAllReduce == 4, "ncclFunc_t");
static_assert((int)NCCL_LOG_WARN == CB_NCCL_LOG_WARN && (int)NCCL_LOG_INFO == CB_NCCL_LOG_INFO &&
              NCCL_TUNING == CB_NCCL_SUBSYS_TUNING, "log levels, NCCL_TUNING");
static_assert(std::is_same_v<ncclDebugLogger_t, void (*)(ncclDebugLogLevel, unsigned long,
                                                         const char *, int, const char *, ...)>,
              "ncclDebugLogger_t");
static_assert(std::is_same_v<cb_nccl_logger_t,
                             void (*)(int, unsigned long, const char *, int, const char *, ...)>,
              "cb_nccl_logger_t");
using gci = ncclResult_t (*)(void *, ncclFunc_t, size_t, int, float **, int, int, int, int *);
static_assert(std::is_same_v<cb_nccl_get_coll_info_fn,
                             int (*)(void *, int, size_t, int, float **, int, int, int, int *)>,
              "cb_nccl_get_coll_info_fn");
SAME(ncclTuner_v4_t, cb_nccl_tuner_v4);
OFF(ncclTuner_v4_t, cb_nccl_tuner_v4, name);
OFF(ncclTuner_v4_t, cb_nccl_tuner_v4, init);
OFF(ncclTuner_v4_t, cb_nccl_tuner_v4, getCollInfo);
OFF(ncclTuner_v4_t, cb_nccl_tuner_v4, destroy);
static_assert(std::is_same_v<decltype(ncclTuner_v4_t::init),
                             ncclResult_t (*)(size_t, size_t, ncclDebugLogger_t, void **)>,
              "v4 init");
static_assert(std::is_same_v<decltype(ncclTuner_v4_t::getCollInfo), gci>, "v4 getCollInfo");
static_assert(std::is_same_v<decltype(ncclTuner_v4_t::destroy), ncclResult_t (*)(void *)>,
              "v4 destroy");
#ifdef HAVE_V5
SAME(ncclTuner_v5_t, cb_nccl_tuner_v5);
OFF(ncclTuner_v5_t, cb_nccl_tuner_v5, name);
OFF(ncclTuner_v5_t, cb_nccl_tuner_v5, init);
OFF(ncclTuner_v5_t, cb_nccl_tuner_v5, getCollInfo);
OFF(ncclTuner_v5_t, cb_nccl_tuner_v5, finalize);
SAME(ncclNvlDomainInfo_v5_t, cb_nccl_nvl_domain_info_v5);
OFF(ncclNvlDomainInfo_v5_t, cb_nccl_nvl_domain_info_v5, minRanksPerNvlDomain);
OFF(ncclNvlDomainInfo_v5_t, cb_nccl_nvl_domain_info_v5, maxRanksPerNvlDomain);
SAME(ncclTunerConstants_v5_t, cb_nccl_tuner_constants_v5);
OFF(ncclTunerConstants_v5_t, cb_nccl_tuner_constants_v5, hwLatencies);
OFF(ncclTunerConstants_v5_t, cb_nccl_tuner_constants_v5, llMaxBws);
OFF(ncclTunerConstants_v5_t, cb_nccl_tuner_constants_v5, perChMaxRingLL128Bws);
OFF(ncclTunerConstants_v5_t, cb_nccl_tuner_constants_v5, perChMaxTreeLL128Bws);
OFF(ncclTunerConstants_v5_t, cb_nccl_tuner_constants_v5, perChMaxTreeBws);
OFF(ncclTunerConstants_v5_t, cb_nccl_tuner_constants_v5, perChMaxNVLSTreeBws);
static_assert(std::is_same_v<decltype(ncclTuner_v5_t::init),
                             ncclResult_t (*)(void **, uint64_t, size_t, size_t, ncclDebugLogger_t,
                                              ncclNvlDomainInfo_v5_t *, ncclTunerConstants_v5_t *)>,
              "v5 init");
static_assert(std::is_same_v<decltype(ncclTuner_v5_t::getCollInfo), gci>, "v5 getCollInfo");
static_assert(std::is_same_v<decltype(ncclTuner_v5_t::finalize), ncclResult_t (*)(void *)>,
              "v5 finalize");
#endif
#ifdef HAVE_V6
SAME(ncclTuner_v6_t, cb_nccl_tuner_v6);
OFF(ncclTuner_v6_t, cb_nccl_tuner_v6, name);
OFF(ncclTuner_v6_t, cb_nccl_tuner_v6, init);
OFF(ncclTuner_v6_t, cb_nccl_tuner_v6, getCollInfo);
OFF(ncclTuner_v6_t, cb_nccl_tuner_v6, finalize);
OFF(ncclTuner_v6_t, cb_nccl_tuner_v6, getChunkSize);
static_assert(std::is_same_v<decltype(ncclTuner_v6_t::init),
                             ncclResult_t (*)(void **, uint64_t, size_t, size_t, ncclDebugLogger_t,
                                              ncclNvlDomainInfo_v6_t *, ncclTunerConstants_v6_t *)>,
              "v6 init");
static_assert(std::is_same_v<ncclNvlDomainInfo_v6_t, ncclNvlDomainInfo_v5_t> &&
                  std::is_same_v<ncclTunerConstants_v6_t, ncclTunerConstants_v5_t>,
              "v6 constants and NVL domain info are v5's");
static_assert(std::is_same_v<decltype(ncclTuner_v6_t::getCollInfo), gci>, "v6 getCollInfo");
static_assert(std::is_same_v<decltype(ncclTuner_v6_t::getChunkSize),
                             ncclResult_t (*)(void *, ncclFunc_t, size_t, int, int, int, size_t *)>,
              "v6 getChunkSize");
#endif
CC
rc=0
for tag in "$@"; do
  d=$tmp/$tag
  mkdir -p "$d/plugin/tuner"
  if ! git -C "$repo" show "$tag:src/include/nccl_common.h" >"$d/nccl_common.h" 2>"$tmp/err"; then
    echo "$tag: $(head -n 1 "$tmp/err")"; rc=1; continue
  fi
  git -C "$repo" show "$tag:src/include/plugin/nccl_tuner.h" >"$d/plugin/nccl_tuner.h" 2>/dev/null ||
    { rm -f "$d/plugin/nccl_tuner.h"; git -C "$repo" show "$tag:src/include/nccl_tuner.h" >"$d/nccl_tuner.h"; }
  for v in 2 3 4 5 6; do
    git -C "$repo" show "$tag:src/include/plugin/tuner/tuner_v$v.h" >"$d/plugin/tuner/tuner_v$v.h" \
      2>/dev/null || rm -f "$d/plugin/tuner/tuner_v$v.h"
  done
  v5= v6=
  [ -f "$d/plugin/tuner/tuner_v5.h" ] && v5=-DHAVE_V5
  [ -f "$d/plugin/tuner/tuner_v6.h" ] && v6=-DHAVE_V6
  if g++ -std=c++17 -fsyntax-only $v5 $v6 -I"$d" -I"$inc" -I"$root" "$tmp/check.cc" 2>"$tmp/log"; then
    echo "$tag: v4${v5:+, v5}${v6:+, v6} match nccl_abi.h"
  else
    echo "$tag: MISMATCH"; grep -m 5 'error' "$tmp/log"; rc=1
  fi
done
exit $rc
