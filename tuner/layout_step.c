/* A parallel layout's step, timed (layout_step.h says how): the plans of
 * its variants replayed through a transport (layout_transport.h). */
#include "layout_step.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "runtime/gpu.h"
#include "runtime/watchdog.h"

struct cb_layout_exec {
  const struct cb_cluster *cl;
  const struct cb_layout *l; /* the variants; l[0] names the layout */
  int nplans;
  const struct cb_layout_transport *tr;
  void *t; /* the transport's */
  struct cb_layout_need need;
  struct cb_step_plan plan[CB_LAYOUT_MAX_VARIANTS];
  const struct cb_step_plan *cur; /* the configuration's variant */
  double wait[CB_NSC];
  double timer_overhead;
  const struct cb_layout_config *cfg; /* the configuration running */
};

int cb_layout_transport_choose(const char *backend, const struct cb_layout_transport **t,
                               struct cb_error *err) {
  char none[256] = "";
  int gpus = cb_gpu_count(none, sizeof none);
  *t = &cb_layout_mpi;
  if (backend ? strcmp(backend, "nccl") : !gpus)
    return CB_OK;
#if CB_HAVE_NCCL && CB_HAVE_CUBLAS
  if (!gpus)
    return cb_fail(err, CB_USAGE, "--tune --parallel --backend nccl: %s", none);
  *t = &cb_layout_nccl;
  return CB_OK;
#else
  if (!backend) /* a GPU, and no NCCL step in this build: the host's */
    return CB_OK;
  return cb_fail(err, CB_USAGE,
                 "--tune --parallel --backend nccl: this collbench was configured without NCCL "
                 "and cuBLAS, so the layout's GPU step is not built");
#endif
}

static int run(struct cb_layout_exec *x, int comm, struct cb_error *err) {
  const struct cb_layout_transport *tr = x->tr;
  for (int i = 0; i < x->cur->n; i++) {
    const struct cb_step_event *e = &x->cur->ev[i];
    int rc = CB_OK;
    if (e->kind == CB_EV_COMPUTE)
      rc = tr->compute(x->t, e->flops, comm, err);
    else if (comm && e->kind == CB_EV_START)
      rc = tr->start(x->t, e, x->cfg ? x->cfg->alg[e->comm][e->op] : 0, err);
    else if (comm)
      rc = tr->wait(x->t, e, err);
    if (rc)
      return rc;
  }
  return tr->finish(x->t, x->wait, err);
}

/* One phase between barriers: out[0] the slowest rank's time, out[1 + d]
 * what that rank waited on dimension d (the rank that set T_step: a
 * faster rank's wait for a slower peer is not on the step's path). */
static int time_phase(struct cb_layout_exec *x, int comm, double *out, struct cb_error *err) {
  char what[160], layout[64];
  cb_parallel_format(&x->l->par, layout, sizeof layout);
  snprintf(what, sizeof what, "--tune --parallel %s --shard %s, the %s", layout,
           cb_shard_names[x->l->shard], comm ? "step" : "step without communication");
  cb_watchdog_arm(what);
  MPI_Barrier(x->cl->comm);
  double t0 = cb_now();
  int rc = run(x, comm, err);
  double mine[1 + CB_NDIMS] = {cb_now() - t0 - x->timer_overhead};
  cb_watchdog_disarm();
  rc = cb_cluster_agree(x->cl, rc);
  if (rc != CB_OK)
    return rc == err->status ? rc : cb_fail(err, rc, "another rank failed in the layout's step");
  for (int c = 0; c < CB_NSC; c++)
    mine[1 + cb_step_comm_dim[c]] += x->wait[c];
  struct {
    double t;
    int rank;
  } me = {mine[0], x->cl->rank}, slowest;
  MPI_Allreduce(&me, &slowest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, x->cl->comm);
  memcpy(out, mine, sizeof mine);
  MPI_Bcast(out, 1 + CB_NDIMS, MPI_DOUBLE, slowest.rank, x->cl->comm);
  return CB_OK;
}

/* The dispatch's counts from --skew over the ep group, as ints for MPI;
 * the combine's are the same transposed. Sets *recv_tokens and the
 * largest side in floats. */
static int skew_counts(struct cb_layout_exec *x, const struct cb_model *m, struct cb_skew *skew,
                       double *recv_tokens, size_t *largest, struct cb_error *err) {
  int ep = x->l->par.size[CB_DIM_EP];
  *recv_tokens = 0, *largest = 0;
  if (ep < 2)
    return CB_OK;
  if (skew && cb_skew_bind(skew, ep, err))
    return err->status;
  struct cb_skew_layout lay;
  size_t total = (size_t)(m->seq * m->batch * m->topk * m->hidden);
  int me = cb_parallel_index(&x->l->par, x->cl->rank, CB_DIM_EP);
  if (cb_skew_layout_alloc(&lay, ep) || cb_skew_layout_fill(skew, ep, me, total, &lay)) {
    cb_skew_layout_free(&lay);
    return cb_fail(err, CB_RUNTIME, "out of memory for the ep dispatch's counts");
  }
  size_t *from[CB_A2A_N] = {lay.send_counts, lay.send_displs, lay.recv_counts, lay.recv_displs};
  int ok = lay.send_total <= INT_MAX && lay.recv_total <= INT_MAX;
  for (int k = 0; k < CB_A2A_N && ok; k++) {
    x->need.a2a[0][k] = malloc((size_t)ep * sizeof(int));
    ok = x->need.a2a[0][k] != NULL;
    for (int j = 0; j < ep && ok; j++)
      x->need.a2a[0][k][j] = (int)from[k][j];
  }
  if (ok) /* the combine sends back what the dispatch received */
    x->need.a2a[1][CB_A2A_SC] = x->need.a2a[0][CB_A2A_RC],
    x->need.a2a[1][CB_A2A_SD] = x->need.a2a[0][CB_A2A_RD],
    x->need.a2a[1][CB_A2A_RC] = x->need.a2a[0][CB_A2A_SC],
    x->need.a2a[1][CB_A2A_RD] = x->need.a2a[0][CB_A2A_SD];
  *recv_tokens = (double)lay.recv_total / (double)m->hidden;
  *largest = lay.send_total > lay.recv_total ? lay.send_total : lay.recv_total;
  cb_skew_layout_free(&lay);
  return ok ? CB_OK : cb_fail(err, CB_RUNTIME, "ep dispatch: counts over INT_MAX or no memory");
}

static int setup(struct cb_layout_exec *x, const struct cb_model *m, struct cb_skew *skew,
                 int threads, int share_gpu, int search, struct cb_error *err) {
  struct cb_layout_need *n = &x->need;
  n->l = x->l, n->m = m, n->threads = threads, n->share_gpu = share_gpu, n->search = search;
  n->stage = cb_parallel_index(&x->l->par, x->cl->rank, CB_DIM_PP);
  x->timer_overhead = cb_timer_overhead();
  double recv_tokens;
  size_t largest;
  if (skew_counts(x, m, skew, &recv_tokens, &largest, err))
    return err->status;
  n->slot_elems = largest;
  for (int v = 0; v < x->nplans; v++) {
    const struct cb_step_plan *p = &x->plan[v];
    if (cb_layout_plan(m, &x->l[v], x->cl->rank, recv_tokens, &x->plan[v]))
      return cb_fail(err, CB_RUNTIME, "out of memory for the step's events");
    if (p->slot_elems > INT_MAX)
      return cb_fail(err, CB_USAGE,
                     "--parallel: one op of this layout carries %llu elements, more than MPI's "
                     "int count; choose a smaller workload or a smaller bucket",
                     (unsigned long long)p->slot_elems);
    if (p->slot_elems > n->slot_elems)
      n->slot_elems = p->slot_elems;
    if (p->nslots > n->nslots)
      n->nslots = p->nslots;
    for (int c = 0; c < CB_NSC; c++)
      for (int o = 0; o < CB_NEV_OPS; o++)
        n->uses[c][o] |= p->calls[c][o] > 0;
  }
  x->cur = &x->plan[0];
  return x->tr->open(x->cl, n, &x->t, err);
}

static void teardown(struct cb_layout_exec *x) {
  if (x->t)
    x->tr->close(x->t);
  x->t = NULL;
  for (int k = 0; k < CB_A2A_N; k++)
    free(x->need.a2a[0][k]);
  for (int v = 0; v < x->nplans; v++)
    cb_layout_plan_free(&x->plan[v]);
}

/* One configuration's statistics: its steps, each round's compute. */
static void summarize(struct cb_layout_exec *x, const struct cb_step_plan *plan, const double *comp,
                      const double *full, int reps, struct cb_layout_result *res) {
  memset(res, 0, sizeof *res);
  double *v = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *v);
  if (!v)
    return;
  const int row = 1 + CB_NDIMS;
  for (int r = 0; r < reps; r++)
    v[r] = full[r * row];
  cb_stats_compute(v, (size_t)reps, &res->step);
  for (int r = 0; r < reps; r++)
    v[r] = comp[r * row];
  cb_stats_compute(v, (size_t)reps, &res->compute);
  for (int r = 0; r < reps; r++) /* paired: the round's own two times */
    v[r] = comp[r * row] > 0 ? (full[r * row] - comp[r * row]) / comp[r * row] : 0;
  cb_stats_compute(v, (size_t)reps, &res->rho);
  res->overhead = cb_overhead_from_rho_interval(res->rho.median, res->rho.ci_lo, res->rho.ci_hi);
  for (int d = 0; d < CB_NDIMS; d++) {
    for (int r = 0; r < reps; r++)
      v[r] = full[r * row + 1 + d];
    cb_stats_compute(v, (size_t)reps, &res->wait[d]);
    for (int r = 0; r < reps; r++)
      v[r] = full[r * row] > 0 ? full[r * row + 1 + d] / full[r * row] : 0;
    cb_stats_compute(v, (size_t)reps, &res->share[d]);
  }
  free(v);
  for (int c = 0; c < CB_NSC; c++) {
    int d = cb_step_comm_dim[c];
    res->used[d] |= cb_layout_group_size(x->l, c) > 1;
    for (int o = 0; o < CB_NEV_OPS; o++)
      res->calls[d][o] += plan->calls[c][o];
  }
  res->flops = plan->flops;
}

int cb_layout_exec_open(const struct cb_cluster *cl, const struct cb_layout_transport *tr,
                        const struct cb_model *m, const struct cb_layout *l, int nl,
                        struct cb_skew *skew, int threads, int share_gpu, int search,
                        struct cb_layout_exec **out, struct cb_error *err) {
  struct cb_layout_exec *x = calloc(1, sizeof *x);
  int rc = x ? CB_OK : cb_fail(err, CB_RUNTIME, "out of memory for the layout's step");
  if (x) {
    x->cl = cl, x->l = l, x->tr = tr;
    x->nplans = nl < 1 ? 1 : nl > CB_LAYOUT_MAX_VARIANTS ? CB_LAYOUT_MAX_VARIANTS : nl;
    rc = setup(x, m, skew, threads, share_gpu, search, err);
  }
  rc = cb_cluster_agree(cl, rc);
  if (rc != CB_OK) {
    if (x)
      teardown(x), free(x);
    return rc == err->status ? rc
                             : cb_fail(err, rc, "another rank could not set up the layout's step");
  }
  *out = x;
  return CB_OK;
}

int cb_layout_knobs(const struct cb_layout_exec *x, struct cb_layout_knob *k, int max) {
  int mine[CB_NSC * CB_NEV_OPS] = {0}, all[CB_NSC * CB_NEV_OPS], n = 0;
  struct cb_layout_knob own[CB_NSC][CB_NEV_OPS];
  for (int c = 0; c < CB_NSC; c++)
    for (int o = 0; o < CB_NEV_OPS; o++) {
      int alg[CB_LAYOUT_MAX_ALGS], na = 0;
      if (cb_layout_group_size(x->l, c) > 1 && x->need.uses[c][o])
        na = x->tr->algs(x->t, c, o, alg);
      own[c][o] = (struct cb_layout_knob){c, o, na, {0}};
      for (int a = 0; a < na && a < CB_LAYOUT_MAX_ALGS; a++)
        own[c][o].alg[a + 1] = (signed char)alg[a];
      mine[c * CB_NEV_OPS + o] = na;
    }
  /* the same list on every rank, or their configurations would differ: a
   * transport offers the same algorithms on every rank (layout_transport.h) */
  MPI_Allreduce(mine, all, CB_NSC * CB_NEV_OPS, MPI_INT, MPI_MIN, x->cl->comm);
  for (int c = 0; c < CB_NSC; c++)
    for (int o = 0; o < CB_NEV_OPS; o++)
      if (all[c * CB_NEV_OPS + o] && n < max) {
        k[n] = own[c][o];
        k[n++].nalgs = all[c * CB_NEV_OPS + o];
      }
  return n;
}

static const struct cb_step_plan *plan_of(const struct cb_layout_exec *x,
                                          const struct cb_layout_config *c) {
  return &x->plan[c->variant > 0 && c->variant < x->nplans ? c->variant : 0];
}

int cb_layout_op_elems(const struct cb_layout_exec *x, int variant, int comm, int op, uint64_t *min,
                       uint64_t *max) {
  int n = 0;
  const struct cb_step_plan *p = plan_of(x, &(struct cb_layout_config){.variant = variant});
  for (int i = 0; i < p->n; i++) {
    const struct cb_step_event *e = &p->ev[i];
    if (e->kind != CB_EV_START || e->comm != comm || e->op != op)
      continue;
    *min = n && *min < e->elems ? *min : e->elems;
    *max = n && *max > e->elems ? *max : e->elems;
    n++;
  }
  return n;
}

int cb_layout_measure(struct cb_layout_exec *x, const struct cb_layout_config *cfg, int n, int reps,
                      struct cb_layout_result *res, struct cb_error *err) {
  const size_t row = 1 + CB_NDIMS, rounds = (size_t)(reps > 0 ? reps : 1);
  double *comp = calloc(rounds * row, sizeof *comp),
         *full = calloc((size_t)n * rounds * row, sizeof *full), scratch[1 + CB_NDIMS];
  int rc = comp && full ? CB_OK : cb_fail(err, CB_RUNTIME, "out of memory for %d rounds", reps);
  /* one warm-up round; then each round the compute alone, and every
   * configuration's step, starting one later each round */
  for (int r = -1; r < reps && rc == CB_OK; r++) {
    x->cur = plan_of(x, &cfg[0]); /* the compute is every variant's */
    rc = time_phase(x, 0, r < 0 ? scratch : comp + (size_t)r * row, err);
    for (int k = 0; k < n && rc == CB_OK; k++) {
      int i = r < 0 ? k : (k + r) % n;
      x->cfg = &cfg[i], x->cur = plan_of(x, &cfg[i]);
      rc = time_phase(x, 1, r < 0 ? scratch : full + ((size_t)i * rounds + (size_t)r) * row, err);
    }
  }
  x->cfg = NULL;
  for (int i = 0; i < n && rc == CB_OK; i++)
    summarize(x, plan_of(x, &cfg[i]), comp, full + (size_t)i * rounds * row, reps, &res[i]);
  free(comp), free(full);
  return rc;
}

void cb_layout_exec_close(struct cb_layout_exec *x) {
  if (!x)
    return;
  teardown(x);
  free(x);
}
