/* The executor of a parallel layout's step (layout.h's events) on the
 * host: a communicator per dimension split from the world, non-blocking
 * MPI for every op, OpenBLAS GEMMs of each compute's FLOPs, the library
 * given the CPU between GEMMs. Each round times, between barriers, the
 * step without communication (T_compute) and the full step (T_step), and
 * on every rank the time spent starting and waiting on each dimension's
 * ops: that dimension's exposed communication is the slowest rank's (one
 * thread waits on one op at a time, so a wait belongs to the op it waits
 * for; the step's end waits for what is left in issue order). */
#ifndef CB_LAYOUT_STEP_H
#define CB_LAYOUT_STEP_H

#include "base/stats.h"
#include "layout.h"
#include "ops/skew.h"
#include "results/overhead.h"
#include "runtime/cluster.h"

struct cb_layout_result {
  struct cb_stats step, compute, rho; /* seconds; rho paired per round */
  struct cb_overhead overhead;
  int used[CB_NDIMS];              /* dimensions with a communicator of 2+ ranks */
  struct cb_stats wait[CB_NDIMS];  /* seconds a step the slowest rank waited */
  struct cb_stats share[CB_NDIMS]; /* wait / T_step, per round */
  int calls[CB_NDIMS][CB_NEV_OPS]; /* rank 0's, per step */
  double flops;                    /* rank 0's, per step */
};

/* skew: the ep dispatch's (NULL: uniform). threads: BLAS threads a rank.
 * reps rounds after one warm-up; every rank returns the same status. */
int cb_layout_step_run(const struct cb_cluster *cl, const struct cb_model *m,
                       const struct cb_layout *l, struct cb_skew *skew, int threads, int reps,
                       struct cb_layout_result *res, struct cb_error *err);

#endif
