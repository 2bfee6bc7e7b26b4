/* NCCL's profiler plugin interface, as much of it as collbench's profiler
 * reads, declared here from NCCL's sources (none of NCCL's files is
 * included or copied; the plugin links libc only).
 *
 * NCCL_PROFILER_PLUGIN=PATH makes NCCL dlopen the plugin and dlsym the
 * newest symbol it knows (src/plugin/profiler.cc): 2.29 to 2.30
 * ncclProfiler_v6; 2.28 _v5, then _v4 .. _v1; 2.27 _v4 first; 2.26 _v3;
 * 2.24 and 2.25 _v2 (the symbols each tag's source names). Checked against
 * NCCL's source (github.com/NVIDIA/nccl):
 * - ncclProfiler_v6_t: src/include/plugin/profiler/profiler_v6.h at
 *   v2.29.7-1: v5's init and entry points; its descriptor keeps v5's
 *   header and coll member (the union gains copy-engine members, which
 *   collbench never asks for), so v5's declarations serve it.
 * - ncclProfiler_v5_t and ncclProfilerEventDescr_v5_t:
 *   src/include/plugin/profiler/profiler_v5.h at v2.28.9-1. init(&ctx,
 *   commId, &eActivationMask, commName, nNodes, nranks, rank, logfn).
 * - ncclProfiler_v4_t and ncclProfilerEventDescr_v4_t: profiler_v4.h at
 *   v2.27.7-1 and v2.28.9-1. init(&ctx, &eActivationMask, commName,
 *   commHash, nNodes, nranks, rank, logfn); its `type` is a uint8_t.
 * - The event types (ncclProfileColl = 1 << 1) and the descriptor's layout
 *   up to coll.proto: type, parentObj, rank, then a union whose coll member
 *   is seqNumber, func, sendBuff, recvBuff, count, root, datatype,
 *   nChannels, nWarps, algo, proto (v5 adds parentGroup after it), the same
 *   offsets in v4 and v5 on LP64. algo and proto are NCCL's names ("RING",
 *   "NVLS_TREE", "SIMPLE": ncclAlgoToString and ncclProtoToString in
 *   src/collectives.cc at v2.28.9-1; NCCL_ALGO spells them Ring, NVLSTree).
 * - ncclProfiler_v3_t: profiler_v3.h at v2.26.6-1; ncclProfiler_v2_t:
 *   src/include/nccl_profiler.h at v2.24.3-1 and v2.25.1-1. init(&ctx,
 *   &eActivationMask); a uint8_t type; the coll member starts with name and
 *   commHash, v2 has trafficBytes after datatype, and both count
 *   nMaxChannels (the most channels the collective may use), not nChannels.
 * Only the coll member of the union is declared: the plugin reads, never
 * copies, NCCL's descriptors, and asks NCCL for coll events alone. */
#ifndef CB_PROFILER_ABI_H
#define CB_PROFILER_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int cbp_result_t;
enum { CBP_SUCCESS = 0 };
enum { CBP_PROFILE_COLL = 1 << 1 };
typedef void (*cbp_logger_t)(int level, unsigned long flags, const char *file, int line,
                             const char *fmt, ...);

struct cbp_coll_descr {
  uint64_t seqNumber;
  const char *func;
  const void *sendBuff;
  void *recvBuff;
  size_t count;
  int root;
  const char *datatype;
  uint8_t nChannels;
  uint8_t nWarps;
  const char *algo;
  const char *proto;
};

typedef struct {
  uint64_t type;
  void *parentObj;
  int rank;
  union {
    struct cbp_coll_descr coll;
  };
} cbp_event_descr_v5;

typedef struct {
  uint8_t type;
  void *parentObj;
  int rank;
  union {
    struct cbp_coll_descr coll;
  };
} cbp_event_descr_v4;

struct cbp_coll_descr_v3 {
  const char *name;
  uint64_t commHash;
  uint64_t seqNumber;
  const char *func;
  const void *sendBuff;
  void *recvBuff;
  size_t count;
  int root;
  const char *datatype;
  uint8_t nMaxChannels;
  uint8_t nWarps;
  const char *algo;
  const char *proto;
};

struct cbp_coll_descr_v2 {
  const char *name;
  uint64_t commHash;
  uint64_t seqNumber;
  const char *func;
  const void *sendBuff;
  void *recvBuff;
  size_t count;
  int root;
  const char *datatype;
  size_t trafficBytes;
  uint8_t nMaxChannels;
  uint8_t nWarps;
  const char *algo;
  const char *proto;
};

typedef struct {
  uint8_t type;
  void *parentObj;
  int rank;
  union {
    struct cbp_coll_descr_v3 coll;
  };
} cbp_event_descr_v3;

typedef struct {
  uint8_t type;
  void *parentObj;
  int rank;
  union {
    struct cbp_coll_descr_v2 coll;
  };
} cbp_event_descr_v2;

typedef struct {
  const char *name;
  cbp_result_t (*init)(void **context, uint64_t commId, int *eActivationMask, const char *commName,
                       int nNodes, int nranks, int rank, cbp_logger_t logfn);
  cbp_result_t (*startEvent)(void *context, void **eHandle, cbp_event_descr_v5 *eDescr);
  cbp_result_t (*stopEvent)(void *eHandle);
  cbp_result_t (*recordEventState)(void *eHandle, int eState, void *eStateArgs);
  cbp_result_t (*finalize)(void *context);
} cbp_profiler_v5;

typedef struct {
  const char *name;
  cbp_result_t (*init)(void **context, int *eActivationMask, const char *commName,
                       uint64_t commHash, int nNodes, int nranks, int rank, cbp_logger_t logfn);
  cbp_result_t (*startEvent)(void *context, void **eHandle, cbp_event_descr_v4 *eDescr);
  cbp_result_t (*stopEvent)(void *eHandle);
  cbp_result_t (*recordEventState)(void *eHandle, int eState, void *eStateArgs);
  cbp_result_t (*finalize)(void *context);
} cbp_profiler_v4;

typedef struct {
  const char *name;
  cbp_result_t (*init)(void **context, int *eActivationMask);
  cbp_result_t (*startEvent)(void *context, void **eHandle, cbp_event_descr_v3 *eDescr);
  cbp_result_t (*stopEvent)(void *eHandle);
  cbp_result_t (*recordEventState)(void *eHandle, int eState, void *eStateArgs);
  cbp_result_t (*finalize)(void *context);
} cbp_profiler_v3;

typedef struct {
  const char *name;
  cbp_result_t (*init)(void **context, int *eActivationMask);
  cbp_result_t (*startEvent)(void *context, void **eHandle, cbp_event_descr_v2 *eDescr);
  cbp_result_t (*stopEvent)(void *eHandle);
  cbp_result_t (*recordEventState)(void *eHandle, int eState, void *eStateArgs);
  cbp_result_t (*finalize)(void *context);
} cbp_profiler_v2;

#endif
