/* The overlap engine: runs the reference step with its gradients
 * all-reduced in buckets as they become ready, and times, interleaved,
 * the step without communication (T_compute), the same all-reduces alone
 * (T_comm) and the overlapped step (T_step). Every time is the slowest
 * rank's, between barriers, with bench/'s clock and statistics. */
#ifndef CB_OVERLAP_H
#define CB_OVERLAP_H

#include "base/stats.h"
#include "bucket.h"
#include "comm.h"
#include "kernels/compute.h"
#include "results/overhead.h"
#include "runtime/cluster.h"
#include "search.h"
#include "setting_cache.h"

enum cb_phase { CB_PHASE_COMPUTE, CB_PHASE_COMM, CB_PHASE_STEP, CB_NPHASES };
extern const char *const cb_phase_names[CB_NPHASES];

struct cb_overlap {
  const struct cb_cluster *cl;
  const struct cb_model *model;
  const struct cb_compute *compute;
  void *cctx;
  const struct cb_comm *comm;
  void *mctx;
  /* communicators shared across bucket sizes (setting_cache.h: the bound) */
  struct cb_setting_cache settings;
  size_t *tensor_elems; /* [ntensors], ready order */
  int ntensors;
  size_t elem_size; /* bytes of one gradient element, as communicated */
  double timer_overhead;
  /* during a step */
  const struct cb_bucket *buckets;
  int nbuckets, next_bucket;
  int *bucket_end; /* [ntensors]: bucket index + 1 ending at that tensor, or 0 */
  void *setting;
};

/* One configuration made ready to run: its communicator and buckets. */
struct cb_prepared {
  struct cb_tune_config cfg;
  void *setting;
  struct cb_bucket *buckets;
  int nbuckets;
};

struct cb_overlap_result {
  struct cb_stats t[CB_NPHASES]; /* seconds */
  /* Paired: each from one round's own compute-only and full step, so
   * exposed, rho and overhead agree (overhead.h) */
  struct cb_stats exposed;     /* T_step - T_compute, seconds */
  struct cb_stats rho;         /* (T_step - T_compute) / T_compute */
  struct cb_stats hidden;      /* 1 - (T_step - T_compute) / T_comm: overlap efficiency */
  struct cb_overhead overhead; /* rho / (1 + rho) of rho's median and interval */
  double flops;                /* per step */
};

int cb_overlap_init(struct cb_overlap *o, const struct cb_cluster *cl, const struct cb_model *m,
                    const struct cb_compute *compute, const struct cb_comm *comm, int threads,
                    int share_gpu, struct cb_error *err);
void cb_overlap_free(struct cb_overlap *o);

int cb_overlap_prepare(struct cb_overlap *o, const struct cb_tune_config *cfg,
                       struct cb_prepared *p, struct cb_error *err);
void cb_overlap_release(struct cb_overlap *o, struct cb_prepared *p);

/* Times `reps` rounds; each round runs, for every configuration in a
 * rotating order, the phases in `phases` (a bit mask of 1 << phase), after
 * one untimed warm-up round. samples[(i * CB_NPHASES + phase) * reps + r]. */
int cb_overlap_measure(struct cb_overlap *o, struct cb_prepared *p, int n, unsigned phases,
                       int reps, double *samples, struct cb_error *err);

/* Statistics of one configuration's samples (all three phases). */
void cb_overlap_summarize(const double *samples, int reps, double flops,
                          struct cb_overlap_result *r);

#endif
