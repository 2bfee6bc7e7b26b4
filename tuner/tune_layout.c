/* --tune --parallel L [--shard S]: the reference step in a parallel layout,
 * measured at the launch settings, with each dimension's exposed
 * communication (tune_layout.h says what is not built). */
#include "tune_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/units.h"
#include "layout_step.h"
#include "output/lines.h"
#include "output/replace.h"
#include "results/verdict.h"
#include "runtime/watchdog.h"
#include "step_setup.h"

/* DDP's bucket_cap_mb, as the DDP step's baseline */
#define DDP_BUCKET_BYTES (25u << 20)

/* The layout refused before anything runs: a refusal names the value. */
static int check(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                 struct cb_error *err) {
  const struct cb_layout *l = &opt->layout;
  char layout[64];
  cb_parallel_format(&l->par, layout, sizeof layout);
  if (opt->backend && strcmp(opt->backend, "mpi"))
    return cb_fail(err, CB_USAGE,
                   "--tune --parallel %s --backend %s: the layouts' step runs on the host (MPI "
                   "and OpenBLAS) only; the GPU one is not built",
                   layout, opt->backend);
  if (cb_parallel_fit(&l->par, cl->nranks, cl->node_of_rank, err) ||
      cb_layout_check(&opt->model, l, err))
    return err->status;
  double need = (double)cb_layout_state_bytes(&opt->model, l);
  double avail = (double)cb_mem_available_bytes() / cl->local_size;
  if (avail > 0 && need > 0.9 * avail) {
    struct cb_layout full = *l;
    full.shard = CB_SHARD_FULL;
    double sharded = (double)cb_layout_state_bytes(&opt->model, &full);
    char hint[160] = "more ranks in tp, pp or dp, or a smaller workload, would hold less";
    if (l->shard != CB_SHARD_FULL && l->par.size[CB_DIM_PP] == 1 && l->par.size[CB_DIM_EP] == 1 &&
        l->par.size[CB_DIM_DP] > 1 && sharded <= 0.9 * avail)
      snprintf(hint, sizeof hint, "--shard full would hold %.2f GiB", sharded / (1 << 30));
    return cb_fail(err, CB_USAGE,
                   "--workload %s --parallel %s --shard %s: a rank holds %.2f GiB of weights, "
                   "gradients and Adam's states (16 bytes a parameter, ZeRO's count), %.2f GiB "
                   "are available to each of %d ranks on %s: %s",
                   opt->model.name, layout, cb_shard_names[l->shard], need / (1 << 30),
                   avail / (1 << 30), cl->local_size, cl->hostname, hint);
  }
  return CB_OK;
}

static void print_calls(const struct cb_layout_result *r) {
  printf("# each step, rank 0 issues:");
  int any = 0;
  for (int d = 0; d < CB_NDIMS; d++)
    for (int o = 0, first = 1; o < CB_NEV_OPS; o++)
      if (r->calls[d][o]) {
        printf("%s%s%s %d %s",
               first && any ? ";"
               : first      ? ""
                            : ",",
               first ? " " : "", first ? cb_dim_names[d] : "", r->calls[d][o], cb_ev_op_names[o]);
        first = 0, any = 1;
      }
  printf("%s\n", any ? "" : " nothing (every group has one rank)");
}

static void print_result(const struct cb_layout_result *r, double target) {
  char o[80], v[256];
  printf("T_compute %.3f ms [%.3f, %.3f]   T_step %.3f ms [%.3f, %.3f]   rho %.4f [%.4f, %.4f]\n",
         r->compute.median * 1e3, r->compute.ci_lo * 1e3, r->compute.ci_hi * 1e3,
         r->step.median * 1e3, r->step.ci_lo * 1e3, r->step.ci_hi * 1e3, r->rho.median,
         r->rho.ci_lo, r->rho.ci_hi);
  printf("overhead %s of T_step (rho / (1 + rho), each round's own pair): %s\n",
         cb_overhead_format(r->overhead, o, sizeof o),
         cb_overhead_verdict(r->overhead, target, v, sizeof v));
  printf("exposed:");
  int any = 0;
  for (int d = 0; d < CB_NDIMS; d++)
    if (r->used[d]) {
      const struct cb_stats *s = &r->share[d];
      printf("%s %s %.1f%% [%.1f, %.1f] (%.3f ms)", any ? "," : "", cb_dim_names[d],
             100 * s->median, 100 * s->ci_lo, 100 * s->ci_hi, r->wait[d].median * 1e3);
      any = 1;
    }
  printf("%s\n", any ? "" : " none (every group has one rank)");
}

static char *result_json(const struct cb_tune_options *opt, const struct cb_cluster *cl,
                         const struct cb_layout_result *r) {
  char layout[64], *buf = malloc(8192);
  if (!buf)
    return NULL;
  cb_parallel_format(&opt->layout.par, layout, sizeof layout);
  const struct cb_model *m = &opt->model;
  size_t len = 8192,
         u = (size_t)snprintf(
             buf, len,
             "{\"type\":\"layout\",\"parallel\":\"%s\",\"shard\":\"%s\","
             "\"workload\":\"%s\",\"model\":[%ld,%ld,%ld,%ld,%ld],"
             "\"microbatches\":%ld,\"experts\":%ld,\"topk\":%ld,"
             "\"sequence_parallel\":%ld,\"skew\":\"%s\",\"bucket_bytes\":%llu,"
             "\"nranks\":%d,\"reps\":%ld,\"max_overhead\":%g,"
             "\"t_compute_ms\":[%.6g,%.6g,%.6g],\"t_step_ms\":[%.6g,%.6g,%.6g],"
             "\"rho\":[%.6g,%.6g,%.6g],\"overhead\":[%.6g,%.6g,%.6g],"
             "\"verdict\":\"%s\",\"exposed\":{",
             layout, cb_shard_names[opt->layout.shard], m->name, m->hidden, m->layers, m->heads,
             m->seq, m->batch, m->microbatches, m->experts, m->topk, m->sequence_parallel,
             opt->skew ? opt->skew->label : "uniform",
             (unsigned long long)(opt->layout.bucket_elems * sizeof(float)), cl->nranks, opt->reps,
             opt->max_overhead, r->compute.median * 1e3, r->compute.ci_lo * 1e3,
             r->compute.ci_hi * 1e3, r->step.median * 1e3, r->step.ci_lo * 1e3, r->step.ci_hi * 1e3,
             r->rho.median, r->rho.ci_lo, r->rho.ci_hi, r->overhead.value, r->overhead.lo,
             r->overhead.hi, cb_verdict_names[cb_overhead_judge(r->overhead, opt->max_overhead)]);
  int any = 0;
  for (int d = 0; d < CB_NDIMS && u < len; d++)
    if (r->used[d]) {
      u += (size_t)snprintf(buf + u, len - u,
                            "%s\"%s\":{\"share\":[%.6g,%.6g,%.6g],\"ms\":[%.6g,%.6g,%.6g],"
                            "\"calls\":{",
                            any ? "," : "", cb_dim_names[d], r->share[d].median, r->share[d].ci_lo,
                            r->share[d].ci_hi, r->wait[d].median * 1e3, r->wait[d].ci_lo * 1e3,
                            r->wait[d].ci_hi * 1e3);
      int k = 0;
      for (int o = 0; o < CB_NEV_OPS && u < len; o++)
        if (r->calls[d][o])
          u += (size_t)snprintf(buf + u, len - u, "%s\"%s\":%d", k++ ? "," : "", cb_ev_op_names[o],
                                r->calls[d][o]);
      if (u < len)
        u += (size_t)snprintf(buf + u, len - u, "}}");
      any = 1;
    }
  if (u < len)
    u += (size_t)snprintf(buf + u, len - u, "}}");
  if (u >= len) {
    free(buf);
    return NULL;
  }
  return buf;
}

int cb_tune_layout(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                   struct cb_error *err) {
  struct cb_lines trials = {.fd = -1};
  int rc = check(cl, opt, err), opened = 0;
  if (rc == CB_OK && cl->rank == 0 && opt->trials) {
    rc = cb_lines_open(&trials, opt->trials, "--trials", err);
    opened = rc == CB_OK;
  }
  if (cb_cluster_agree(cl, rc) != CB_OK) {
    if (opened)
      cb_lines_close(&trials, &(struct cb_error){0});
    return rc ? rc : cb_fail(err, CB_USAGE, "another rank could not set up --tune --parallel");
  }
  if (opened && (rc = cb_lines_start(&trials, err)) != CB_OK) {
    cb_lines_close(&trials, &(struct cb_error){0});
    return rc;
  }
  const struct cb_model *m = &opt->model;
  char layout[64], bucket[32];
  cb_parallel_format(&opt->layout.par, layout, sizeof layout);
  if (cl->rank == 0) {
    printf("# --tune --parallel %s --shard %s: workload %s (hidden %ld, %ld layers, %ld heads, "
           "seq %ld, batch %ld; microbatches %ld, experts %ld, topk %ld, sequence_parallel "
           "%ld), float on the host\n",
           layout, cb_shard_names[opt->layout.shard], m->name, m->hidden, m->layers, m->heads,
           m->seq, m->batch, m->microbatches, m->experts, m->topk, m->sequence_parallel);
    printf("# %d ranks on %d node(s); MPI non-blocking collectives on a communicator per "
           "dimension; DDP/ZeRO-2 buckets of %s; ep dispatch skew %s\n",
           cl->nranks, cl->nnodes,
           cb_format_size(opt->layout.bucket_elems * sizeof(float), bucket, sizeof bucket),
           opt->skew ? opt->skew->label : "uniform");
    printf("# exposed: the time the slowest rank's step waits on each dimension's ops, as a "
           "share of T_step (tuner/TUNING.md, \"Parallel layouts\"); the launch "
           "settings: no per-communicator search yet\n");
    fflush(stdout);
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = cl->local_size >= cores ? 1 : (int)(cores / cl->local_size);
  struct cb_layout_result res;
  if (cb_watchdog_start(cl, opt->timeout))
    rc = cb_fail(err, CB_RUNTIME, "cannot start the watchdog thread");
  else {
    rc = cb_layout_step_run(cl, m, &opt->layout, opt->skew, threads, (int)opt->reps, &res, err);
    cb_watchdog_stop();
  }
  if (rc == CB_OK && cl->rank == 0) {
    print_calls(&res);
    printf("# the launch settings (%ld rounds; [lo, hi] the 95%% CI of the median):\n", opt->reps);
    print_result(&res, opt->max_overhead);
    if (opened)
      rc = cb_lines_put_text(&trials, result_json(opt, cl, &res), err);
  }
  if (opened && cb_lines_close(&trials, rc ? &(struct cb_error){0} : err) && rc == CB_OK)
    rc = err->status;
  return rc;
}
