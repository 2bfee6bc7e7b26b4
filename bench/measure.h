/* Timing one op at one size: warm-up, then samples until the median is
 * precise enough or the time budget is spent. Every rank takes the same
 * decisions because every decision uses values reduced over all ranks. */
#ifndef CB_MEASURE_H
#define CB_MEASURE_H

#include "backend.h"
#include "cluster.h"
#include "settings.h"
#include "stats.h"

struct cb_measure {
  const struct cb_cluster *cl;
  const struct cb_backend *backend;
  void *ctx;
  const struct cb_op_args *args;
  const struct cb_settings *settings;
  double timer_overhead; /* seconds per cb_now() pair */
  double budget;         /* seconds this measurement may take in auto mode */
};

struct cb_timing {
  struct cb_stats stats; /* seconds per run() call */
  long iters;            /* run() calls timed */
  long samples;
  double device_median; /* seconds per run() by the device's clock; 0: none */
  /* seconds per run(): total timed over iters, the anchors' mean (stats.h
   * cb_run_mean; issue 17 item 3) */
  double mean_per_iter;
};

/* Fewest samples before the confidence interval may stop sampling. */
#define CB_MIN_SAMPLES 8
/* A throughput batch lasts about this long, so the clock and the barrier
 * around it cost well under 1% of it. */
#define CB_BATCH_SECONDS 2e-4
#define CB_MAX_BATCH 4096
#define CB_MAX_SAMPLES 100000
/* Automatic warm-up: at least one iteration, then more for up to this long
 * or this share of the budget, whichever is less (caches, page faults,
 * connection set-up are warm within a few milliseconds). */
#define CB_WARMUP_SHARE 0.02
#define CB_WARMUP_SECONDS 2e-3
#define CB_MAX_WARMUP 1000

int cb_measure_run(const struct cb_measure *m, struct cb_timing *out, struct cb_error *err);

#endif
