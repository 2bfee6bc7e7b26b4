/* --tune: the reference step, the overlap engine and the search, driven together (tune.h says
 * more). */
#include "tune.h"
#include "step_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/units.h"
#include "envfile.h"
#include "nccl_choice.h"
#include "output/replace.h"
#include "overlap.h"
#include "plugin.h"
#include "plugin_sweep.h"
#include "results/verdict.h"
#include "runtime/gpu.h"
#include "runtime/watchdog.h"
#include "trials.h"
#include "tune_calls.h"
#include "tune_layout.h"

#define BUCKET_VAR CB_BUCKET_VAR

void cb_tune_options_defaults(struct cb_tune_options *t) {
  memset(t, 0, sizeof *t);
  struct cb_error err;
  cb_model_preset("gpt2-124m", &t->model, &err);
  cb_space_defaults(&t->space);
  t->reps = 10;
  t->timeout = 300;
  t->max_overhead = CB_OVERHEAD_DEFAULT_TARGET;
  t->layout.prefetch = 1; /* FSDP2's default: the next layer's gather in flight */
}

void cb_tune_pre_mpi_init(void) {
  /* coll/tuned reads it at MPI_Init only; MPI_T may not change it later */
  setenv("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", 1);
}

struct tuner {
  const struct cb_cluster *cl;
  const struct cb_tune_options *opt;
  const struct cb_settings *settings;
  int argc;
  char **argv;
  struct cb_overlap o;
  struct cb_trials trials; /* rank 0 */
  int batch;
  double flops;
  /* what --env-out writes, kept past cb_overlap_free for after --plugin-out */
  int done, kind;
  struct cb_tune_config cfg[2];
  struct cb_overlap_result res[2];
  char version[256], where[32];
  char *launch_algo, *launch_proto;          /* copies of NCCL_ALGO/NCCL_PROTO at launch */
  unsigned char ll128_proven[CB_NCCL_ALGOS]; /* by --plugin-out's checked sweep */
};

static int is_root(const struct tuner *t) {
  return t->cl->rank == 0;
}

/* The search's measuring function: a batch already in the trials file
 * (--resume) is taken from there; the rest is measured interleaved. */
static int measure_batch(void *user, const char *phase, const struct cb_tune_config *cfgs, int n,
                         struct cb_score *scores, struct cb_error *err) {
  struct tuner *t = user;
  int batch = t->batch++, reps = (int)t->opt->reps;
  int *found = calloc((size_t)n, sizeof *found);
  struct cb_prepared *p = calloc((size_t)n, sizeof *p);
  double *samples = malloc((size_t)n * CB_NPHASES * (size_t)reps * sizeof *samples);
  if (!found || !p || !samples) {
    free(found), free(p), free(samples);
    return cb_fail(err, CB_RUNTIME, "out of memory for a batch of %d", n);
  }
  if (is_root(t))
    for (int i = 0; i < n; i++)
      found[i] = cb_trials_find(&t->trials, batch, &cfgs[i], &scores[i]);
  MPI_Bcast(found, n, MPI_INT, 0, t->cl->comm);
  MPI_Bcast(scores, n * 2, MPI_DOUBLE, 0, t->cl->comm);
  int m = 0, rc = CB_OK;
  for (int i = 0; i < n && rc == CB_OK; i++)
    if (!found[i])
      rc = cb_overlap_prepare(&t->o, &cfgs[i], &p[m++], err);
  if (rc == CB_OK && m > 0)
    rc = cb_overlap_measure(&t->o, p, m, 1u << CB_PHASE_STEP, reps, samples, err);
  for (int i = 0, k = 0; i < n && rc == CB_OK; i++) {
    if (found[i])
      continue;
    struct cb_stats st;
    cb_stats_compute(samples + ((size_t)k * CB_NPHASES + CB_PHASE_STEP) * (size_t)reps,
                     (size_t)reps, &st);
    scores[i] = (struct cb_score){st.median, st.ci95};
    if (is_root(t))
      rc = cb_trials_add(&t->trials, batch, phase, &cfgs[i], &scores[i], reps, err);
    k++;
  }
  for (int i = 0; i < m; i++)
    cb_overlap_release(&t->o, &p[i]);
  if (rc == CB_OK && is_root(t)) {
    int best = 0;
    for (int i = 1; i < n; i++)
      best = scores[i].median < scores[best].median ? i : best;
    char c[128];
    printf("  %-12s %3d configs%s  fastest %s: %.3f ms +- %.3f\n", phase, n,
           m < n ? " (resumed)" : "", cb_config_format(t->o.comm->kind, &cfgs[best], c, sizeof c),
           scores[best].median * 1e3, scores[best].ci95 * 1e3);
    fflush(stdout);
  }
  free(found), free(p), free(samples);
  return rc;
}


static void print_result(int kind, const char *label, const struct cb_tune_config *cfg,
                         const struct cb_overlap_result *r, double target) {
  char c[128], v[256];
  printf("%-8s %s\n", label, cb_config_format(kind, cfg, c, sizeof c));
  printf(
      "         T_compute %8.3f ms +- %.3f   T_comm %8.3f ms +- %.3f   T_step %8.3f ms +- %.3f\n",
      r->t[CB_PHASE_COMPUTE].median * 1e3, r->t[CB_PHASE_COMPUTE].ci95 * 1e3,
      r->t[CB_PHASE_COMM].median * 1e3, r->t[CB_PHASE_COMM].ci95 * 1e3,
      r->t[CB_PHASE_STEP].median * 1e3, r->t[CB_PHASE_STEP].ci95 * 1e3);
  /* an interval wider than the whole scale says nothing of the overlap: say that */
  const struct cb_stats *h = &r->hidden;
  char eff[96];
  if (!(h->ci95 < 0.5))
    snprintf(eff, sizeof eff, "unknown (%.0f%% +- %.0f%%: more rounds would settle it)",
             100 * h->median, 100 * h->ci95);
  else
    snprintf(eff, sizeof eff, "%.0f%% +- %.0f%%", 100 * h->median, 100 * h->ci95);
  printf("         exposed %.3f ms +- %.3f   rho %.4f +- %.4f   overlap efficiency %s   %.2f "
         "GFLOP/s per rank\n",
         r->exposed.median * 1e3, r->exposed.ci95 * 1e3, r->rho.median, r->rho.ci95, eff,
         r->flops / r->t[CB_PHASE_COMPUTE].median * 1e-9);
  char o[80];
  printf("         overhead %s of T_step (rho / (1 + rho), each round's own pair): %s\n",
         cb_overhead_format(r->overhead, o, sizeof o),
         cb_overhead_verdict(r->overhead, target, v, sizeof v));
}

/* Closing the loop: the launch settings and the tuned ones, all three
 * phases, interleaved in the same rounds. */
static int compare(struct tuner *t, const struct cb_tune_config *cfgs, int n,
                   struct cb_overlap_result *res, struct cb_error *err) {
  int reps = (int)t->opt->reps;
  struct cb_prepared p[2];
  double *samples = malloc((size_t)n * CB_NPHASES * (size_t)reps * sizeof *samples);
  if (!samples)
    return cb_fail(err, CB_RUNTIME, "out of memory");
  int m = 0, rc = CB_OK;
  for (; m < n && rc == CB_OK; m++)
    rc = cb_overlap_prepare(&t->o, &cfgs[m], &p[m], err);
  if (rc == CB_OK)
    rc = cb_overlap_measure(&t->o, p, n, 7u, reps, samples, err);
  for (int i = 0; i < m; i++)
    cb_overlap_release(&t->o, &p[i]);
  for (int i = 0; i < n && rc == CB_OK; i++)
    cb_overlap_summarize(samples + (size_t)i * CB_NPHASES * (size_t)reps, reps, t->flops, &res[i]);
  free(samples);
  return rc;
}

/* "bf16 on GPU", "float on host": what the step computes in, and where. */
static const char *dtype_where(const struct tuner *t) {
  static char buf[32];
  int dtype = t->o.compute->grad_dtype(t->o.cctx);
  snprintf(buf, sizeof buf, "%s on %s", cb_model_dtype_names[dtype],
           t->o.compute->stream ? "GPU" : "host");
  return buf;
}

/* The NCCL variables come from nccl_choice.c (per-collective form, LL128
 * only when proven); its notes go into the header. */
static void config_vars(const struct tuner *t, const struct cb_tune_config *c, char vals[4][32],
                        struct cb_nccl_env_out *nccl, struct cb_env_var *v, int *n) {
  *n = 0;
  memset(nccl, 0, sizeof *nccl);
  if (t->kind == CB_SPACE_NCCL) {
    int major = 0, minor = 0, patch = 0;
    sscanf(t->version, "NCCL %d.%d.%d", &major, &minor, &patch);
    struct cb_nccl_env_in in = {
        .version = major * 10000 + minor * 100 + patch,
        .algorithm = c->algorithm,
        .protocol = c->protocol,
        .launch_algo = t->launch_algo,
        .launch_proto = t->launch_proto,
        .launch_algo_index = t->cfg[0].algorithm,
        .launch_proto_index = t->cfg[0].protocol,
        .ll128_proven =
            c->algorithm >= 0 && c->algorithm < CB_NCCL_ALGOS && t->ll128_proven[c->algorithm],
    };
    cb_nccl_env_vars(&in, nccl);
    for (int i = 0; i < nccl->nvars; i++)
      v[(*n)++] = nccl->vars[i];
    if (c->ctas > 0) {
      snprintf(vals[0], 32, "%d", c->ctas);
      v[(*n)++] = (struct cb_env_var){"NCCL_MIN_CTAS", vals[0]};
      v[(*n)++] = (struct cb_env_var){"NCCL_MAX_CTAS", vals[0]};
    }
  } else if (c->algorithm >= 0) {
    snprintf(vals[0], 32, "%d", c->algorithm);
    snprintf(vals[1], 32, "%ld", c->segsize);
    v[(*n)++] = (struct cb_env_var){"OMPI_MCA_coll_tuned_use_dynamic_rules", "1"};
    v[(*n)++] = (struct cb_env_var){"OMPI_MCA_coll_tuned_allreduce_algorithm", vals[0]};
    v[(*n)++] = (struct cb_env_var){"OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize", vals[1]};
  }
  snprintf(vals[2], 32, "%llu", (unsigned long long)c->bucket_bytes);
  v[(*n)++] = (struct cb_env_var){BUCKET_VAR, vals[2]};
}

struct env_file {
  const char *const *comments;
  int ncomments;
  struct cb_env_var vars[6];
  int nvars;
  struct cb_error *err; /* cb_env_write's own reason (a value it refuses) */
};

static int write_env_file(void *state, FILE *f) {
  struct env_file *e = state;
  return cb_env_write(f, e->comments, e->ncomments, e->vars, e->nvars, e->err);
}

/* Written to a temporary name and renamed: a failed run leaves any earlier
 * file whole. */
static int write_env(const struct tuner *t, const char *path, struct cb_error *err) {
  const struct cb_model *m = &t->opt->model;
  const struct cb_tune_config *tuned = &t->cfg[1];
  const struct cb_overlap_result *def = &t->res[0], *tun = &t->res[1];
  const char *mpi = t->version;
  char lines[9][512], vals[4][32], verdict[256], od[80], ot[80];
  const char *comments[9 + CB_NCCL_NOTES];
  int nc = 0;
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  char when[40];
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  snprintf(lines[0], sizeof lines[0], "collbench --tune, %s", when);
  size_t used = (size_t)snprintf(lines[1], sizeof lines[1], "hosts:");
  for (int i = 0; i < t->cl->nnodes && used < sizeof lines[1]; i++)
    used += (size_t)snprintf(lines[1] + used, sizeof lines[1] - used, " %s", t->cl->node_names[i]);
  snprintf(lines[2], sizeof lines[2], "ranks: %d on %d node(s); %s", t->cl->nranks, t->cl->nnodes,
           mpi);
  snprintf(lines[3], sizeof lines[3],
           "model: %s (hidden %ld, layers %ld, heads %ld, seq %ld, batch %ld), %s", m->name,
           m->hidden, m->layers, m->heads, m->seq, m->batch, t->where);
  snprintf(lines[4], sizeof lines[4], "rho default %.4f +- %.4f, tuned %.4f +- %.4f",
           def->rho.median, def->rho.ci95, tun->rho.median, tun->rho.ci95);
  snprintf(lines[5], sizeof lines[5],
           "T_step default %.3f ms +- %.3f, tuned %.3f ms +- %.3f (medians, 95%% CI)",
           def->t[CB_PHASE_STEP].median * 1e3, def->t[CB_PHASE_STEP].ci95 * 1e3,
           tun->t[CB_PHASE_STEP].median * 1e3, tun->t[CB_PHASE_STEP].ci95 * 1e3);
  snprintf(lines[6], sizeof lines[6],
           "apply: source this file before mpirun;%s " BUCKET_VAR
           " is the gradient bucket size in bytes:",
           t->kind == CB_SPACE_NCCL ? " NCCL reads NCCL_* when a communicator is made."
           : tuned->algorithm >= 0  ? " Open MPI reads OMPI_MCA_* at MPI_Init."
                                    : "");
  snprintf(lines[7], sizeof lines[7],
           "PyTorch DDP(model, bucket_cap_mb=%.2f); collbench --tune "
           "reads it as the launch bucket size",
           (double)tuned->bucket_bytes / (1 << 20));
  snprintf(lines[8], sizeof lines[8],
           "overhead (T_step - T_compute) / T_step, paired per round: default %s, tuned %s: %s",
           cb_overhead_format(def->overhead, od, sizeof od),
           cb_overhead_format(tun->overhead, ot, sizeof ot),
           cb_overhead_verdict(tun->overhead, t->opt->max_overhead, verdict, sizeof verdict));
  static const int order[9] = {0, 1, 2, 3, 4, 5, 8, 6, 7}; /* overhead beside rho and T_step */
  for (int i = 0; i < 9; i++)
    comments[nc++] = lines[order[i]];
  struct cb_nccl_env_out nccl;
  struct env_file file = {comments, nc, {{0}}, 0, err};
  config_vars(t, tuned, vals, &nccl, file.vars, &file.nvars);
  for (int i = 0; i < nccl.nnotes; i++)
    comments[file.ncomments++] = nccl.notes[i];
  return cb_replace_write(path, "--env-out", write_env_file, &file, err);
}

static void setup_json(const struct tuner *t, const struct cb_space *s, char *buf, size_t len) {
  const struct cb_model *m = &t->opt->model;
  size_t u =
      (size_t)snprintf(buf, len,
                       "{\"library\":\"%s\",\"model\":[%ld,%ld,%ld,%ld,%ld,%d],"
                       "\"nranks\":%d,\"reps\":%ld,\"exhaustive\":%d,\"algorithms\":[",
                       s->kind == CB_SPACE_NCCL ? "nccl" : "mpi", m->hidden, m->layers, m->heads,
                       m->seq, m->batch, m->dtype, t->cl->nranks, t->opt->reps, t->opt->exhaustive);
  for (int i = 0; i < s->nalgorithms && u < len; i++)
    u += (size_t)snprintf(buf + u, len - u, "%s%d", i ? "," : "", s->algorithms[i]);
  u += (size_t)snprintf(buf + u, len - u, "],\"segments\":[");
  for (int i = 0; i < s->nsegments && u < len; i++)
    u += (size_t)snprintf(buf + u, len - u, "%s%ld", i ? "," : "", s->segments[i]);
  u += (size_t)snprintf(buf + u, len - u, "],\"protocols\":[");
  for (int i = 0; i < s->nprotocols && u < len; i++)
    u += (size_t)snprintf(buf + u, len - u, "%s%d", i ? "," : "", s->protocols[i]);
  u += (size_t)snprintf(buf + u, len - u, "],\"ctas\":[");
  for (int i = 0; i < s->nctas && u < len; i++)
    u += (size_t)snprintf(buf + u, len - u, "%s%d", i ? "," : "", s->ctas[i]);
  u += (size_t)snprintf(buf + u, len - u, "],\"buckets\":[");
  for (int i = 0; i < s->nbuckets && u < len; i++)
    u += (size_t)snprintf(buf + u, len - u, "%s%llu", i ? "," : "",
                          (unsigned long long)s->buckets[i]);
  if (u < len)
    snprintf(buf + u, len - u, "]}");
}

/* grad_bytes and nranks let --report predict the step on other clusters. */
static void summary_json(const struct cb_search_result *sr, const struct cb_tune_config *cfg,
                         const struct cb_overlap_result *res, int n, uint64_t grad_bytes,
                         int nranks, double max_overhead, char *buf, size_t len) {
  static const char *const names[2] = {"default", "tuned"};
  size_t u = (size_t)snprintf(buf, len,
                              "{\"type\":\"summary\",\"evaluations\":%d,\"grid\":%d,"
                              "\"grad_bytes\":%llu,\"nranks\":%d,\"max_overhead\":%g",
                              sr->evaluations, sr->grid, (unsigned long long)grad_bytes, nranks,
                              max_overhead);
  for (int i = 0; i < 2 && u < len; i++) {
    const struct cb_overlap_result *r = &res[i < n ? i : 0];
    const struct cb_tune_config *c = &cfg[i < n ? i : 0];
    u += (size_t)snprintf(
        buf + u, len - u,
        ",\"%s\":{\"algorithm\":%d,\"segsize\":%ld,\"protocol\":%d,\"ctas\":%d,"
        "\"bucket_bytes\":%llu,\"t_compute_us\":%.3f,"
        "\"t_comm_us\":%.3f,\"t_step_us\":%.3f,\"t_step_ci95_us\":%.3f,\"rho\":%.6f,"
        "\"rho_ci95\":%.6f,\"overlap_efficiency\":%.4f,\"t_compute_ci95_us\":%.3f,"
        "\"overhead\":%.6f,\"overhead_ci95\":%.6f,\"overhead_lo\":%.6f,\"overhead_hi\":%.6f,"
        "\"overhead_noise\":%s,\"exposed_us\":%.3f,\"exposed_ci95_us\":%.3f,"
        "\"overhead_verdict\":\"%s\",\"overhead_within\":%s}",
        names[i], c->algorithm, c->segsize, c->protocol, c->ctas,
        (unsigned long long)c->bucket_bytes, r->t[CB_PHASE_COMPUTE].median * 1e6,
        r->t[CB_PHASE_COMM].median * 1e6, r->t[CB_PHASE_STEP].median * 1e6,
        r->t[CB_PHASE_STEP].ci95 * 1e6, r->rho.median, r->rho.ci95, r->hidden.median,
        r->t[CB_PHASE_COMPUTE].ci95 * 1e6, r->overhead.value, r->overhead.ci95, r->overhead.lo,
        r->overhead.hi, r->overhead.noise ? "true" : "false", r->exposed.median * 1e6,
        r->exposed.ci95 * 1e6, cb_verdict_names[cb_overhead_judge(r->overhead, max_overhead)],
        cb_overhead_judge(r->overhead, max_overhead) == CB_PASS ? "true" : "false");
  }
  if (u < len)
    snprintf(buf + u, len - u, "}");
}

static int tune(struct tuner *t, struct cb_space *space, struct cb_error *err) {
  const struct cb_tune_options *opt = t->opt;
  const struct cb_model *m = &opt->model;
  uint64_t grad_bytes = (uint64_t)cb_model_params(m) * sizeof(float);
  int tunable;
  char why[256], mpi[256], c[128];
  t->o.comm->tunable(t->o.mctx, &tunable, why, sizeof why);
  t->o.comm->version(t->o.mctx, mpi, sizeof mpi);
  if (!tunable)
    space->nalgorithms = 0;
  cb_space_cap_buckets(space, grad_bytes);
  struct cb_tune_config cfg[2];
  t->o.comm->launch(t->o.mctx, &cfg[0]);
  if (!tunable)
    cfg[0].algorithm = -1, cfg[0].segsize = 0;
  if (cb_space_launch_bucket(grad_bytes, &cfg[0].bucket_bytes, err))
    return err->status;

  /* a counted step, for FLOPs per step */
  if (t->o.compute->step(t->o.cctx, NULL, err))
    return err->status;
  t->flops = t->o.compute->flops(t->o.cctx);
  char gb[32];
  if (is_root(t)) {
    printf("# collbench --tune: model %s (hidden %ld, layers %ld, heads %ld, seq %ld, batch %ld, "
           "%s%s): %.2f M parameters, %s of gradients per step\n",
           m->name, m->hidden, m->layers, m->heads, m->seq, m->batch, dtype_where(t),
           t->o.compute->stream || m->dtype == CB_MODEL_FLOAT ? ""
                                                              : " instead of the model's dtype",
           (double)cb_model_params(m) / 1e6, cb_format_size(grad_bytes, gb, sizeof gb));
    printf("# compute: %s, %.3f GFLOP per step (GEMMs); %d ranks on %d node(s); %s\n",
           t->o.compute->name, t->flops * 1e-9, t->cl->nranks, t->cl->nnodes, mpi);
    printf("# comm: %s: %s\n# search space: %s\n", t->o.comm->name, t->o.comm->progress, why);
    printf("# rho: the communication-to-computation ratio, exposed communication (T_step - "
           "T_compute) over T_compute; overlap efficiency: the share of T_comm hidden behind "
           "compute (1 - exposed / T_comm; under 0 when running both at once costs more than "
           "T_comm alone)\n");
    printf("# launch settings (read back %s): %s\n",
           t->o.comm->kind == CB_SPACE_NCCL ? "from NCCL_ALGO, NCCL_PROTO, NCCL_MIN/MAX_CTAS"
                                            : "through MPI_T",
           cb_config_format(t->o.comm->kind, &cfg[0], c, sizeof c));
    /* a list or '^' stays in effect whenever NCCL chooses (nccl_choice.h) */
    if (t->o.comm->kind == CB_SPACE_NCCL && t->launch_algo && cfg[0].algorithm == 0)
      printf("# NCCL's choice of algorithm is within NCCL_ALGO='%s', as launched\n",
             t->launch_algo);
    if (t->o.comm->kind == CB_SPACE_NCCL && t->launch_proto && cfg[0].protocol == 0)
      printf("# NCCL's choice of protocol is within NCCL_PROTO='%s', as launched\n",
             t->launch_proto);
    fflush(stdout);
  }

  struct cb_search_result sr = {.best = cfg[0], .grid = cb_space_grid(space, NULL)};
  if (!opt->no_search) {
    if (is_root(t))
      printf("# search (%s, %ld steps per configuration per batch, slowest rank):\n",
             opt->exhaustive ? "exhaustive grid" : "coordinate descent", opt->reps);
    if (cb_search_run(space, &cfg[0], opt->exhaustive, measure_batch, t, &sr, err))
      return err->status;
    if (is_root(t))
      printf("# evaluations: %d configurations of a grid of %d (%.0f%%), %d measurements of %ld "
             "steps\n",
             sr.evaluations, sr.grid, 100.0 * sr.evaluations / (sr.grid ? sr.grid : 1),
             sr.measurements, opt->reps);
  }
  cfg[1] = sr.best;
  int n = cb_config_equal(&cfg[0], &cfg[1]) ? 1 : 2;
  struct cb_overlap_result res[2];
  if (compare(t, cfg, n, res, err))
    return err->status;
  if (n == 1)
    res[1] = res[0];
  if (is_root(t)) {
    printf("# %s (%ld rounds; +- is the 95%% CI of the median):\n",
           opt->no_search ? "the launch settings" : "default vs tuned, measured again interleaved",
           opt->reps);
    print_result(t->o.comm->kind, "default", &cfg[0], &res[0], opt->max_overhead);
    if (!opt->no_search && n == 1)
      printf("tuned    = default: no configuration beat it by more than the noise\n");
    if (!opt->no_search) {
      if (n == 2)
        print_result(t->o.comm->kind, "tuned", &cfg[1], &res[1], opt->max_overhead);
      double d = res[0].t[CB_PHASE_STEP].median - res[1].t[CB_PHASE_STEP].median;
      struct cb_score a = {res[1].t[CB_PHASE_STEP].median, res[1].t[CB_PHASE_STEP].ci95},
                      b = {res[0].t[CB_PHASE_STEP].median, res[0].t[CB_PHASE_STEP].ci95};
      printf("gain: %.3f ms per step (%.1f%%): %s\n", d * 1e3,
             100 * d / res[0].t[CB_PHASE_STEP].median,
             n == 1                     ? "the defaults were already best"
             : cb_search_better(&a, &b) ? "beyond the noise"
                                        : "within the noise");
    }
    char json[4096];
    summary_json(&sr, cfg, res, 2, grad_bytes, t->cl->nranks, opt->max_overhead, json, sizeof json);
    if (cb_trials_line(&t->trials, json, err))
      return err->status;
  }
  /* --env-out is written after --plugin-out's sweep, whose checked results
   * are the only proof of LL128 this run has */
  t->done = 1, t->kind = t->o.comm->kind;
  t->cfg[0] = cfg[0], t->cfg[1] = cfg[1], t->res[0] = res[0], t->res[1] = res[1];
  snprintf(t->version, sizeof t->version, "%s", mpi);
  snprintf(t->where, sizeof t->where, "%s", dtype_where(t));
  return CB_OK;
}

/* Rank 0's files, opened after every check passed: a bad command line
 * truncates nothing. */
/* The outputs checked, nothing written yet (a refusal after this loses
 * nothing already there). */
static int check_outputs(struct tuner *t, struct cb_error *err) {
  if (!is_root(t))
    return CB_OK;
  if ((t->opt->env_out && cb_output_check(t->opt->env_out, "--env-out", CB_OUT_REPLACE, err)) ||
      (t->opt->plugin_out &&
       cb_output_check(t->opt->plugin_out, "--plugin-out", CB_OUT_REPLACE, err)) ||
      (t->opt->trials && cb_output_check(t->opt->trials, "--trials", CB_OUT_STREAM, err)))
    return err->status;
  return CB_OK;
}

/* The trials file opened (with --resume, read first and rewritten with
 * what it held). */
static int open_trials(struct tuner *t, const struct cb_space *space, struct cb_error *err) {
  if (!is_root(t) || !t->opt->trials)
    return CB_OK;
  char setup[4096];
  setup_json(t, space, setup, sizeof setup);
  return cb_trials_open(&t->trials, t->opt->trials, t->opt->resume, setup, err);
}

/* The search space of the chosen library, from the options. */
static int make_space(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                      const struct cb_settings *s, int kind, struct cb_space *space,
                      struct cb_error *err) {
  if (kind == CB_SPACE_MPI) {
    *space = opt->space;
    if (opt->protocols || opt->ctas || opt->plugin_out)
      return cb_fail(err, CB_USAGE, "%s: NCCL only, and this --tune runs on the host (MPI)",
                     opt->protocols ? "--tune-protocols"
                     : opt->ctas    ? "--tune-ctas"
                                    : "--plugin-out");
    return opt->algorithms ? cb_space_parse_algorithms(opt->algorithms, space, err) : CB_OK;
  }
  cb_space_defaults_nccl(space);
  memcpy(space->buckets, opt->space.buckets, sizeof space->buckets);
  space->nbuckets = opt->space.nbuckets;
  if (opt->segments_given)
    return cb_fail(err, CB_USAGE,
                   "--tune-segments: Open MPI's coll/tuned only, and this --tune "
                   "runs NCCL");
  if ((opt->algorithms && cb_space_parse_algorithms(opt->algorithms, space, err)) ||
      (opt->protocols && cb_space_parse_protocols(opt->protocols, space, err)) ||
      (opt->ctas && cb_space_parse_ctas(opt->ctas, space, err)))
    return err->status;
  /* launch values NCCL would refuse are refused here, before any step */
  int index;
  if (cb_nccl_launch_index("NCCL_ALGO", getenv("NCCL_ALGO"), cb_nccl_algo_env, CB_NCCL_NALGOS,
                           &index, err) ||
      cb_nccl_launch_index("NCCL_PROTO", getenv("NCCL_PROTO"), cb_nccl_proto_env, CB_NCCL_NPROTOS,
                           &index, err))
    return err->status;
  /* Refused rather than cleared: NCCL reads them once per process and
   * caches them (misc/param.cc), so clearing works only before the first
   * communicator, and the launch settings would silently change */
  const char *cta_var = opt->ctas ? cb_nccl_cta_env_set() : NULL;
  if (cta_var)
    return cb_fail(err, CB_USAGE,
                   "--tune-ctas: %s='%s' is set, and NCCL lets it override or clamp "
                   "ncclConfig_t's CTA count in every communicator: unset it to tune CTAs",
                   cta_var, getenv(cta_var));
  struct cb_nccl_view v = cb_tune_nccl_view(cl, s->share_gpu);
  cb_nccl_prune("allreduce", &v, space->pair_ok);
  return CB_OK;
}

int cb_tune_run(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                const struct cb_settings *s, int argc, char **argv, struct cb_error *err) {
  if (opt->layout_given)
    return cb_tune_layout(cl, opt, s, err);
  if (opt->calls)
    return cb_tune_calls(cl, opt, s, argc, argv, err);
  const struct cb_compute *compute = NULL;
  const struct cb_comm *comm = NULL;
  struct tuner t = {.cl = cl, .opt = opt, .settings = s, .argc = argc, .argv = argv};
  struct cb_space space;
  int rc = cb_tune_choose(opt->backend, &compute, &comm, err);
  if (rc == CB_OK && comm->kind == CB_SPACE_NCCL)
    rc = cb_gpu_bind(cl, s, &(int){0}, err);
  if (rc == CB_OK && comm->kind == CB_SPACE_NCCL)
    rc = cb_tune_device_step(cl, &compute, err);
  if (rc == CB_OK)
    rc = make_space(cl, opt, s, comm->kind, &space, err);
  if (rc == CB_OK && comm->kind == CB_SPACE_MPI)
    rc = cb_tune_check_memory(cl, &opt->model, err);
  uint64_t b;
  if (rc == CB_OK)
    rc = cb_space_launch_bucket(cb_model_grad_bytes(&opt->model), &b, err);
  if (rc == CB_OK)
    rc = check_outputs(&t, err);
  /* --resume reads the file given, so its mistakes are said first; one
   * that is not there yet is started, so only after the refusals below */
  int reads = opt->resume && opt->trials && access(opt->trials, F_OK) == 0;
  if (rc == CB_OK && reads)
    rc = open_trials(&t, &space, err);
  /* after the inputs' checks, before anything is written: on 1 rank it would
   * search for minutes and find nothing */
  if (rc == CB_OK && cl->nranks < 2)
    rc = cb_fail(err, CB_USAGE,
                 "--tune on 1 rank: there is no communication to tune (an all-reduce on one rank "
                 "is a local copy); launch it on 2 or more, e.g. 'mpirun -np 2 ./collbench "
                 "--tune'");
  if (rc == CB_OK && !reads)
    rc = open_trials(&t, &space, err);
  if (cb_cluster_agree(cl, rc) != CB_OK) {
    cb_trials_close(&t.trials, &(struct cb_error){0});
    return rc ? rc : cb_fail(err, CB_USAGE, "another rank could not set up --tune");
  }
  /* ranks sharing cores get one BLAS thread each (OpenBLAS README, OPENBLAS_NUM_THREADS:
   * more threads than cores slow every rank down) */
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = cl->local_size >= cores ? 1 : (int)(cores / cl->local_size);
  if (cb_watchdog_start(cl, opt->timeout)) {
    cb_trials_close(&t.trials, &(struct cb_error){0});
    return cb_fail(err, CB_RUNTIME, "cannot start the watchdog thread");
  }
  /* copies: the tuner sets and restores both while measuring */
  const char *algo = getenv("NCCL_ALGO"), *proto = getenv("NCCL_PROTO");
  t.launch_algo = algo ? strdup(algo) : NULL;
  t.launch_proto = proto ? strdup(proto) : NULL;
  rc = cb_overlap_init(&t.o, cl, &opt->model, compute, comm, threads, s->share_gpu, err);
  if (rc == CB_OK)
    rc = tune(&t, &space, err);
  cb_watchdog_stop();
  cb_overlap_free(&t.o);
  if (rc == CB_OK && opt->plugin_out)
    rc = cb_plugin_sweep(cl, s, opt->plugin_out, argc, argv, t.ll128_proven, err);
  if (rc == CB_OK && t.done && opt->env_out && is_root(&t)) {
    rc = write_env(&t, opt->env_out, err);
    if (rc == CB_OK)
      printf("wrote %s\n", opt->env_out);
  }
  if (cb_trials_close(&t.trials, err) && rc == CB_OK)
    rc = err->status;
  free(t.launch_algo);
  free(t.launch_proto);
  return rc;
}
