/* What to run: the parsed form of the command line, which the engine reads
 * and the tuner or acceptance mode can fill in themselves. */
#ifndef CB_SETTINGS_H
#define CB_SETTINGS_H

#include <stdint.h>

#include "base/dtype.h"
#include "runtime/memory.h"
#include "runtime/parallel.h"

#define CB_MAX_LIST 16
#define CB_MAX_OPS 16 /* at least CB_NOPS (ops.c asserts it): the ops sit above */
#define CB_MAX_SIZES 1024
#define CB_MAX_CONCURRENT 4 /* --concurrent's ops */

enum cb_timing_kind { CB_TIMING_THROUGHPUT, CB_TIMING_LATENCY };
extern const char *const cb_timing_names[];

/* --stat: the statistic time_us, the table, algbw and busbw show. */
enum cb_stat { CB_STAT_MEDIAN, CB_STAT_MEAN, CB_STAT_MIN, CB_NSTATS };
extern const char *const cb_stat_names[];
int cb_stat_find(const char *name); /* -1: none such */

/* --variant: which of an op's buffers layouts each size measures. */
enum cb_variant { CB_VARIANT_BOTH, CB_VARIANT_OUT_OF_PLACE, CB_VARIANT_IN_PLACE, CB_NVARIANTS };
extern const char *const cb_variant_names[];

/* --register: nccl-tests' -R 0/1/2. The nccl backend's device buffers from
 * ncclMemAlloc, registered with ncclCommRegister (local) or as windows for
 * NCCL's symmetric kernels (ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC). */
enum cb_register { CB_REGISTER_NONE, CB_REGISTER_LOCAL, CB_REGISTER_SYMMETRIC, CB_NREGISTERS };
extern const char *const cb_register_names[];

struct cb_skew; /* ops/skew.h, which sits above */

struct cb_settings {
  int ops[CB_MAX_OPS], nops;
  struct cb_skew *skew; /* --skew: alltoallv's matrix, bound to the rank count by the engine;
                           NULL: uniform */
  /* --concurrent OP@DIM,...: these ops at once, each on its --parallel
   * dimension's communicator (nconcurrent 0: none; then ops[] runs) */
  struct cb_parallel parallel;
  int nconcurrent;
  int concurrent_op[CB_MAX_CONCURRENT], concurrent_dim[CB_MAX_CONCURRENT];
  int backends[CB_MAX_LIST], nbackends;
  int skipped_backends[CB_MAX_LIST], nskipped_backends; /* --sweep left these out: unusable */
  int mems[CB_NMEMS], nmems;
  const char *transports[CB_MAX_LIST];
  int ntransports;
  int dtypes[CB_NDTYPES], ndtypes;
  int redops[CB_NREDOPS], nredops;
  uint64_t min_bytes, max_bytes, step_bytes; /* step_bytes 0: multiply */
  long step_factor;
  long iters;  /* 0: auto (until --precision or --max-time) */
  long warmup; /* untimed iterations per size; -1: automatic */
  long check;  /* checked iterations per size; 0 disables */
  double precision, timeout;
  double max_time; /* auto-mode budget per size, shared by its variants */
  int timing;      /* --timing: enum cb_timing_kind */
  int window, root;
  uint64_t window_bytes;                /* a window carries at most this much (>= 1 message) */
  const char *ib_dev;                   /* verbs: "mlx5_0:1"; NULL: chosen per rank */
  int gid_index;                        /* verbs on RoCE: -1 chooses RoCE v2 IPv4 */
  int ucx_put;                          /* ucx: p2p_bw/p2p_bibw with RMA put, not tag sends */
  int progress;                         /* progress line on stderr */
  int gpu_list[CB_MAX_LIST], ngpu_list; /* --gpu-list: device by local rank; 0: local rank */
  int share_gpu;                        /* --share-gpu: every rank on one GPU (NCCL's network) */
  long graph;         /* --graph N: N ops per CUDA graph launch (nccl); 0: direct calls */
  int rotate;         /* --rotate: each timed call on the next slice of CB_ROTATE_SPAN */
  int reg;            /* --register: enum cb_register */
  int stat;           /* enum cb_stat: what time_us is (default median) */
  int variant;        /* enum cb_variant: both (default, as nccl-tests) or one */
  double duration;    /* --duration: a burn-in of passes until this many seconds; 0: one pass */
  double drift_limit; /* --drift-limit: the slowdown over a burn-in that fails; 0: 10% */
  /* the burn-in's pass (1, 2, ...) and its wall-clock start (Unix seconds),
   * set before each pass and copied into its records; 0 outside a burn-in */
  int interval;
  double interval_start;
};

/* --max-time per size when --sweep runs and none is given (seconds). */
#define CB_SWEEP_MAX_TIME 0.15

/* Messages in one p2p window for messages of `bytes`: --window, fewer
 * when the window would carry more than --window-bytes, at least one. */
int cb_settings_window(const struct cb_settings *s, uint64_t bytes);

/* The sizes a sweep visits, ascending; returns how many (at most max). */
int cb_settings_sizes(const struct cb_settings *s, uint64_t *sizes, int max);

#endif
