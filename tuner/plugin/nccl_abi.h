/* NCCL's tuner plugin interface, declared here from NCCL's sources (none of
 * NCCL's files is included or copied: the plugin builds without them and
 * loads into any NCCL from 2.24 on).
 *
 * How NCCL finds a tuner: NCCL_TUNER_PLUGIN=collbench makes it dlopen
 * "libnccl-tuner-collbench.so" from the library path (a path to the .so works
 * too), then dlsym the newest symbol it knows (src/plugin/tuner.cc,
 * src/misc/tuner.cc before 2.26):
 *   NCCL 2.30          ncclTunerPlugin_v6, then _v5, _v4, _v3, _v2
 *   NCCL 2.28, 2.29    ncclTunerPlugin_v5, then _v4, _v3, _v2
 *   NCCL 2.24 .. 2.27  ncclTunerPlugin_v4, then _v3, _v2
 * so exporting v6, v5 and v4 serves every NCCL collbench supports (configure
 * refuses NCCL older than 2.24).
 *
 * Each layout below was checked against NCCL's source at these tags
 * (github.com/NVIDIA/nccl):
 * - struct cb_nccl_tuner_v5, cb_nccl_nvl_domain_info_v5,
 *   cb_nccl_tuner_constants_v5: src/include/plugin/tuner/tuner_v5.h at
 *   v2.28.9-1 (member order, types, the 7 x 3 x 3 x 4 x 3 array sizes).
 *   NCCL calls init(&ctx, commHash, nRanks, nNodes, ncclDebugLog,
 *   &nvlDomainInfo, &tunerConstants) (src/init.cc) and finalize(ctx).
 * - struct cb_nccl_tuner_v6: src/include/plugin/tuner/tuner_v6.h at
 *   v2.30.3-1 .. v2.30.7-1 (first in 2.30.3): v5's members, the same init
 *   arguments (its constants and NVL domain info are v5's typedefs), then
 *   getChunkSize(ctx, collType, nBytes, algorithm, protocol, nChannels,
 *   &chunkSize), which NCCL calls once the algorithm, protocol and channels
 *   are chosen, with the chunk size it computed, clamps the result to its
 *   buffer's maximum, then rounds it down to the protocol's grain
 *   (NCCLCHECK'd: it must not fail; src/enqueue.cc, src/include/device.h
 *   ncclProtoGrainSize: LL 16, LL128 1920, Simple 512 bytes, v2.30.7-1).
 *   NCCL calls it per channel part (nChannels 1, the part's bytes:
 *   src/enqueue.cc:717-737 at v2.30.7-1), after getCollInfo saw the
 *   whole collective.
 * - struct cb_nccl_tuner_v4: src/include/plugin/tuner/tuner_v4.h at
 *   v2.26.2-1 .. v2.28.9-1, and the v4 struct in src/include/nccl_tuner.h at
 *   v2.24.3-1 and v2.25.1-1 (same members); NCCL calls
 *   init(nRanks, nNodes, ncclDebugLog, &ctx) (src/init.cc at v2.27.7-1).
 * - The cost table: NCCL declares float collCostTable[NCCL_NUM_ALGORITHMS]
 *   [NCCL_NUM_PROTOCOLS] on the stack and passes it cast to float**
 *   (src/enqueue.cc, topoGetAlgoInfo's caller, v2.28.9-1); NCCL's own v2
 *   adapter (src/plugin/tuner/tuner_v2.cc) indexes it back as
 *   float (*)[NCCL_NUM_PROTOCOLS]. So it is numAlgo rows of numProto floats,
 *   not an array of pointers; -1.0 (NCCL_ALGO_PROTO_IGNORE) marks a choice
 *   NCCL cannot make. A non-zero *nChannels replaces NCCL's channel count.
 *   (NCCL's example tuner plugin indexed it as float** rows up to 2.29,
 *   fixed in 2.30: tuner/plugin/RULES.md.)
 * - Algorithm and protocol numbers (NCCL_ALGO_*, NCCL_PROTO_*):
 *   src/include/nccl_common.h at v2.24.3-1 .. v2.27.7-1, and
 *   src/include/plugin/nccl_tuner.h at v2.28.9-1, the same numbers.
 * - ncclFunc_t, ncclResult_t, the log levels, NCCL_TUNING and the logger's
 *   signature: src/include/nccl_common.h (and src/nccl.h.in for
 *   ncclResult_t) at v2.24.3-1, v2.25.1-1, v2.26.2-1, v2.27.7-1 and
 *   v2.28.9-1: identical in all five for what is used here.
 * scripts/check-tuner-abi.sh NCCL_GIT_DIR checks all of the above at compile
 * time (sizes, alignments, offsets, exact signatures, numbers) against
 * NCCL's own headers at each tag; it passes for v2.24.3-1, v2.25.1-1,
 * v2.26.2-1, v2.27.7-1 (v4) and v2.28.9-1 (v4 and v5).
 * tests/unit/test_nccl_tuner.c loads the built plugin by these names and
 * drives it through these layouts. */
#ifndef CB_NCCL_ABI_H
#define CB_NCCL_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ncclResult_t: an int-sized enum; only success is returned here */
typedef int cb_nccl_result_t;
enum { CB_NCCL_SUCCESS = 0 };

/* ncclDebugLogLevel */
enum { CB_NCCL_LOG_WARN = 2, CB_NCCL_LOG_INFO = 3 };
/* ncclDebugLogSubSys: NCCL_DEBUG_SUBSYS=TUNING */
#define CB_NCCL_SUBSYS_TUNING 0x40UL

/* ncclDebugLogger_t (level is the ncclDebugLogLevel enum, int-sized) */
typedef void (*cb_nccl_logger_t)(int level, unsigned long flags, const char *file, int line,
                                 const char *fmt, ...);

/* ncclFunc_t: 0 broadcast, 1 reduce, 2 allgather, 3 reducescatter,
 * 4 allreduce; later values (send/recv, alltoall...) never reach a tuner
 * with a choice to make, and get no rule here. */
typedef int cb_nccl_func_t;

/* NCCL_ALGO_* (0 tree .. 6 pat) and NCCL_PROTO_* (0 LL, 1 LL128, 2 Simple):
 * src/include/plugin/nccl_tuner.h at v2.28.9-1, src/include/nccl_common.h at
 * v2.24.3-1 .. v2.27.7-1 (scripts/check-tuner-abi.sh asserts them) */
#define CB_NCCL_NUM_ALGORITHMS 7
#define CB_NCCL_NUM_PROTOCOLS 3
#define CB_NCCL_ALGO_PROTO_IGNORE (-1.0f)

typedef struct {
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
} cb_nccl_nvl_domain_info_v5;

/* NCCL_NUM_HW_LINKS_V5 3, NCCL_NUM_COMPCAPS_V5 4, NCCL_NUM_TUNING_SCALES_V5 3.
 * Only passed through: this plugin changes no constant. */
typedef struct {
  double baseLatencies[7][3];
  double hwLatencies[3][7][3];
  double llMaxBws[4][3];
  double perChMaxRingLL128Bws[4][3];
  double perChMaxTreeLL128Bws[4][3];
  double perChMaxTreeBws[4][3];
  double perChMaxNVLSTreeBws[4][3];
} cb_nccl_tuner_constants_v5;

typedef cb_nccl_result_t (*cb_nccl_get_coll_info_fn)(void *context, cb_nccl_func_t collType,
                                                     size_t nBytes, int numPipeOps,
                                                     float **collCostTable, int numAlgo,
                                                     int numProto, int regBuff, int *nChannels);

/* ncclTuner_v5_t */
typedef struct {
  const char *name;
  cb_nccl_result_t (*init)(void **context, uint64_t commId, size_t nRanks, size_t nNodes,
                           cb_nccl_logger_t logFunction, cb_nccl_nvl_domain_info_v5 *nvlDomainInfo,
                           cb_nccl_tuner_constants_v5 *constants);
  cb_nccl_get_coll_info_fn getCollInfo;
  cb_nccl_result_t (*finalize)(void *context);
} cb_nccl_tuner_v5;

/* ncclTuner_v4_t: the same getCollInfo; init without commId and the v5
 * structs, context last; "destroy" instead of "finalize". */
typedef struct {
  const char *name;
  cb_nccl_result_t (*init)(void **context, uint64_t commId, size_t nRanks, size_t nNodes,
                           cb_nccl_logger_t logFunction, cb_nccl_nvl_domain_info_v5 *nvlDomainInfo,
                           cb_nccl_tuner_constants_v5 *constants);
  cb_nccl_get_coll_info_fn getCollInfo;
  cb_nccl_result_t (*finalize)(void *context);
  cb_nccl_result_t (*getChunkSize)(void *context, cb_nccl_func_t collType, size_t nBytes,
                                   int algorithm, int protocol, int nChannels, size_t *chunkSize);
} cb_nccl_tuner_v6;

typedef struct {
  const char *name;
  cb_nccl_result_t (*init)(size_t nRanks, size_t nNodes, cb_nccl_logger_t logFunction,
                           void **context);
  cb_nccl_get_coll_info_fn getCollInfo;
  cb_nccl_result_t (*destroy)(void *context);
} cb_nccl_tuner_v4;

/* The symbols NCCL dlsym()s (NCCL_TUNER_PLUGIN_SYMBOL and the older names
 * in src/plugin/tuner/tuner_v4.cc, tuner_v5.cc). */
#define CB_NCCL_TUNER_SYMBOL_V6 "ncclTunerPlugin_v6"
#define CB_NCCL_TUNER_SYMBOL_V5 "ncclTunerPlugin_v5"
#define CB_NCCL_TUNER_SYMBOL_V4 "ncclTunerPlugin_v4"

#endif
