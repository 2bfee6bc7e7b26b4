/* The executor of a parallel layout's step (layout.h's events), through
 * a transport (layout_transport.h: MPI and OpenBLAS on the host, NCCL and
 * cuBLAS on a GPU). Each round times, between barriers, the step without
 * communication (T_compute) and the full step (T_step), and on every rank
 * the time the step waited on each dimension's ops: that dimension's
 * exposed communication is the slowest rank's (the host's one thread
 * waits on one op at a time, so a wait belongs to the op it waits for; the
 * step's end waits for what is left in issue order; on a GPU, the compute
 * stream's stall at each wait). */
#ifndef CB_LAYOUT_STEP_H
#define CB_LAYOUT_STEP_H

#include "base/stats.h"
#include "layout.h"
#include "layout_transport.h"
#include "ops/skew.h"
#include "results/overhead.h"
#include "runtime/cluster.h"

/* One configuration of the step: the variant of the layout (its bucket
 * or prefetch depth: an index into the layouts given to open), and the
 * algorithm per communicator and op: 0 the library's own choice, else
 * the transport's number (its algo_name). */
struct cb_layout_config {
  int variant;
  signed char alg[CB_NSC][CB_NEV_OPS];
};
#define CB_LAYOUT_MAX_VARIANTS 33 /* --tune-buckets' 32 sizes and the launch one */

/* A knob the search may turn: an op this rank's plans issue on a
 * communicator of 2+ ranks, whose algorithm the transport can choose. */
struct cb_layout_knob {
  int comm, op, nalgs;                     /* values alg[0] .. alg[nalgs] */
  signed char alg[CB_LAYOUT_MAX_ALGS + 1]; /* alg[0] = 0: the library's own */
};
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
 * uniform). threads: BLAS threads a rank; share_gpu: --share-gpu's;
 * search: whether the algorithms will be searched (a transport then
 * prepares them). Every rank returns the same status. */
int cb_layout_exec_open(const struct cb_cluster *cl, const struct cb_layout_transport *tr,
                        const struct cb_model *m, const struct cb_layout *l, int nl,
                        struct cb_skew *skew, int threads, int share_gpu, int search,
                        struct cb_layout_exec **x, struct cb_error *err);
/* The knobs of this rank's plans (the same on every rank: the search
 * agrees on them), at most max; returns how many. */
int cb_layout_knobs(const struct cb_layout_exec *x, struct cb_layout_knob *k, int max);
/* reps rounds after one warm-up; each round times the step without
 * communication once, then each configuration's step in a rotating order,
 * each paired with that round's compute. res[n]. */
int cb_layout_measure(struct cb_layout_exec *x, const struct cb_layout_config *cfg, int n, int reps,
                      struct cb_layout_result *res, struct cb_error *err);
/* The smallest and largest buffer (elements: layout.h's event's elems) of
 * op on communicator comm in variant's plan on this rank; returns how many
 * starts there are (0: none, min and max untouched). */
int cb_layout_op_elems(const struct cb_layout_exec *x, int variant, int comm, int op, uint64_t *min,
                       uint64_t *max);
void cb_layout_exec_close(struct cb_layout_exec *x);

#endif
