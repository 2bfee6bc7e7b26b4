/* --concurrent OP@DIM,...: the listed ops at once, each on its --parallel
 * dimension's communicator, as a training job's tensor-, data- and
 * expert-parallel traffic shares links and NICs; and each op alone. Every
 * round runs the ops together and each alone, in an order that rotates, so
 * a machine's drift falls on both; each op's time is the slowest rank's,
 * from a common barrier to the op's completion. One series per op: its
 * records hold the time together (time_us...), alone (time_us_alone) and
 * the paired slowdown; results are checked exactly, all ops at once. */
#ifndef CB_CONCURRENT_H
#define CB_CONCURRENT_H

#include "backends/backend.h"
#include "output/sink.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"

/* Rounds per size when --iters is not given: until --max-time, at least
 * CB_CI_MIN_SAMPLES, at most this many. */
#define CB_CONCURRENT_MAX_ROUNDS 2000

/* Measures s's concurrent ops on a started backend, memory kind mem and
 * dtype, at each size; feeds the sinks on rank 0 and adds to sum. */
int cb_concurrent_run(const struct cb_cluster *cl, const struct cb_settings *s,
                      const struct cb_backend *be, void *ctx, int mem, int dtype,
                      const uint64_t *sizes, int nsizes, struct cb_sink *sinks, int nsinks,
                      struct cb_summary *sum, struct cb_error *err);

#endif
