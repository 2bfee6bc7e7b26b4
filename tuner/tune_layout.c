/* --tune --parallel L [--shard S]: the reference step in a parallel layout,
 * each communicator's algorithms searched, with each dimension's exposed
 * communication (tune_layout.h). */
#include "tune_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/units.h"
#include "envfile.h"
#include "layout_rules.h"
#include "layout_step.h"
#include "output/replace.h"
#include "results/verdict.h"
#include "runtime/gpu.h"
#include "runtime/settings.h"
#include "runtime/watchdog.h"
#include "search.h"
#include "step_setup.h"

/* The layout refused before anything runs: a refusal names the value. */
static int check(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                 const struct cb_settings *s, const struct cb_layout_transport **tr,
                 struct cb_error *err) {
  const struct cb_layout *l = &opt->layout;
  char layout[64];
  cb_parallel_format(&l->par, layout, sizeof layout);
  if (cb_layout_transport_choose(opt->backend, tr, err) ||
      ((*tr)->gpu && cb_gpu_bind(cl, s, &(int){0}, err)) ||
      cb_parallel_fit(&l->par, cl->nranks, cl->node_of_rank, err) ||
      cb_layout_check(&opt->model, l, err))
    return err->status;
  if (opt->plugin_out && !(*tr)->gpu)
    return cb_fail(err, CB_USAGE,
                   "--plugin-out %s: rules for NCCL's tuner plugin, and this --tune --parallel "
                   "%s runs %s on %s (give --backend nccl on a host with a GPU)",
                   opt->plugin_out, layout, (*tr)->name, (*tr)->where);
  if (cl->rank == 0 &&
      ((opt->env_out && cb_output_check(opt->env_out, "--env-out", CB_OUT_REPLACE, err)) ||
       (opt->plugin_out && cb_output_check(opt->plugin_out, "--plugin-out", CB_OUT_REPLACE, err))))
    return err->status;
  /* the job's states: in the node's memory on the host, in the GPU's on
   * one (shared by every rank on it under --share-gpu) */
  int gpu = (*tr)->gpu, sharing = gpu && !s->share_gpu ? 1 : cl->local_size;
  double need = (double)cb_layout_state_bytes(&opt->model, l);
  double avail = (double)(gpu ? cb_gpu_mem_total() : cb_mem_available_bytes()) / sharing;
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
                   "of %s are available to each of %d ranks on %s: %s",
                   opt->model.name, layout, cb_shard_names[l->shard], need / (1 << 30),
                   avail / (1 << 30), gpu ? "the GPU's memory" : "memory", sharing, cl->hostname,
                   hint);
  }
  return CB_OK;
}

/* The layout's variants the search turns, each its own plan: FSDP's
 * prefetch depths 0 to 3, or the DDP/ZeRO-2 buckets of --tune-buckets
 * (1 MiB to 256 MiB by default) and the launch bucket, each at most the
 * rank's gradients; one variant with --no-search or where dp has one rank. */
struct variants {
  struct cb_layout l[CB_LAYOUT_MAX_VARIANTS];
  char label[CB_LAYOUT_MAX_VARIANTS][32];
  int n, base;      /* base: the launch setting */
  const char *knob; /* "dp bucket", "dp prefetch", or NULL: nothing to turn */
};

static int cmp_bucket(const void *a, const void *b) {
  uint64_t x = ((const struct cb_layout *)a)->bucket_elems,
           y = ((const struct cb_layout *)b)->bucket_elems;
  return x < y ? -1 : x > y;
}

static int make_variants(const struct cb_tune_options *opt, struct variants *v,
                         struct cb_error *err) {
  const struct cb_layout *l = &opt->layout;
  struct cb_layout launch = *l, none = *l;
  none.shard = CB_SHARD_NONE;
  uint64_t grads = cb_layout_state_bytes(&opt->model, &none) / 16 * sizeof(float), bucket;
  if (cb_space_launch_bucket(grads, &bucket, err))
    return err->status;
  long layers = opt->model.layers / l->par.size[CB_DIM_PP];
  launch.bucket_elems = bucket / sizeof(float) ? bucket / sizeof(float) : 1;
  if (launch.prefetch > layers - 1)
    launch.prefetch = (int)(layers - 1);
  memset(v, 0, sizeof *v);
  v->l[v->n++] = launch;
  int turn = !opt->no_search && l->par.size[CB_DIM_DP] * l->par.size[CB_DIM_EP] > 1;
  if (l->shard == CB_SHARD_FULL) {
    for (int d = 0, n = 0; d <= 3 && d < layers && turn;
         d++) /* in order, the launch's among them */
      v->l[n] = launch, v->l[n++].prefetch = d, v->n = n;
    for (int i = 0; i < v->n; i++) {
      snprintf(v->label[i], sizeof v->label[i], "%d", v->l[i].prefetch);
      if (v->l[i].prefetch == launch.prefetch)
        v->base = i;
    }
  } else {
    for (int i = 0; i < opt->space.nbuckets && turn; i++) {
      uint64_t b = opt->space.buckets[i] < grads ? opt->space.buckets[i] : grads;
      uint64_t e = b / sizeof(float) ? b / sizeof(float) : 1;
      int seen = 0;
      for (int k = 0; k < v->n; k++)
        seen |= v->l[k].bucket_elems == e;
      if (!seen && v->n < CB_LAYOUT_MAX_VARIANTS)
        v->l[v->n] = launch, v->l[v->n++].bucket_elems = e;
    }
    qsort(v->l, (size_t)v->n, sizeof v->l[0], cmp_bucket);
    for (int i = 0; i < v->n; i++) {
      cb_format_size(v->l[i].bucket_elems * sizeof(float), v->label[i], sizeof v->label[i]);
      if (v->l[i].bucket_elems == launch.bucket_elems)
        v->base = i;
    }
  }
  if (v->n > 1)
    v->knob = l->shard == CB_SHARD_FULL ? "dp prefetch" : "dp bucket";
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

/* One measured configuration's fields, as JSON members (no braces). */
static size_t result_fields(char *buf, size_t len, const struct cb_layout_result *r,
                            double target) {
  size_t u =
      (size_t)snprintf(buf, len,
                       "\"t_compute_ms\":[%.6g,%.6g,%.6g],\"t_step_ms\":[%.6g,%.6g,%.6g],"
                       "\"rho\":[%.6g,%.6g,%.6g],\"overhead\":[%.6g,%.6g,%.6g],\"verdict\":\"%s\","
                       "\"exposed\":{",
                       r->compute.median * 1e3, r->compute.ci_lo * 1e3, r->compute.ci_hi * 1e3,
                       r->step.median * 1e3, r->step.ci_lo * 1e3, r->step.ci_hi * 1e3,
                       r->rho.median, r->rho.ci_lo, r->rho.ci_hi, r->overhead.value, r->overhead.lo,
                       r->overhead.hi, cb_verdict_names[cb_overhead_judge(r->overhead, target)]);
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
    u += (size_t)snprintf(buf + u, len - u, "}");
  return u;
}

/* "dp bucket 4 MiB; tp allreduce=ring, dp allgather=linear"; "the
 * library's own choices" when no algorithm is set. */
static const char *config_text(const struct cb_layout_transport *tr, const struct variants *v,
                               const struct cb_layout_config *a, char *buf, size_t len) {
  size_t u = 0, start = 0;
  buf[0] = '\0';
  if (v->knob)
    u = start = (size_t)snprintf(buf, len, "%s %s; ", v->knob, v->label[a->variant]);
  for (int c = 0; c < CB_NSC; c++)
    for (int o = 0; o < CB_NEV_OPS; o++)
      if (a->alg[c][o] && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%s%s %s=%s", u > start ? ", " : "",
                              cb_step_comm_names[c], cb_ev_op_names[o],
                              tr->algo_name(o, a->alg[c][o]));
  if (u == start && u < len)
    snprintf(buf + u, len - u, "the library's own choices");
  return buf;
}

static char *result_json(const struct cb_tune_options *opt, const struct cb_cluster *cl,
                         const struct cb_layout_transport *tr, const struct variants *v,
                         const struct cb_layout_result *r, const struct cb_layout_config *tuned) {
  const size_t len = 16384;
  char layout[64], *buf = malloc(len);
  if (!buf)
    return NULL;
  cb_parallel_format(&opt->layout.par, layout, sizeof layout);
  const struct cb_model *m = &opt->model;
  size_t u = (size_t)snprintf(
      buf, len,
      "{\"type\":\"layout\",\"parallel\":\"%s\",\"shard\":\"%s\",\"workload\":\"%s\","
      "\"model\":[%ld,%ld,%ld,%ld,%ld],\"microbatches\":%ld,\"experts\":%ld,\"topk\":%ld,"
      "\"sequence_parallel\":%ld,\"skew\":\"%s\",\"bucket_bytes\":%llu,\"prefetch\":%d,"
      "\"nranks\":%d,"
      "\"reps\":%ld,\"max_overhead\":%g,",
      layout, cb_shard_names[opt->layout.shard], m->name, m->hidden, m->layers, m->heads, m->seq,
      m->batch, m->microbatches, m->experts, m->topk, m->sequence_parallel,
      opt->skew ? opt->skew->label : "uniform",
      (unsigned long long)(v->l[v->base].bucket_elems * sizeof(float)), v->l[v->base].prefetch,
      cl->nranks, opt->reps, opt->max_overhead);
  if (u < len)
    u += result_fields(buf + u, len - u, &r[0], opt->max_overhead);
  if (tuned && u < len) {
    u += (size_t)snprintf(buf + u, len - u,
                          ",\"tuned\":{\"bucket_bytes\":%llu,\"prefetch\":%d,"
                          "\"algorithms\":{",
                          (unsigned long long)(v->l[tuned->variant].bucket_elems * sizeof(float)),
                          v->l[tuned->variant].prefetch);
    int k = 0;
    for (int c = 0; c < CB_NSC && u < len; c++)
      for (int o = 0; o < CB_NEV_OPS && u < len; o++)
        if (tuned->alg[c][o])
          u += (size_t)snprintf(buf + u, len - u, "%s\"%s %s\":\"%s\"", k++ ? "," : "",
                                cb_step_comm_names[c], cb_ev_op_names[o],
                                tr->algo_name(o, tuned->alg[c][o]));
    if (u < len)
      u += (size_t)snprintf(buf + u, len - u, "},");
    if (u < len)
      u += result_fields(buf + u, len - u, &r[1], opt->max_overhead);
    if (u < len)
      u += (size_t)snprintf(buf + u, len - u, "}");
  }
  if (u < len)
    u += (size_t)snprintf(buf + u, len - u, "}");
  if (u >= len) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* One knob's n values measured interleaved (cfg[cur] the one held):
 * the fastest step taken only when it beats the held one beyond the noise.
 * Every rank reaches the same decision: the times it judges are the same
 * on all ranks. Rank 0 prints each value's step. */
static int turn(const struct cb_cluster *cl, struct cb_layout_exec *x, const char *knob,
                const char (*label)[32], const struct cb_layout_config *cfg, int n, int cur,
                int reps, int *pick, struct cb_error *err) {
  struct cb_layout_result res[CB_LAYOUT_MAX_VARIANTS];
  if (cb_layout_measure(x, cfg, n, reps, res, err))
    return err->status;
  int b = cur;
  for (int a = 0; a < n; a++)
    if (res[a].step.median < res[b].step.median)
      b = a;
  struct cb_score sb = {res[b].step.median, res[b].step.ci95},
                  sc = {res[cur].step.median, res[cur].step.ci95};
  *pick = b != cur && cb_search_better(&sb, &sc) ? b : cur;
  if (cl->rank == 0) {
    printf("# %s:", knob);
    for (int a = 0; a < n; a++)
      printf("%s %s %.3f ms +- %.3f", a ? "," : "", label[a], res[a].step.median * 1e3,
             res[a].step.ci95 * 1e3);
    printf(" -> %s\n", *pick != cur ? label[*pick]
                       : b == cur   ? "kept (the fastest)"
                                    : "kept (none faster beyond the noise)");
    fflush(stdout);
  }
  return CB_OK;
}

/* Coordinate descent from the launch settings: the variant first (the
 * bucket or the prefetch depth), then each communicator's algorithm of
 * each op. */
static int search(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                  const struct cb_layout_transport *tr, const struct variants *v,
                  struct cb_layout_exec *x, struct cb_layout_config *best, struct cb_error *err) {
  struct cb_layout_config cfg[CB_LAYOUT_MAX_VARIANTS];
  char label[CB_LAYOUT_MAX_VARIANTS][32];
  int reps = (int)opt->reps, pick;
  if (v->knob) {
    for (int i = 0; i < v->n; i++)
      cfg[i] = *best, cfg[i].variant = i;
    if (turn(cl, x, v->knob, v->label, cfg, v->n, best->variant, reps, &pick, err))
      return err->status;
    best->variant = pick;
  }
  struct cb_layout_knob k[CB_NSC * CB_NEV_OPS];
  int nk = cb_layout_knobs(x, k, CB_NSC * CB_NEV_OPS);
  if (cl->rank == 0 && !nk)
    printf("# search: no algorithm to turn (%s)\n", tr->no_algos);
  for (int j = 0; j < nk; j++) {
    int n = k[j].nalgs + 1, c = k[j].comm, o = k[j].op, cur = 0;
    char knob[64];
    snprintf(knob, sizeof knob, "%s %s", cb_step_comm_names[c], cb_ev_op_names[o]);
    for (int a = 0; a < n; a++) {
      cfg[a] = *best, cfg[a].alg[c][o] = k[j].alg[a];
      cur = k[j].alg[a] == best->alg[c][o] ? a : cur;
      snprintf(label[a], sizeof label[a], "%s", tr->algo_name(o, k[j].alg[a]));
    }
    if (turn(cl, x, knob, (const char(*)[32])label, cfg, n, cur, reps, &pick, err))
      return err->status;
    best->alg[c][o] = k[j].alg[pick];
  }
  return CB_OK;
}

/* What the tuned step chose per (communicator, collective) on NCCL, for
 * --env-out and --plugin-out: the sizes rank 0's groups call it with, and
 * each communicator as NCCL sees it. */
struct choices {
  struct cb_layout_choice ch[CB_NSC * CB_NEV_OPS];
  int n, version;
};

static int nccl_choices(const struct cb_cluster *cl, const struct cb_settings *s,
                        const struct cb_layout_transport *tr, const struct cb_layout_exec *x,
                        const struct variants *v, const struct cb_model *m,
                        const struct cb_layout_config *tuned, struct choices *out,
                        struct cb_error *err) {
  out->n = 0, out->version = tr->version ? tr->version() : 0;
  if (!tr->gpu)
    return CB_OK;
  const struct cb_layout *l = &v->l[tuned->variant];
  uint64_t esize = cb_model_dtype_bytes(m->dtype);
  for (int c = 0; c < CB_NSC; c++)
    for (int o = 0; o < CB_NEV_OPS; o++) {
      uint64_t lo, hi;
      if (!cb_layout_nccl_colls[o] || cb_layout_group_size(l, c) < 2 ||
          !cb_layout_op_elems(x, tuned->variant, c, o, &lo, &hi))
        continue;
      struct cb_nccl_view g;
      if (cb_layout_nccl_view(cl, s->share_gpu, l, c, &g))
        return cb_fail(err, CB_RUNTIME, "rank %d: out of memory for the tuned choices", cl->rank);
      out->ch[out->n++] = (struct cb_layout_choice){cb_step_comm_names[c],
                                                    cb_layout_nccl_colls[o],
                                                    tuned->alg[c][o],
                                                    lo * esize,
                                                    hi * esize,
                                                    g.nnodes,
                                                    g.nranks};
    }
  return CB_OK;
}

/* --env-out: what a job can set process-wide; what it cannot, said. */
struct env_state {
  const struct cb_tune_options *opt;
  const struct cb_layout_transport *tr;
  const struct variants *v;
  const struct cb_layout_config *tuned;
  const struct choices *nccl;
};

/* NCCL_ALGO and NCCL_PROTO for the collectives every communicator agrees
 * on; the notes say the rest. */
static void nccl_vars(const struct choices *ch, char (*values)[512], struct cb_env_var *vars,
                      int *nv, struct cb_layout_notes *notes, const char **comments, int *nc) {
  cb_layout_nccl_env(ch->ch, ch->n, ch->version, values[0], sizeof values[0], values[1],
                     sizeof values[1], notes);
  if (values[0][0])
    vars[(*nv)++] = (struct cb_env_var){"NCCL_ALGO", values[0]};
  if (values[1][0])
    vars[(*nv)++] = (struct cb_env_var){"NCCL_PROTO", values[1]};
  for (int i = 0; i < notes->n; i++)
    comments[(*nc)++] = notes->text[i];
}

static int write_env(void *state, FILE *f) {
  const struct env_state *e = state;
  char layout[64], line[512], algos[512];
  cb_parallel_format(&e->opt->layout.par, layout, sizeof layout);
  const char *comments[CB_NEV_OPS + 4 + CB_LAYOUT_NOTES];
  struct cb_layout_notes nn = {.n = 0};
  char nccl[2][512];
  char notes[CB_NEV_OPS][1024], knob[256], bytes[32];
  int nc = 0, nv = 0;
  struct cb_env_var vars[CB_NEV_OPS + 3];
  char names[CB_NEV_OPS][96], values[CB_NEV_OPS][8];
  const struct cb_layout *l = &e->v->l[e->tuned->variant];
  snprintf(line, sizeof line, "collbench --tune --parallel %s --shard %s, workload %s: %s", layout,
           cb_shard_names[e->opt->layout.shard], e->opt->model.name,
           config_text(e->tr, e->v, e->tuned, algos, sizeof algos));
  comments[nc++] = line;
  if (e->tr->env_note)
    comments[nc++] = e->tr->env_note;
  if (e->v->knob && l->shard == CB_SHARD_FULL) { /* the framework's setting, not an env var */
    snprintf(knob, sizeof knob,
             "FSDP prefetch depth %d: PyTorch FSDP2's set_modules_to_forward_prefetch and "
             "set_modules_to_backward_prefetch with the next %d layer(s)%s",
             l->prefetch, l->prefetch, l->prefetch ? "" : " (none: gathered when needed)");
    comments[nc++] = knob;
  } else if (e->v->knob) {
    snprintf(knob, sizeof knob,
             CB_BUCKET_VAR " is the DDP/ZeRO-2 gradient bucket in bytes: PyTorch DDP(model, "
                           "bucket_cap_mb=%.2f); collbench --tune reads it as the launch bucket",
             (double)(l->bucket_elems * sizeof(float)) / (1 << 20));
    comments[nc++] = knob;
    snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)(l->bucket_elems * sizeof(float)));
    vars[nv++] = (struct cb_env_var){CB_BUCKET_VAR, bytes};
  }
  if (e->tr->gpu)
    nccl_vars(e->nccl, nccl, vars, &nv, &nn, comments, &nc);
  for (int o = 0; o < CB_NEV_OPS && !e->tr->gpu; o++) {
    int want = 0, conflict = 0;
    for (int c = 0; c < CB_NSC; c++) {
      int a = e->tuned->alg[c][o];
      if (a && want && a != want)
        conflict = 1;
      if (a && !want)
        want = a;
    }
    if (!want)
      continue;
    if (conflict) {
      snprintf(notes[o], sizeof notes[o],
               "not set: the communicators want different %s algorithms (%s); one value a "
               "process cannot say it",
               cb_ev_op_names[o], algos);
      comments[nc++] = notes[o];
      continue;
    }
    snprintf(names[o], sizeof names[o], "OMPI_MCA_coll_libnbc_i%s_algorithm", cb_ev_op_names[o]);
    snprintf(values[o], sizeof values[o], "%d", want);
    vars[nv++] = (struct cb_env_var){names[o], values[o]};
  }
  struct cb_error err;
  return cb_env_write(f, comments, nc, vars, nv, &err);
}

/* --plugin-out: a rule per (communicator, collective) with its tuned pair,
 * at that communicator's node and rank counts and the sizes it is called
 * with; what no rule can say, said. */
static int write_rules(void *state, FILE *f) {
  const struct env_state *e = state;
  char layout[64], line[768], algos[512];
  const char *comments[2 + CB_LAYOUT_NOTES];
  struct cb_layout_notes notes = {.n = 0};
  struct cb_plugin_rule rules[CB_NSC * CB_NEV_OPS];
  int nc = 0,
      nr = cb_layout_plugin_rules(e->nccl->ch, e->nccl->n, rules, CB_NSC * CB_NEV_OPS, &notes);
  cb_parallel_format(&e->opt->layout.par, layout, sizeof layout);
  snprintf(line, sizeof line,
           "collbench --tune --parallel %s --shard %s, workload %s: %s; each rule the tuned "
           "pair of one communicator (its nNodes and nRanks as NCCL counts them) over the sizes "
           "the step calls it with; margin none: the search compared whole steps, not calls",
           layout, cb_shard_names[e->opt->layout.shard], e->opt->model.name,
           config_text(e->tr, e->v, e->tuned, algos, sizeof algos));
  comments[nc++] = line;
  for (int i = 0; i < notes.n; i++)
    comments[nc++] = notes.text[i];
  cb_plugin_write_each(f, comments, nc, rules, nr);
  return CB_OK;
}

static int write_line(void *line, FILE *f) {
  return fputs(line, f) == EOF || fputc('\n', f) == EOF;
}

int cb_tune_layout(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                   const struct cb_settings *s, struct cb_error *err) {
  struct variants v;
  const struct cb_layout_transport *tr = &cb_layout_mpi;
  int rc = check(cl, opt, s, &tr, err);
  if (rc == CB_OK)
    rc = make_variants(opt, &v, err);
  /* --trials holds this search's one line, written at the end as --env-out
   * is: checked now, replaced whole then, so a run killed on the way leaves
   * the earlier file as it was */
  if (rc == CB_OK && cl->rank == 0 && opt->trials)
    rc = cb_output_check(opt->trials, "--trials", CB_OUT_REPLACE, err);
  if (cb_cluster_agree(cl, rc) != CB_OK)
    return rc ? rc : cb_fail(err, CB_USAGE, "another rank could not set up --tune --parallel");
  const struct cb_model *m = &opt->model;
  char layout[64], bucket[64];
  cb_parallel_format(&opt->layout.par, layout, sizeof layout);
  if (cl->rank == 0) {
    printf("# --tune --parallel %s --shard %s: workload %s (hidden %ld, %ld layers, %ld heads, "
           "seq %ld, batch %ld; microbatches %ld, experts %ld, topk %ld, sequence_parallel "
           "%ld), float on %s\n",
           layout, cb_shard_names[opt->layout.shard], m->name, m->hidden, m->layers, m->heads,
           m->seq, m->batch, m->microbatches, m->experts, m->topk, m->sequence_parallel, tr->where);
    const struct cb_layout *l = &v.l[v.base];
    if (l->shard == CB_SHARD_FULL)
      snprintf(bucket, sizeof bucket, "FSDP prefetch depth %d", l->prefetch);
    else {
      char size[32];
      snprintf(bucket, sizeof bucket, "DDP/ZeRO-2 buckets of %s",
               cb_format_size(l->bucket_elems * sizeof(float), size, sizeof size));
    }
    printf("# %d ranks on %d node(s); %s; %s; ep dispatch skew %s\n", cl->nranks, cl->nnodes,
           tr->what, bucket, opt->skew ? opt->skew->label : "uniform");
    printf("# exposed: the time the slowest rank's step waits on each dimension's ops, as a "
           "share of T_step (tuner/TUNING.md, \"Parallel layouts\")\n");
    fflush(stdout);
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = cl->local_size >= cores ? 1 : (int)(cores / cl->local_size);
  struct cb_layout_result res[2];
  struct cb_layout_config cfg[2] = {{.variant = v.base}, {.variant = v.base}};
  struct cb_layout_exec *x = NULL;
  struct choices chosen = {.n = 0};
  int n = 1;
  if (cb_watchdog_start(cl, opt->timeout))
    rc = cb_fail(err, CB_RUNTIME, "cannot start the watchdog thread");
  else {
    rc = cb_layout_exec_open(cl, tr, m, v.l, v.n, opt->skew, threads, s->share_gpu, !opt->no_search,
                             &x, err);
    if (rc == CB_OK && !opt->no_search) {
      if (cl->rank == 0)
        printf("# search (coordinate descent: %s%seach communicator's algorithms, %ld rounds "
               "per batch, T_step of the slowest rank):\n",
               v.knob ? v.knob : "", v.knob ? ", then " : "", opt->reps);
      rc = search(cl, opt, tr, &v, x, &cfg[1], err);
      n = memcmp(&cfg[0], &cfg[1], sizeof cfg[0]) ? 2 : 1;
    }
    if (rc == CB_OK)
      rc = cb_layout_measure(x, cfg, n, (int)opt->reps, res, err);
    if (rc == CB_OK)
      rc = nccl_choices(cl, s, tr, x, &v, m, &cfg[n - 1], &chosen, err);
    cb_layout_exec_close(x);
    cb_watchdog_stop();
  }
  if (rc == CB_OK && cl->rank == 0) {
    char a[512];
    print_calls(&res[0]);
    printf("# %s (%ld rounds; [lo, hi] the 95%% CI of the median):\n",
           n == 2 ? "default vs tuned, measured again interleaved" : "the launch settings",
           opt->reps);
    printf("default  %s\n", config_text(tr, &v, &cfg[0], a, sizeof a));
    print_result(&res[0], opt->max_overhead);
    if (n == 2) {
      printf("tuned    %s\n", config_text(tr, &v, &cfg[1], a, sizeof a));
      print_result(&res[1], opt->max_overhead);
      double d = res[0].step.median - res[1].step.median;
      struct cb_score t1 = {res[1].step.median, res[1].step.ci95},
                      t0 = {res[0].step.median, res[0].step.ci95};
      printf("gain: %.3f ms per step (%.1f%%): %s\n", d * 1e3, 100 * d / res[0].step.median,
             cb_search_better(&t1, &t0) ? "beyond the noise" : "within the noise");
    } else if (!opt->no_search)
      printf("tuned    = default: no %s beat the launch's by more than the noise\n",
             v.knob ? "setting" : "algorithm");
    if (opt->trials) {
      char *line = result_json(opt, cl, tr, &v, res, n == 2 ? &cfg[1] : NULL);
      rc = line ? cb_replace_write(opt->trials, "--trials", write_line, line, err)
                : cb_fail(err, CB_RUNTIME, "--trials %s: out of memory", opt->trials);
      free(line);
    }
    if (rc == CB_OK && opt->env_out) {
      struct env_state e = {opt, tr, &v, &cfg[n - 1], &chosen};
      rc = cb_replace_write(opt->env_out, "--env-out", write_env, &e, err);
      if (rc == CB_OK)
        printf("wrote %s\n", opt->env_out);
    }
    if (rc == CB_OK && opt->plugin_out) {
      struct env_state e = {opt, tr, &v, &cfg[n - 1], &chosen};
      rc = cb_replace_write(opt->plugin_out, "--plugin-out", write_rules, &e, err);
      if (rc == CB_OK)
        printf("wrote %s\n", opt->plugin_out);
    }
  }
  return rc;
}
