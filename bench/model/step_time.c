/* The communication ratio of a data-parallel training step: gradient
 * buckets allreduced while backward still runs (PyTorch DDP's scheme).
 *
 * Overlap F (bench/model/PLANNING.md): while an allreduce runs and
 * compute has not ended, compute advances at F times its own speed; after
 * compute ends, communication runs alone. So with the buckets' allreduce
 * times d_i, T_step lies between compute + the tail (F = 1, communication
 * hidden for free, as a GPU with its own copy engines nearly gets) and
 * compute + sum d_i (F = 0, compute waits for every allreduce, as on a host
 * whose cores all compute and serve MPI in turn). */
#include <math.h>
#include <stddef.h>

#include "model.h"

const struct cb_recorded *cb_model_recorded_for(const struct cb_recorded *rec, int n, int tier,
                                                int ngpus, double bytes) {
  const struct cb_recorded *best = NULL;
  double best_size = INFINITY, best_ranks = INFINITY;
  for (int i = 0; i < n; i++) {
    if (rec[i].tier != tier || !(rec[i].bytes > 0) || rec[i].nranks < 1)
      continue;
    /* nearest on a log scale: 1 MiB is as near 2 MiB as 4 MiB is */
    double ds = fabs(log(rec[i].bytes / bytes)), dr = fabs(log((double)rec[i].nranks / ngpus));
    if (ds < best_size - 1e-12 || (ds < best_size + 1e-12 && dr < best_ranks))
      best = &rec[i], best_size = ds, best_ranks = dr;
  }
  return best;
}

/* How one bucket's allreduce is costed. */
struct coster {
  const struct cb_system *sys; /* NULL: in proportion to bytes, comm_per_byte */
  double comm_per_byte;
  const struct cb_step_opts *opt;
};

static int bucket_time(const struct coster *c, int ngpus, double bytes, double *t,
                       const struct cb_recorded **rec, int *best) {
  if (!c->sys) {
    *t = c->comm_per_byte * bytes;
    return 0;
  }
  if (c->opt->allreduce_s) { /* NCCL's own pick and time */
    *t = c->opt->allreduce_s(c->opt->ctx, ngpus, bytes);
    return isfinite(*t) ? 0 : -1;
  }
  int per = c->sys->ranks_per_node < ngpus ? c->sys->ranks_per_node : ngpus;
  per = per < 1 ? 1 : per;
  int nodes = (ngpus + per - 1) / per;
  *rec = cb_model_recorded_for(c->opt->rec, c->opt->nrec, nodes > 1 ? CB_TIER_INTER : CB_TIER_INTRA,
                               ngpus, bytes);
  if (*rec) {
    *t = cb_model_time(CB_MOP_ALLREDUCE, (*rec)->shape, ngpus, nodes, bytes, &(*rec)->link);
    return 0;
  }
  struct cb_prediction p;
  *best = cb_model_best(CB_MOP_ALLREDUCE, c->sys, ngpus, bytes, &p);
  *t = p.time_s;
  return *best < 0 ? -1 : 0;
}

static int simulate(const struct coster *c, int ngpus, double compute_s, double grad_bytes,
                    double bucket_bytes, struct cb_step_result *r) {
  double f = c->opt->overlap;
  *r = (struct cb_step_result){.nbuckets = (int)ceil(grad_bytes / bucket_bytes), .best = -1};
  /* now: when the link is next free; work: compute done by then (seconds
   * of compute at full speed); filled: gradient bytes produced */
  double now = 0, work = 0, filled = 0;
  for (int i = 0; i < r->nbuckets; i++) {
    double size = fmin(bucket_bytes, grad_bytes - filled), d;
    filled += size;
    const struct cb_recorded *rec = NULL;
    int best = -1;
    if (bucket_time(c, ngpus, size, &d, &rec, &best) < 0)
      return -1;
    if (i == 0)
      r->rec = rec, r->best = best;
    r->nrecorded += rec != NULL;
    /* full when compute has done its share (gradients come at a steady
     * rate of compute progress); nothing is communicated in between, so
     * compute runs at full speed until then */
    double ready = i == r->nbuckets - 1 ? compute_s : compute_s * filled / grad_bytes;
    if (work < ready)
      now += ready - work, work = ready;
    work = fmin(compute_s, work + f * d); /* slowed while this allreduce runs */
    now += d;
    r->comm_s += d;
  }
  r->exposed_s = fmax(0, now - compute_s);
  r->rho = r->exposed_s / compute_s;
  return 0;
}

int cb_model_step(const struct cb_system *allreduce, int ngpus, double compute_s, double grad_bytes,
                  double bucket_bytes, const struct cb_step_opts *opt, struct cb_step_result *r) {
  struct cb_step_opts defaults = CB_STEP_DEFAULTS;
  struct coster c = {allreduce, 0, opt ? opt : &defaults};
  return simulate(&c, ngpus, compute_s, grad_bytes, bucket_bytes, r);
}

/* The efficiency 1 - exposed / comm of the measured step at overlap f. */
static double efficiency_at(double f, double compute_s, double comm_s, double grad_bytes,
                            double bucket_bytes) {
  struct cb_step_opts o = {f, NULL, 0, NULL, NULL};
  struct coster c = {NULL, comm_s / grad_bytes, &o};
  struct cb_step_result r;
  simulate(&c, 1, compute_s, grad_bytes, bucket_bytes, &r);
  return 1 - r.exposed_s / comm_s;
}

int cb_model_overlap_from_efficiency(double compute_s, double comm_s, double grad_bytes,
                                     double bucket_bytes, double efficiency, double *f) {
  if (!(compute_s > 0 && comm_s > 0 && grad_bytes > 0 && bucket_bytes > 0) || !isfinite(efficiency))
    return -1;
  double lo = efficiency_at(0, compute_s, comm_s, grad_bytes, bucket_bytes),
         hi = efficiency_at(1, compute_s, comm_s, grad_bytes, bucket_bytes);
  if (!(hi - lo > 1e-9)) /* one bucket: exposed whatever F is */
    return -1;
  if (efficiency <= lo) {
    *f = 0;
    return efficiency < lo - 1e-9;
  }
  if (efficiency >= hi) {
    *f = 1;
    return efficiency > hi + 1e-9;
  }
  double a = 0, b = 1; /* the efficiency grows with F: bisect */
  for (int k = 0; k < 60; k++) {
    double m = (a + b) / 2;
    if (efficiency_at(m, compute_s, comm_s, grad_bytes, bucket_bytes) < efficiency)
      a = m;
    else
      b = m;
  }
  *f = (a + b) / 2;
  return 0;
}
