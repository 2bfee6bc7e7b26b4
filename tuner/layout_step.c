/* A parallel layout's step on the host, timed (layout_step.h says how). */
#include "layout_step.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "kernels/blas.h"
#include "runtime/mpit.h"
#include "runtime/watchdog.h"

enum { A2A_SC, A2A_SD, A2A_RC, A2A_RD, A2A_N };

struct cb_layout_exec {
  const struct cb_cluster *cl;
  const struct cb_layout *l; /* the variants; l[0] names the layout */
  int nplans;
  MPI_Comm comm[CB_NSC]; /* MPI_COMM_NULL where the group has one rank */
  int stage;
  struct cb_step_plan plan[CB_LAYOUT_MAX_VARIANTS];
  const struct cb_step_plan *cur; /* the configuration's variant */
  int nslots;                     /* the most any variant needs */
  size_t slot_floats;
  float *send, *recv; /* a region of slot_floats per slot */
  MPI_Request *req;
  int *a2a[2][A2A_N]; /* the dispatch's counts and displacements, and the combine's */
  float *a, *b, *c;   /* the GEMM's operands: t x h times h x 4h */
  size_t gm, gk, gn;
  double wait[CB_NSC];
  double timer_overhead;
  /* libnbc's algorithm variables, through MPI_T */
  int mpit, have[CB_NEV_OPS], launch[CB_NEV_OPS], current[CB_NEV_OPS];
  MPI_T_cvar_handle knob[CB_NEV_OPS];
  const struct cb_layout_config *cfg; /* the configuration running */
};

/* Open MPI 4.1's coll/libnbc algorithms (ompi_info --param coll libnbc
 * --level 9); its other non-blocking collectives have no such variable. */
static const struct {
  const char *cvar;
  const char *names[5];
  int n;
} nbc[CB_NEV_OPS] = {
    [CB_EV_ALLREDUCE] = {"coll_libnbc_iallreduce_algorithm",
                         {"library", "ring", "binomial", "rabenseifner", "recursive_doubling"},
                         4},
    [CB_EV_ALLGATHER] = {"coll_libnbc_iallgather_algorithm",
                         {"library", "linear", "recursive_doubling"},
                         2},
};

const char *cb_layout_algo_name(int op, int alg) {
  return op >= 0 && op < CB_NEV_OPS && alg >= 0 && alg <= nbc[op].n ? nbc[op].names[alg] : NULL;
}

static void open_knobs(struct cb_layout_exec *x) {
  int provided;
  x->mpit = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
  for (int o = 0; o < CB_NEV_OPS && x->mpit; o++)
    if (nbc[o].cvar && cb_mpit_find_cvar(nbc[o].cvar, MPI_INT, &x->knob[o])) {
      x->have[o] = MPI_T_cvar_read(x->knob[o], &x->launch[o]) == MPI_SUCCESS;
      x->current[o] = x->launch[o];
    }
}

/* The algorithm of the configuration running, before the op starts;
 * read back, as a library may accept a write and keep its value. */
static int set_algorithm(struct cb_layout_exec *x, const struct cb_step_event *e,
                         struct cb_error *err) {
  if (!x->have[e->op])
    return CB_OK;
  int want = x->cfg ? x->cfg->alg[e->comm][e->op] : 0;
  if (!want)
    want = x->launch[e->op];
  if (want == x->current[e->op])
    return CB_OK;
  int got = -1;
  if (MPI_T_cvar_write(x->knob[e->op], &want) != MPI_SUCCESS ||
      MPI_T_cvar_read(x->knob[e->op], &got) != MPI_SUCCESS || got != want)
    return cb_fail(err, CB_RUNTIME, "rank %d: MPI_T did not take %s = %d for the %s communicator",
                   x->cl->rank, nbc[e->op].cvar, want, cb_step_comm_names[e->comm]);
  x->current[e->op] = want;
  return CB_OK;
}

static void close_knobs(struct cb_layout_exec *x) {
  for (int o = 0; o < CB_NEV_OPS; o++)
    if (x->have[o]) {
      MPI_T_cvar_write(x->knob[o], &x->launch[o]);
      MPI_T_cvar_handle_free(&x->knob[o]);
      x->have[o] = 0;
    }
  if (x->mpit)
    MPI_T_finalize();
  x->mpit = 0;
}

static int mpi_fail(const struct cb_layout_exec *x, int rc, const char *call,
                    const struct cb_step_event *e, struct cb_error *err) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): %s on the %s communicator, %llu floats: %s",
                 x->cl->rank, x->cl->hostname, call, cb_step_comm_names[e->comm],
                 (unsigned long long)e->elems, text);
}

static int start_op(struct cb_layout_exec *x, const struct cb_step_event *e, struct cb_error *err) {
  MPI_Comm c = x->comm[e->comm];
  float *sb = x->send + (size_t)e->slot * x->slot_floats,
        *rb = x->recv + (size_t)e->slot * x->slot_floats;
  MPI_Request *r = &x->req[e->slot];
  int n = 1, count = (int)e->elems, rc = MPI_SUCCESS;
  MPI_Comm_size(c, &n);
  const char *call = "";
  switch (e->op) {
  case CB_EV_ALLREDUCE:
    call = "MPI_Iallreduce";
    rc = MPI_Iallreduce(sb, rb, count, MPI_FLOAT, MPI_SUM, c, r);
    break;
  case CB_EV_ALLGATHER:
    call = "MPI_Iallgather";
    rc = MPI_Iallgather(sb, count / n, MPI_FLOAT, rb, count / n, MPI_FLOAT, c, r);
    break;
  case CB_EV_REDUCE_SCATTER:
    call = "MPI_Ireduce_scatter_block";
    rc = MPI_Ireduce_scatter_block(sb, rb, count / n, MPI_FLOAT, MPI_SUM, c, r);
    break;
  case CB_EV_ALLTOALLV: {
    int **v = x->a2a[e->reverse];
    call = "MPI_Ialltoallv";
    rc = MPI_Ialltoallv(sb, v[A2A_SC], v[A2A_SD], MPI_FLOAT, rb, v[A2A_RC], v[A2A_RD], MPI_FLOAT, c,
                        r);
    break;
  }
  /* activations go forward with tag 1, their gradients back with tag 2 */
  case CB_EV_SEND:
    call = "MPI_Isend";
    rc = MPI_Isend(sb, count, MPI_FLOAT, e->peer, e->peer > x->stage ? 1 : 2, c, r);
    break;
  default:
    call = "MPI_Irecv";
    rc = MPI_Irecv(rb, count, MPI_FLOAT, e->peer, e->peer < x->stage ? 1 : 2, c, r);
  }
  return rc == MPI_SUCCESS ? CB_OK : mpi_fail(x, rc, call, e, err);
}

/* The library gets the CPU between GEMMs: each op in flight tested. */
static void poll(struct cb_layout_exec *x) {
  for (int s = 0; s < x->nslots; s++)
    if (x->req[s] != MPI_REQUEST_NULL) {
      int done;
      MPI_Test(&x->req[s], &done, MPI_STATUS_IGNORE);
    }
}

static void compute(struct cb_layout_exec *x, double flops, int comm) {
  double per_col = 2.0 * (double)x->gm * (double)x->gk;
  size_t cols = (size_t)(flops / per_col + 0.5);
  while (cols > 0) {
    size_t n = cols < x->gn ? cols : x->gn;
    cb_blas_sgemm(x->gm, n, x->gk, x->a, x->b, x->c);
    cols -= n;
    if (comm)
      poll(x);
  }
}

static int run(struct cb_layout_exec *x, int comm, struct cb_error *err) {
  memset(x->wait, 0, sizeof x->wait);
  for (int i = 0; i < x->cur->n; i++) {
    const struct cb_step_event *e = &x->cur->ev[i];
    if (e->kind == CB_EV_COMPUTE) {
      compute(x, e->flops, comm);
      continue;
    }
    if (!comm)
      continue;
    if (e->kind == CB_EV_START && set_algorithm(x, e, err))
      return err->status;
    double t0 = cb_now();
    if (e->kind == CB_EV_START) {
      if (start_op(x, e, err))
        return err->status;
    } else {
      int rc = MPI_Wait(&x->req[e->slot], MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS)
        return mpi_fail(x, rc, "MPI_Wait", e, err);
    }
    x->wait[e->comm] += cb_now() - t0;
  }
  return CB_OK;
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

/* The ranks each communicator holds, by the color all its members share. */
static int color(const struct cb_layout *l, int rank, int sc) {
  const struct cb_parallel *p = &l->par;
  switch (sc) {
  case CB_SC_TP: return cb_parallel_group(p, rank, CB_DIM_TP);
  case CB_SC_EP: return cb_parallel_group(p, rank, CB_DIM_EP);
  case CB_SC_DP: /* the dense group: same tp and pp index */
    return cb_parallel_index(p, rank, CB_DIM_TP) +
           p->size[CB_DIM_TP] * cb_parallel_index(p, rank, CB_DIM_PP);
  case CB_SC_EDP: return cb_parallel_group(p, rank, CB_DIM_DP);
  default: return cb_parallel_group(p, rank, CB_DIM_PP);
  }
}

static int group_size(const struct cb_layout *l, int sc) {
  const int *n = l->par.size;
  switch (sc) {
  case CB_SC_TP: return n[CB_DIM_TP];
  case CB_SC_EP: return n[CB_DIM_EP];
  case CB_SC_DP: return n[CB_DIM_DP] * n[CB_DIM_EP];
  case CB_SC_EDP: return n[CB_DIM_EP] > 1 ? n[CB_DIM_DP] : 1;
  default: return n[CB_DIM_PP];
  }
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
  size_t *from[A2A_N] = {lay.send_counts, lay.send_displs, lay.recv_counts, lay.recv_displs};
  int ok = lay.send_total <= INT_MAX && lay.recv_total <= INT_MAX;
  for (int k = 0; k < A2A_N && ok; k++) {
    x->a2a[0][k] = malloc((size_t)ep * sizeof(int));
    ok = x->a2a[0][k] != NULL;
    for (int j = 0; j < ep && ok; j++)
      x->a2a[0][k][j] = (int)from[k][j];
  }
  if (ok) /* the combine sends back what the dispatch received */
    x->a2a[1][A2A_SC] = x->a2a[0][A2A_RC], x->a2a[1][A2A_SD] = x->a2a[0][A2A_RD],
    x->a2a[1][A2A_RC] = x->a2a[0][A2A_SC], x->a2a[1][A2A_RD] = x->a2a[0][A2A_SD];
  *recv_tokens = (double)lay.recv_total / (double)m->hidden;
  *largest = lay.send_total > lay.recv_total ? lay.send_total : lay.recv_total;
  cb_skew_layout_free(&lay);
  return ok ? CB_OK : cb_fail(err, CB_RUNTIME, "ep dispatch: counts over INT_MAX or no memory");
}

static int setup(struct cb_layout_exec *x, const struct cb_model *m, struct cb_skew *skew,
                 int threads, struct cb_error *err) {
  for (int c = 0; c < CB_NSC; c++) {
    x->comm[c] = MPI_COMM_NULL;
    if (group_size(x->l, c) > 1)
      MPI_Comm_split(x->cl->comm, color(x->l, x->cl->rank, c), x->cl->rank, &x->comm[c]);
  }
  x->stage = cb_parallel_index(&x->l->par, x->cl->rank, CB_DIM_PP);
  x->timer_overhead = cb_timer_overhead();
  open_knobs(x);
  double recv_tokens;
  size_t largest;
  if (skew_counts(x, m, skew, &recv_tokens, &largest, err) || cb_blas_load(threads, err))
    return err->status;
  x->slot_floats = largest;
  for (int v = 0; v < x->nplans; v++) {
    const struct cb_step_plan *p = &x->plan[v];
    if (cb_layout_plan(m, &x->l[v], x->cl->rank, recv_tokens, &x->plan[v]))
      return cb_fail(err, CB_RUNTIME, "out of memory for the step's events");
    if (p->slot_elems > INT_MAX)
      return cb_fail(err, CB_USAGE,
                     "--parallel: one op of this layout carries %llu elements, more than MPI's "
                     "int count; choose a smaller workload or a smaller bucket",
                     (unsigned long long)p->slot_elems);
    if (p->slot_elems > x->slot_floats)
      x->slot_floats = p->slot_elems;
    if (p->nslots > x->nslots)
      x->nslots = p->nslots;
  }
  x->cur = &x->plan[0];
  size_t slots = x->nslots ? (size_t)x->nslots : 1;
  x->send = calloc(slots * x->slot_floats + 1, sizeof(float));
  x->recv = calloc(slots * x->slot_floats + 1, sizeof(float));
  x->req = malloc(slots * sizeof *x->req);
  x->gm = (size_t)(m->seq * m->batch), x->gk = (size_t)m->hidden, x->gn = 4 * (size_t)m->hidden;
  x->a = calloc(x->gm * x->gk, sizeof(float));
  x->b = calloc(x->gk * x->gn, sizeof(float));
  x->c = calloc(x->gm * x->gn, sizeof(float));
  if (!x->send || !x->recv || !x->req || !x->a || !x->b || !x->c)
    return cb_fail(err, CB_RUNTIME, "rank %d: out of memory for the step's buffers (%zu slots)",
                   x->cl->rank, slots);
  for (size_t s = 0; s < slots; s++)
    x->req[s] = MPI_REQUEST_NULL;
  return CB_OK;
}

static void teardown(struct cb_layout_exec *x) {
  close_knobs(x);
  for (int c = 0; c < CB_NSC; c++)
    if (x->comm[c] != MPI_COMM_NULL)
      MPI_Comm_free(&x->comm[c]);
  for (int k = 0; k < A2A_N; k++)
    free(x->a2a[0][k]);
  for (int v = 0; v < x->nplans; v++)
    cb_layout_plan_free(&x->plan[v]);
  free(x->send), free(x->recv), free(x->req), free(x->a), free(x->b), free(x->c);
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
    res->used[d] |= group_size(x->l, c) > 1;
    for (int o = 0; o < CB_NEV_OPS; o++)
      res->calls[d][o] += plan->calls[c][o];
  }
  res->flops = plan->flops;
}

int cb_layout_exec_open(const struct cb_cluster *cl, const struct cb_model *m,
                        const struct cb_layout *l, int nl, struct cb_skew *skew, int threads,
                        struct cb_layout_exec **out, struct cb_error *err) {
  struct cb_layout_exec *x = calloc(1, sizeof *x);
  int rc = x ? CB_OK : cb_fail(err, CB_RUNTIME, "out of memory for the layout's step");
  if (x) {
    x->cl = cl, x->l = l;
    x->nplans = nl < 1 ? 1 : nl > CB_LAYOUT_MAX_VARIANTS ? CB_LAYOUT_MAX_VARIANTS : nl;
    rc = setup(x, m, skew, threads, err);
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
  for (int c = 0; c < CB_NSC; c++)
    for (int o = 0; o < CB_NEV_OPS; o++)
      for (int v = 0; v < x->nplans; v++)
        mine[c * CB_NEV_OPS + o] |= x->have[o] && x->plan[v].calls[c][o] > 0;
  /* the same list on every rank, or their configurations would differ */
  MPI_Allreduce(mine, all, CB_NSC * CB_NEV_OPS, MPI_INT, MPI_MIN, x->cl->comm);
  for (int c = 0; c < CB_NSC; c++)
    for (int o = 0; o < CB_NEV_OPS; o++)
      if (all[c * CB_NEV_OPS + o] && n < max)
        k[n++] = (struct cb_layout_knob){c, o, nbc[o].n};
  return n;
}

static const struct cb_step_plan *plan_of(const struct cb_layout_exec *x,
                                          const struct cb_layout_config *c) {
  return &x->plan[c->variant > 0 && c->variant < x->nplans ? c->variant : 0];
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
