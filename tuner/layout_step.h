/* The executor of a parallel layout's step (layout.h's events) on the
 * host: a communicator per dimension split from the world, non-blocking
 * MPI for every op (each communicator its own algorithms), OpenBLAS GEMMs of each compute's FLOPs,
 * the library given the CPU between GEMMs. Each round times, between barriers, the step without
 * communication (T_compute) and the full step (T_step), and on every rank the time spent starting
 * and waiting on each dimension's ops: that dimension's exposed communication is the slowest rank's
 * (one thread waits on one op at a time, so a wait belongs to the op it waits for; the step's end
 * waits for what is left in issue order). */
#ifndef CB_LAYOUT_STEP_H
#define CB_LAYOUT_STEP_H

#include "base/stats.h"
#include "layout.h"
#include "ops/skew.h"
#include "results/overhead.h"
#include "runtime/cluster.h"

/* One configuration of the step: the variant of the layout (its bucket
 * or prefetch depth: an index into the layouts given to open), and the
 * algorithm per communicator and op: 0 the library's own choice, else
 * Open MPI's coll/libnbc number (coll_libnbc_i<op>_algorithm). libnbc reads
 * the variable at each call, so the executor writes it through MPI_T
 * before each start: every communicator keeps its own. */
struct cb_layout_config {
  int variant;
  signed char alg[CB_NSC][CB_NEV_OPS];
};
#define CB_LAYOUT_MAX_VARIANTS 33 /* --tune-buckets' 32 sizes and the launch one */

/* A knob the search may turn: an op this rank's plan issues on a
 * communicator of 2+ ranks, whose algorithm variable this MPI has. */
struct cb_layout_knob {
  int comm, op, nalgs; /* algorithms 0 .. nalgs */
};
/* libnbc's name of algorithm alg of op ("ring"; 0: "library"), or NULL. */
const char *cb_layout_algo_name(int op, int alg);

struct cb_layout_result {
  struct cb_stats step, compute, rho; /* seconds; rho paired per round */
  struct cb_overhead overhead;
  int used[CB_NDIMS];              /* dimensions with a communicator of 2+ ranks */
  struct cb_stats wait[CB_NDIMS];  /* seconds a step the slowest rank waited */
  struct cb_stats share[CB_NDIMS]; /* wait / T_step, per round */
  int calls[CB_NDIMS][CB_NEV_OPS]; /* this rank's, per step */
  double flops;                    /* this rank's, per step */
};

struct cb_layout_exec;

/* Splits the communicators and lays out the step of each of the nl
 * variants l[] (the same par and shard; each its own bucket or prefetch
 * depth; CB_LAYOUT_MAX_VARIANTS at most). skew: the ep dispatch's (NULL:
 * uniform). threads: BLAS threads a rank. Every rank returns the same
 * status. */
int cb_layout_exec_open(const struct cb_cluster *cl, const struct cb_model *m,
                        const struct cb_layout *l, int nl, struct cb_skew *skew, int threads,
                        struct cb_layout_exec **x, struct cb_error *err);
/* The knobs of this rank's plans (the same on every rank: the search
 * agrees on them), at most max; returns how many. */
int cb_layout_knobs(const struct cb_layout_exec *x, struct cb_layout_knob *k, int max);
/* reps rounds after one warm-up; each round times the step without
 * communication once, then each configuration's step in a rotating order,
 * each paired with that round's compute. res[n]. */
int cb_layout_measure(struct cb_layout_exec *x, const struct cb_layout_config *cfg, int n, int reps,
                      struct cb_layout_result *res, struct cb_error *err);
void cb_layout_exec_close(struct cb_layout_exec *x);

#endif
