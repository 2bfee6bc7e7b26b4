/* The layout's step on the host (layout_transport.h): a communicator per
 * dimension split from the world, non-blocking MPI for every op, OpenBLAS
 * GEMMs of each compute's FLOPs with the library given the CPU between
 * them. A rank has one thread, so the time it spends starting and waiting
 * on an op is that op's communicator's. Each communicator keeps its own
 * coll/libnbc algorithm: libnbc reads the variable at each call, so it is
 * written through MPI_T before each start, and read back. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"
#include "kernels/blas.h"
#include "layout_transport.h"
#include "runtime/mpit.h"

struct host {
  const struct cb_cluster *cl;
  const struct cb_layout_need *need;
  MPI_Comm comm[CB_NSC]; /* MPI_COMM_NULL where the group has one rank */
  float *send, *recv;    /* a region of slot_elems per slot */
  MPI_Request *req;
  float *a, *b, *c; /* the GEMM's operands: t x h times h x 4h */
  size_t gm, gk, gn;
  double wait[CB_NSC];
  int mpit, have[CB_NEV_OPS], launch[CB_NEV_OPS], current[CB_NEV_OPS];
  MPI_T_cvar_handle knob[CB_NEV_OPS];
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

static const char *algo_name(int op, int alg) {
  return op >= 0 && op < CB_NEV_OPS && alg >= 0 && alg <= nbc[op].n ? nbc[op].names[alg] : NULL;
}

static int algs(void *t, int comm, int op, int *alg) {
  struct host *h = t;
  (void)comm; /* libnbc's variable is read at each call: any communicator */
  int n = op >= 0 && op < CB_NEV_OPS && h->have[op] ? nbc[op].n : 0;
  for (int a = 0; a < n; a++)
    alg[a] = a + 1;
  return n;
}

static void open_knobs(struct host *h) {
  int provided;
  h->mpit = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
  for (int o = 0; o < CB_NEV_OPS && h->mpit; o++)
    if (nbc[o].cvar && cb_mpit_find_cvar(nbc[o].cvar, MPI_INT, &h->knob[o])) {
      h->have[o] = MPI_T_cvar_read(h->knob[o], &h->launch[o]) == MPI_SUCCESS;
      h->current[o] = h->launch[o];
    }
}

/* The configuration's algorithm, before the op starts; read back, as a
 * library may accept a write and keep its value. */
static int set_algorithm(struct host *h, const struct cb_step_event *e, int want,
                         struct cb_error *err) {
  if (!h->have[e->op])
    return CB_OK;
  if (!want)
    want = h->launch[e->op];
  if (want == h->current[e->op])
    return CB_OK;
  int got = -1;
  if (MPI_T_cvar_write(h->knob[e->op], &want) != MPI_SUCCESS ||
      MPI_T_cvar_read(h->knob[e->op], &got) != MPI_SUCCESS || got != want)
    return cb_fail(err, CB_RUNTIME, "rank %d: MPI_T did not take %s = %d for the %s communicator",
                   h->cl->rank, nbc[e->op].cvar, want, cb_step_comm_names[e->comm]);
  h->current[e->op] = want;
  return CB_OK;
}

static void close_knobs(struct host *h) {
  for (int o = 0; o < CB_NEV_OPS; o++)
    if (h->have[o]) {
      MPI_T_cvar_write(h->knob[o], &h->launch[o]);
      MPI_T_cvar_handle_free(&h->knob[o]);
      h->have[o] = 0;
    }
  if (h->mpit)
    MPI_T_finalize();
  h->mpit = 0;
}

static int mpi_fail(const struct host *h, int rc, const char *call, const struct cb_step_event *e,
                    struct cb_error *err) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): %s on the %s communicator, %llu floats: %s",
                 h->cl->rank, h->cl->hostname, call, cb_step_comm_names[e->comm],
                 (unsigned long long)e->elems, text);
}

static void host_close(void *t) {
  struct host *h = t;
  if (!h)
    return;
  close_knobs(h);
  for (int c = 0; c < CB_NSC; c++)
    if (h->comm[c] != MPI_COMM_NULL)
      MPI_Comm_free(&h->comm[c]);
  free(h->send), free(h->recv), free(h->req), free(h->a), free(h->b), free(h->c);
  free(h);
}

static int host_open(const struct cb_cluster *cl, const struct cb_layout_need *need, void **t,
                     struct cb_error *err) {
  struct host *h = calloc(1, sizeof *h);
  if (!h)
    return cb_fail(err, CB_RUNTIME, "rank %d: out of memory for the layout's step", cl->rank);
  *t = h;
  h->cl = cl, h->need = need;
  for (int c = 0; c < CB_NSC; c++) {
    h->comm[c] = MPI_COMM_NULL;
    if (cb_layout_group_size(need->l, c) > 1)
      MPI_Comm_split(cl->comm, cb_layout_color(need->l, cl->rank, c), cl->rank, &h->comm[c]);
  }
  open_knobs(h);
  if (cb_blas_load(need->threads, err))
    return err->status;
  const struct cb_model *m = need->m;
  size_t slots = need->nslots ? (size_t)need->nslots : 1;
  h->send = calloc(slots * need->slot_elems + 1, sizeof(float));
  h->recv = calloc(slots * need->slot_elems + 1, sizeof(float));
  h->req = malloc(slots * sizeof *h->req);
  h->gm = (size_t)(m->seq * m->batch), h->gk = (size_t)m->hidden, h->gn = 4 * (size_t)m->hidden;
  h->a = calloc(h->gm * h->gk, sizeof(float));
  h->b = calloc(h->gk * h->gn, sizeof(float));
  h->c = calloc(h->gm * h->gn, sizeof(float));
  if (!h->send || !h->recv || !h->req || !h->a || !h->b || !h->c)
    return cb_fail(err, CB_RUNTIME, "rank %d: out of memory for the step's buffers (%zu slots)",
                   cl->rank, slots);
  for (size_t s = 0; s < slots; s++)
    h->req[s] = MPI_REQUEST_NULL;
  return CB_OK;
}

static int start_op(struct host *h, const struct cb_step_event *e, struct cb_error *err) {
  MPI_Comm c = h->comm[e->comm];
  size_t at = (size_t)e->slot * h->need->slot_elems;
  float *sb = h->send + at, *rb = h->recv + at;
  MPI_Request *r = &h->req[e->slot];
  int n = 1, count = (int)e->elems, rc = MPI_SUCCESS, stage = h->need->stage;
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
    int *const *v = h->need->a2a[e->reverse];
    call = "MPI_Ialltoallv";
    rc = MPI_Ialltoallv(sb, v[CB_A2A_SC], v[CB_A2A_SD], MPI_FLOAT, rb, v[CB_A2A_RC], v[CB_A2A_RD],
                        MPI_FLOAT, c, r);
    break;
  }
  /* activations go forward with tag 1, their gradients back with tag 2 */
  case CB_EV_SEND:
    call = "MPI_Isend";
    rc = MPI_Isend(sb, count, MPI_FLOAT, e->peer, e->peer > stage ? 1 : 2, c, r);
    break;
  default:
    call = "MPI_Irecv";
    rc = MPI_Irecv(rb, count, MPI_FLOAT, e->peer, e->peer < stage ? 1 : 2, c, r);
  }
  return rc == MPI_SUCCESS ? CB_OK : mpi_fail(h, rc, call, e, err);
}

static int host_start(void *t, const struct cb_step_event *e, int alg, struct cb_error *err) {
  struct host *h = t;
  if (set_algorithm(h, e, alg, err))
    return err->status;
  double t0 = cb_now();
  int rc = start_op(h, e, err);
  h->wait[e->comm] += cb_now() - t0;
  return rc;
}

static int host_wait(void *t, const struct cb_step_event *e, struct cb_error *err) {
  struct host *h = t;
  double t0 = cb_now();
  int rc = MPI_Wait(&h->req[e->slot], MPI_STATUS_IGNORE);
  h->wait[e->comm] += cb_now() - t0;
  return rc == MPI_SUCCESS ? CB_OK : mpi_fail(h, rc, "MPI_Wait", e, err);
}

/* The library gets the CPU between GEMMs: each op in flight tested. */
static void poll(struct host *h) {
  for (int s = 0; s < h->need->nslots; s++)
    if (h->req[s] != MPI_REQUEST_NULL) {
      int done;
      MPI_Test(&h->req[s], &done, MPI_STATUS_IGNORE);
    }
}

static int host_compute(void *t, double flops, int comm, struct cb_error *err) {
  struct host *h = t;
  (void)err;
  double per_col = 2.0 * (double)h->gm * (double)h->gk;
  size_t cols = (size_t)(flops / per_col + 0.5);
  while (cols > 0) {
    size_t n = cols < h->gn ? cols : h->gn;
    cb_blas_sgemm(h->gm, n, h->gk, h->a, h->b, h->c);
    cols -= n;
    if (comm)
      poll(h);
  }
  return CB_OK;
}

static int host_finish(void *t, double wait[CB_NSC], struct cb_error *err) {
  struct host *h = t;
  (void)err; /* the plan waited for everything it started */
  memcpy(wait, h->wait, sizeof h->wait);
  memset(h->wait, 0, sizeof h->wait);
  return CB_OK;
}

const struct cb_layout_transport cb_layout_mpi = {
    .name = "mpi",
    .what = "MPI non-blocking collectives on a communicator per dimension, OpenBLAS GEMMs",
    .where = "the host",
    .no_algos = "this MPI has no coll_libnbc algorithm variable for the collectives this layout "
                "issues",
    .env_note = "Open MPI's coll_libnbc_*_algorithm is one value a process; collbench sets it per "
                "communicator through MPI_T before each call",
    .open = host_open,
    .algs = algs,
    .algo_name = algo_name,
    .start = host_start,
    .wait = host_wait,
    .compute = host_compute,
    .finish = host_finish,
    .close = host_close,
};
