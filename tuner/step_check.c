/* --accept's [step] check: the tuner's reference step run once, its ratio judged (step_check.h
 * says more). */
#include "step_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/gpu.h"
#include "runtime/watchdog.h"
#include "step_setup.h"

int cb_step_check_validate(const struct cb_cluster *cl, const struct cb_step_check *c,
                           struct cb_error *err) {
  const struct cb_compute *compute;
  const struct cb_comm *comm;
  struct cb_error e = {0};
  if (c->ranks && c->ranks != cl->nranks)
    cb_fail(&e, CB_USAGE, "it is for %d ranks, and this run has %d", c->ranks, cl->nranks);
  else if (cb_tune_choose(NULL, &compute, &comm, &e) == CB_OK && comm->kind == CB_SPACE_MPI)
    cb_tune_check_memory(cl, &c->model, &e);
  int rc = cb_cluster_agree(cl, e.status);
  if (rc && e.status)
    return cb_fail(err, rc, "step '%s' (line %d): %s", c->name, c->line, e.msg);
  return rc ? cb_fail(err, rc, "step '%s' cannot run on another rank", c->name) : CB_OK;
}

static int run(const struct cb_cluster *cl, const struct cb_settings *s,
               const struct cb_step_check *c, struct cb_overlap *o, struct cb_step_measured *out,
               struct cb_error *err) {
  const struct cb_compute *compute;
  const struct cb_comm *comm;
  if (cb_tune_choose(NULL, &compute, &comm, err))
    return err->status;
  if (comm->kind == CB_SPACE_NCCL && cb_gpu_bind(cl, s, &(int){0}, err))
    return err->status;
  /* ranks sharing cores get one BLAS thread each, as in --tune */
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = cl->local_size >= cores ? 1 : (int)(cores / cl->local_size);
  if (cb_overlap_init(o, cl, &c->model, compute, comm, threads, s->share_gpu, err))
    return err->status;
  struct cb_tune_config cfg;
  comm->launch(o->mctx, &cfg);
  cfg.algorithm = -1, cfg.segsize = 0; /* the library's own choice, as jobs run */
  uint64_t grads = cb_model_grad_bytes(&c->model);
  cfg.bucket_bytes = c->bucket_bytes < grads ? c->bucket_bytes : grads;
  out->bucket_bytes = cfg.bucket_bytes;
  snprintf(out->where, sizeof out->where, "%s, %s on %s",
           comm->kind == CB_SPACE_NCCL ? "nccl" : "mpi",
           cb_model_dtype_names[compute->grad_dtype(o->cctx)], compute->stream ? "GPU" : "host");
  struct cb_prepared p;
  double *samples = malloc((size_t)CB_NPHASES * (size_t)c->reps * sizeof *samples);
  if (!samples)
    return cb_fail(err, CB_RUNTIME, "out of memory");
  int rc = cb_overlap_prepare(o, &cfg, &p, err);
  if (rc == CB_OK && o->compute->step(o->cctx, NULL, err) == CB_OK) /* a counted step: FLOPs */
    rc = cb_overlap_measure(o, &p, 1, 7u, c->reps, samples, err);
  else if (rc == CB_OK)
    rc = err->status;
  if (rc == CB_OK)
    cb_overlap_summarize(samples, c->reps, compute->flops(o->cctx), &out->res);
  cb_overlap_release(o, &p);
  free(samples);
  return rc;
}

int cb_step_check_measure(const struct cb_cluster *cl, const struct cb_settings *s,
                          const struct cb_step_check *c, struct cb_step_measured *out,
                          struct cb_error *err) {
  struct cb_overlap o;
  memset(out, 0, sizeof *out);
  memset(&o, 0, sizeof o);
  if (cb_watchdog_start(cl, s->timeout))
    return cb_fail(err, CB_RUNTIME, "cannot start the watchdog thread");
  int rc = run(cl, s, c, &o, out, err);
  cb_watchdog_stop();
  cb_overlap_free(&o);
  return cb_cluster_agree(cl, rc) ? (rc ? rc : CB_RUNTIME) : CB_OK;
}
