/* The overlap engine: the reference step with its buckets all-reduced as gradients become
 * ready, timed (overlap.h says more). */
#include "overlap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "runtime/watchdog.h"

const char *const cb_phase_names[CB_NPHASES] = {"compute", "comm", "step"};

int cb_overlap_init(struct cb_overlap *o, const struct cb_cluster *cl, const struct cb_model *m,
                    const struct cb_compute *compute, const struct cb_comm *comm, int threads,
                    int share_gpu, struct cb_error *err) {
  memset(o, 0, sizeof *o);
  o->cl = cl, o->model = m, o->compute = compute, o->comm = comm;
  o->ntensors = (int)m->layers * CB_T_PER_LAYER;
  o->tensor_elems = malloc((size_t)o->ntensors * sizeof *o->tensor_elems);
  o->bucket_end = calloc((size_t)o->ntensors, sizeof *o->bucket_end);
  if (!o->tensor_elems || !o->bucket_end)
    return cb_fail(err, CB_RUNTIME, "out of memory for %d tensors", o->ntensors);
  for (int i = 0; i < o->ntensors; i++)
    o->tensor_elems[i] = cb_model_tensor_elems(m, i % CB_T_PER_LAYER);
  o->timer_overhead = cb_timer_overhead();
  int rc = compute->init(m, threads, &o->cctx, err);
  rc = cb_cluster_agree(cl, rc);
  if (rc != CB_OK)
    return cb_fail(err, rc, "a rank could not set up the model (rank 0 says why if it failed)");
  o->elem_size = cb_model_dtype_bytes(compute->grad_dtype(o->cctx));
  struct cb_comm_setup setup = {compute->grad_dtype(o->cctx),
                                compute->stream ? compute->stream(o->cctx) : NULL, share_gpu};
  rc = cb_cluster_agree(cl, comm->init(cl, &setup, &o->mctx, err));
  if (rc != CB_OK)
    return cb_fail(err, rc, "a rank could not start its communication backend");
  cb_setting_cache_init(&o->settings, comm->open, comm->close, o->mctx);
  return CB_OK;
}

void cb_overlap_free(struct cb_overlap *o) {
  if (o->settings.open)
    cb_setting_cache_free(&o->settings);
  if (o->mctx)
    o->comm->finalize(o->mctx);
  if (o->cctx)
    o->compute->finalize(o->cctx);
  free(o->tensor_elems);
  free(o->bucket_end);
  memset(o, 0, sizeof *o);
}

int cb_overlap_prepare(struct cb_overlap *o, const struct cb_tune_config *cfg,
                       struct cb_prepared *p, struct cb_error *err) {
  memset(p, 0, sizeof *p);
  p->cfg = *cfg;
  p->buckets = malloc((size_t)o->ntensors * sizeof *p->buckets);
  if (!p->buckets)
    return cb_fail(err, CB_RUNTIME, "out of memory for buckets");
  p->nbuckets =
      cb_buckets_assign(o->tensor_elems, o->ntensors, o->elem_size, cfg->bucket_bytes, p->buckets);
  return cb_setting_acquire(&o->settings, cfg, &p->setting, err);
}

void cb_overlap_release(struct cb_overlap *o, struct cb_prepared *p) {
  cb_setting_release(&o->settings, p->setting);
  free(p->buckets);
  memset(p, 0, sizeof *p);
}

static int start_bucket(struct cb_overlap *o, int b, struct cb_error *err) {
  char *g = o->compute->grads(o->cctx);
  return o->comm->start(o->mctx, o->setting, g + o->buckets[b].offset * o->elem_size,
                        o->buckets[b].elems, err);
}

/* Gradients arrive in ready order, so a bucket is full when its last
 * tensor is ready; it starts at once. */
static int on_ready(void *user, int tensor, struct cb_error *err) {
  struct cb_overlap *o = user;
  int b = o->bucket_end[tensor] - 1;
  return b >= 0 ? start_bucket(o, b, err) : CB_OK;
}

static void on_poll(void *user) {
  struct cb_overlap *o = user;
  o->comm->poll(o->mctx);
}

static int run_phase(struct cb_overlap *o, const struct cb_prepared *p, int phase,
                     struct cb_error *err) {
  o->buckets = p->buckets, o->nbuckets = p->nbuckets, o->setting = p->setting;
  memset(o->bucket_end, 0, (size_t)o->ntensors * sizeof *o->bucket_end);
  for (int b = 0; b < p->nbuckets; b++)
    o->bucket_end[p->buckets[b].first + p->buckets[b].ntensors - 1] = b + 1;
  struct cb_step_hooks hooks = {on_ready, on_poll, o};
  switch (phase) {
  case CB_PHASE_COMPUTE: return o->compute->step(o->cctx, NULL, err);
  case CB_PHASE_COMM:
    for (int b = 0; b < p->nbuckets; b++)
      if (start_bucket(o, b, err))
        return err->status;
    return o->comm->wait_all(o->mctx, err);
  default:
    if (o->compute->step(o->cctx, &hooks, err)) {
      o->comm->wait_all(o->mctx, err); /* leave no all-reduce behind */
      return err->status;
    }
    return o->comm->wait_all(o->mctx, err);
  }
}

/* One phase between barriers; the slowest rank's time. */
static int time_phase(struct cb_overlap *o, const struct cb_prepared *p, int phase, double *t,
                      struct cb_error *err) {
  char what[200], cfg[128];
  snprintf(what, sizeof what, "--tune %s phase, %s", cb_phase_names[phase],
           cb_config_format(o->comm->kind, &p->cfg, cfg, sizeof cfg));
  cb_watchdog_arm(what);
  MPI_Barrier(o->cl->comm);
  double t0 = cb_now();
  int rc = run_phase(o, p, phase, err);
  double mine = cb_now() - t0 - o->timer_overhead;
  cb_watchdog_disarm();
  rc = cb_cluster_agree(o->cl, rc);
  if (rc != CB_OK)
    return cb_fail(err, rc, "a rank failed in the %s phase", cb_phase_names[phase]);
  MPI_Allreduce(&mine, t, 1, MPI_DOUBLE, MPI_MAX, o->cl->comm);
  return CB_OK;
}

int cb_overlap_measure(struct cb_overlap *o, struct cb_prepared *p, int n, unsigned phases,
                       int reps, double *samples, struct cb_error *err) {
  for (int r = -1; r < reps; r++)
    for (int k = 0; k < n; k++) {
      int i = r < 0 ? k : (k + r) % n; /* rotate, so no configuration always runs first */
      for (int ph = 0; ph < CB_NPHASES; ph++) {
        if (!(phases & (1u << ph)))
          continue;
        double t;
        if (time_phase(o, &p[i], ph, &t, err))
          return err->status;
        if (r >= 0)
          samples[(i * CB_NPHASES + ph) * reps + r] = t;
      }
    }
  return CB_OK;
}

void cb_overlap_summarize(const double *samples, int reps, double flops,
                          struct cb_overlap_result *r) {
  memset(r, 0, sizeof *r);
  r->flops = flops;
  double *tmp = malloc((size_t)reps * sizeof *tmp), *rho = malloc((size_t)reps * sizeof *rho),
         *hid = malloc((size_t)reps * sizeof *hid), *ex = malloc((size_t)reps * sizeof *ex);
  if (!tmp || !rho || !hid || !ex) {
    free(tmp), free(rho), free(hid), free(ex);
    r->overhead = cb_overhead_from_rho_interval(NAN, NAN, NAN);
    return;
  }
  /* exposed, rho and efficiency per round, from that round's own three
   * times (cb_overlap_measure runs them back to back), so their spread is
   * the spread of the ratio itself and a slow moment in one round moves
   * both of its times */
  for (int k = 0; k < reps; k++) {
    double c = samples[CB_PHASE_COMPUTE * reps + k], m = samples[CB_PHASE_COMM * reps + k],
           s = samples[CB_PHASE_STEP * reps + k];
    ex[k] = s - c;
    rho[k] = c > 0 ? (s - c) / c : 0;
    hid[k] = m > 0 ? 1.0 - (s - c) / m : 0;
  }
  for (int ph = 0; ph < CB_NPHASES; ph++) {
    memcpy(tmp, samples + ph * reps, (size_t)reps * sizeof *tmp);
    cb_stats_compute(tmp, (size_t)reps, &r->t[ph]);
  }
  cb_stats_compute(ex, (size_t)reps, &r->exposed);
  cb_stats_compute(rho, (size_t)reps, &r->rho);
  cb_stats_compute(hid, (size_t)reps, &r->hidden);
  r->overhead = reps > 0 ? cb_overhead_from_rho_interval(r->rho.median, r->rho.ci_lo, r->rho.ci_hi)
                         : cb_overhead_from_rho_interval(NAN, NAN, NAN);
  free(tmp), free(rho), free(hid), free(ex);
}
