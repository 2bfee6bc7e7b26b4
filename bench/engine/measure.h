/* Timing one op at one size: warm-up, then samples until the median is
 * precise enough or the time budget is spent. Every rank takes the same
 * decisions because every decision uses values reduced over all ranks. */
#ifndef CB_MEASURE_H
#define CB_MEASURE_H

#include "backends/backend.h"
#include "base/stats.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"

struct cb_measure {
  const struct cb_cluster *cl;
  const struct cb_backend *backend;
  void *ctx;
  const struct cb_op_args *args;
  const struct cb_settings *settings;
  double timer_overhead; /* seconds per cb_now() pair */
  double budget;         /* seconds this measurement may take in auto mode */
  /* --rotate: call i runs on send and recv moved by rotate_stride x
   * (i mod rotate_slots), *rotate_at counting the calls (nccl-tests'
   * startColl, src/common.cu at v2.19.6); slots <= 1: one buffer */
  size_t rotate_stride;
  long rotate_slots, *rotate_at;
};

/* --rotate's span: past a GPU's L2 (50 MiB on H100) and most CPUs' last
 * level, so a call finds none of its slice cached by the one before */
#define CB_ROTATE_SPAN ((size_t)256 << 20)
#define CB_ROTATE_ALIGN 4096

struct cb_timing {
  struct cb_stats stats; /* seconds per run() call; ci95 as cb_block_ci95 widens it */
  long iters;            /* run() calls timed */
  long samples;
  double device_median;      /* seconds per run() by the device's clock; 0: none */
  long batch_min, batch_max; /* run() calls per timed sample (the batch sizes used) */
  int precise;               /* auto mode: the CI reached --precision (fixed counts: 1) */
  /* seconds per run(): total timed over iters, the anchors' mean (stats.h
   * cb_run_mean) */
  double mean_per_iter;
};

/* Fewest samples, and least timed time per variant and size, before the
 * confidence interval may stop sampling: eight samples of a few
 * microseconds say nothing about the next second. */
#define CB_MIN_SAMPLES 20
/* The fewest samples that carry a 95% interval of the median: the range
 * of n samples covers it with probability 1 - 2^(1-n), 97% at 6, 94% at 5.
 * A figure from fewer has no interval (its record's ci95_us is null) and
 * is marked noisy. Auto mode samples on past --max-time to reach them, up
 * to CB_CI_OVERRUN times the budget, so a size whose single run outlasts
 * its budget still gets an interval where it can. */
#define CB_CI_MIN_SAMPLES 6
#define CB_CI_OVERRUN 4.0
#define CB_MIN_TIMED_SECONDS 0.02
/* A throughput batch lasts about this long, so the clock and the barrier
 * around it (its exit skew is microseconds) cost well under 1% of it. */
#define CB_BATCH_SECONDS 5e-4
/* ...and holds at least this many runs in throughput mode, so a slow
 * sample cannot shrink batches to one op that carries the barrier's skew. */
#define CB_MIN_BATCH 4
/* ...unless one run lasts this long: then it is a sample alone. */
#define CB_SOLO_SECONDS 2e-3
#define CB_MAX_BATCH 4096
#define CB_MAX_SAMPLES 100000
/* Automatic warm-up: the first call alone (lazy connection set-up in NCCL
 * and MPI), then more for up to this long or this share of the budget,
 * whichever is less (caches, page faults are warm within milliseconds). */
#define CB_WARMUP_SHARE 0.02
#define CB_WARMUP_SECONDS 2e-3
#define CB_MAX_WARMUP 1000
/* Blocks of consecutive samples whose medians give the CI (cb_block_ci95). */
#define CB_CI_BLOCKS 10

/* Auto mode (settings iters 0): warm-up, then batches until the CI of the
 * median is within --precision (after CB_MIN_SAMPLES and
 * CB_MIN_TIMED_SECONDS) or the budget is spent. Fixed counts (-n N) time as
 * nccl-tests does: -w M warm-up runs, then one batch of N back to back
 * (latency mode: N samples of one). */
int cb_measure_run(const struct cb_measure *m, struct cb_timing *out, struct cb_error *err);

/* Half-width of a 95% CI of the median from `blocks` consecutive blocks of
 * samples in time order: Student's t over the block medians (the
 * batch-means method). Samples of one run drift together (frequency, cache
 * and scheduler states last longer than a sample), so treating them as
 * independent, as order statistics do, claims a precision that the next run
 * does not bear out; block medians vary with that drift. 0 when there are
 * fewer than two samples per block. */
double cb_block_ci95(const double *in_order, long n, int blocks);

#endif
