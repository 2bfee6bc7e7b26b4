/* The MPI backend: host memory, any MPI-3 library (Open MPI, MPICH).
 * Point-to-point follows the OSU micro-benchmarks: blocking ping-pong,
 * windows of non-blocking sends acknowledged by the receiver. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "base/dtype.h"
#include "ompi_algo.h"
#include "ops/skew.h"
#include "runtime/gpu.h"
#include "runtime/settings.h"

static const char *const transports[] = {"auto", "shm", "tcp", NULL};

struct mpi_ctx {
  const struct cb_cluster *cl;
  const struct cb_settings *s;
  char no_gpu[160];    /* why pinned/device memory cannot be used; "" when it can */
  char not_aware[160]; /* why device memory cannot go to MPI; "" when it can */
  MPI_Comm comm;
  MPI_Request *requests;
  MPI_Status *statuses; /* not MPI_STATUSES_IGNORE: MPICH's headers make gcc warn */
  int nrequests;
  int *v; /* alltoallv's counts and displacements as MPI takes them: 4 x nranks */
  const struct cb_skew_layout *v_layout; /* ... made from this layout at this row's count */
  size_t v_count;
  MPI_Request slots[CB_MAX_CONCURRENT]; /* --concurrent's ops in flight */
  char intra[16], inter[16];            /* path labels within and between nodes */
  /* Open MPI coll/tuned: whether it serves the collectives with rules
   * collbench knows (no rules file, not displaced by coll/han), and the
   * algorithm the run forced per op (0: the fixed rules decide). */
  int tuned;
  int forced[CB_NOPS];
  int segsize; /* coll_tuned_allreduce_algorithm_segmentsize */
};

#define ACK_TAG 7
#define DATA_TAG 8

static int mpi_failed(const struct mpi_ctx *c, const struct cb_op_args *a, const char *call,
                      int code, struct cb_error *err) {
  char text[MPI_MAX_ERROR_STRING] = "";
  int len;
  MPI_Error_string(code, text, &len);
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): mpi: %s failed for %s of %zu elements: %s (%d)",
                 c->cl->rank, c->cl->hostname, call, a->op->name, a->count, text, code);
}

#define TRY(call)                                                                                  \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_ != MPI_SUCCESS)                                                                        \
      return mpi_failed(c, a, #call, rc_, err);                                                    \
  } while (0)

static MPI_Datatype mpi_type(int dtype) {
  switch (dtype) {
  case CB_INT8: return MPI_INT8_T;
  case CB_INT32: return MPI_INT32_T;
  case CB_INT64: return MPI_INT64_T;
  case CB_FLOAT: return MPI_FLOAT;
  case CB_DOUBLE: return MPI_DOUBLE;
  default: return MPI_UINT16_T; /* no standard 16-bit floats: moved as words */
  }
}

static MPI_Op mpi_op(int redop) {
  switch (redop) {
  case CB_PROD: return MPI_PROD;
  case CB_MIN: return MPI_MIN;
  case CB_MAX: return MPI_MAX;
  default: return MPI_SUM;
  }
}

static const void *in(const struct cb_op_args *a) {
  return a->send ? a->send : MPI_IN_PLACE;
}

static int run_allreduce(struct mpi_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  TRY(MPI_Allreduce(in(a), a->recv, (int)a->count, mpi_type(a->dtype), mpi_op(a->redop), c->comm));
  return CB_OK;
}

static int run_allgather(struct mpi_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  MPI_Datatype t = mpi_type(a->dtype);
  TRY(MPI_Allgather(in(a), (int)a->count, t, a->recv, (int)a->count, t, c->comm));
  return CB_OK;
}

static int run_reducescatter(struct mpi_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  TRY(MPI_Reduce_scatter_block(in(a), a->recv, (int)a->count, mpi_type(a->dtype), mpi_op(a->redop),
                               c->comm));
  return CB_OK;
}

static int run_broadcast(struct mpi_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  TRY(MPI_Bcast(a->recv, (int)a->count, mpi_type(a->dtype), a->root, c->comm));
  return CB_OK;
}

static int run_alltoall(struct mpi_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  MPI_Datatype t = mpi_type(a->dtype);
  TRY(MPI_Alltoall(in(a), (int)a->count, t, a->recv, (int)a->count, t, c->comm));
  return CB_OK;
}

/* MPI counts and displacements are ints: each is checked on the way in,
 * once per row rather than in every timed call. A layout follows from the
 * row's count alone (skew and ranks are the run's), so the same layout at
 * the same count needs no new ints. */
static int alltoallv_ints(struct mpi_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  const struct cb_skew_layout *l = a->layout;
  int n = c->cl->nranks;
  if (c->v && c->v_layout == l && c->v_count == a->count)
    return CB_OK;
  if (!c->v && !(c->v = malloc(4 * (size_t)n * sizeof *c->v)))
    return cb_fail(err, CB_RUNTIME, "rank %d: out of memory for alltoallv's counts", c->cl->rank);
  c->v_layout = NULL;
  const size_t *from[4] = {l->send_counts, l->send_displs, l->recv_counts, l->recv_displs};
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < n; j++) {
      if (from[k][j] > INT_MAX)
        return cb_fail(err, CB_RUNTIME,
                       "rank %d (%s): mpi: alltoallv's %zu elements for rank %d exceed MPI's "
                       "int counts",
                       c->cl->rank, c->cl->hostname, from[k][j], j);
      c->v[k * n + j] = (int)from[k][j];
    }
  c->v_layout = l, c->v_count = a->count;
  return CB_OK;
}

static int run_alltoallv(struct mpi_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  int n = c->cl->nranks;
  if (alltoallv_ints(c, a, err))
    return err->status;
  MPI_Datatype t = mpi_type(a->dtype);
  TRY(MPI_Alltoallv(a->send, c->v, c->v + n, t, a->recv, c->v + 2 * n, c->v + 3 * n, t, c->comm));
  return CB_OK;
}

static int run_p2p_lat(struct mpi_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  MPI_Datatype t = mpi_type(a->dtype);
  int n = (int)a->count;
  if (a->peer < 0)
    return CB_OK;
  if (c->cl->rank % 2 == 0) {
    TRY(MPI_Send(a->send, n, t, a->peer, DATA_TAG, c->comm));
    TRY(MPI_Recv(a->recv, n, t, a->peer, DATA_TAG, c->comm, MPI_STATUS_IGNORE));
  } else {
    TRY(MPI_Recv(a->recv, n, t, a->peer, DATA_TAG, c->comm, MPI_STATUS_IGNORE));
    TRY(MPI_Send(a->send, n, t, a->peer, DATA_TAG, c->comm));
  }
  return CB_OK;
}

static int reserve_requests(struct mpi_ctx *c, int n, const struct cb_op_args *a,
                            struct cb_error *err) {
  if (n <= c->nrequests)
    return CB_OK;
  MPI_Request *r = realloc(c->requests, (size_t)n * sizeof *r);
  if (r)
    c->requests = r;
  MPI_Status *st = r ? realloc(c->statuses, (size_t)n * sizeof *st) : NULL;
  if (!st)
    return cb_fail(err, CB_RUNTIME, "rank %d: out of memory for a window of %d requests (%s)",
                   c->cl->rank, a->window, a->op->name);
  c->statuses = st;
  c->nrequests = n;
  return CB_OK;
}

/* One window: even ranks send, odd ranks receive then acknowledge. */
static int run_p2p_bw(struct mpi_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  MPI_Datatype t = mpi_type(a->dtype);
  int n = (int)a->count, w = a->window, ack = 0;
  if (a->peer < 0)
    return CB_OK;
  if (reserve_requests(c, w, a, err))
    return err->status;
  int sender = c->cl->rank % 2 == 0;
  for (int i = 0; i < w; i++) {
    if (sender)
      TRY(MPI_Isend(a->send, n, t, a->peer, DATA_TAG, c->comm, &c->requests[i]));
    else
      TRY(MPI_Irecv(a->recv, n, t, a->peer, DATA_TAG, c->comm, &c->requests[i]));
  }
  TRY(MPI_Waitall(w, c->requests, c->statuses));
  if (sender)
    TRY(MPI_Recv(&ack, 1, MPI_INT, a->peer, ACK_TAG, c->comm, MPI_STATUS_IGNORE));
  else
    TRY(MPI_Send(&ack, 1, MPI_INT, a->peer, ACK_TAG, c->comm));
  return CB_OK;
}

/* One window each way at once. */
static int run_p2p_bibw(struct mpi_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  MPI_Datatype t = mpi_type(a->dtype);
  int n = (int)a->count, w = a->window;
  if (a->peer < 0)
    return CB_OK;
  if (reserve_requests(c, 2 * w, a, err))
    return err->status;
  for (int i = 0; i < w; i++)
    TRY(MPI_Irecv(a->recv, n, t, a->peer, DATA_TAG, c->comm, &c->requests[i]));
  for (int i = 0; i < w; i++)
    TRY(MPI_Isend(a->send, n, t, a->peer, DATA_TAG, c->comm, &c->requests[w + i]));
  TRY(MPI_Waitall(2 * w, c->requests, c->statuses));
  return CB_OK;
}

/* --concurrent: the non-blocking form of each collective on a split
 * communicator; progress comes from test()'s MPI_Test, called in turn. */
static int mpi_split(void *ctx, int color, int key, void **comm, struct cb_error *err) {
  struct mpi_ctx *c = ctx;
  MPI_Comm *sub = malloc(sizeof *sub);
  int rc = sub ? MPI_Comm_split(c->comm, color, key, sub) : MPI_ERR_NO_MEM;
  if (rc != MPI_SUCCESS) {
    free(sub);
    return cb_fail(err, CB_RUNTIME, "rank %d (%s): mpi: MPI_Comm_split(color %d) failed (%d)",
                   c->cl->rank, c->cl->hostname, color, rc);
  }
  *comm = sub;
  return CB_OK;
}

static void mpi_free_comm(void *ctx, void *comm) {
  (void)ctx;
  MPI_Comm_free(comm);
  free(comm);
}

static int mpi_start(void *ctx, void *comm, const struct cb_op_args *a, int slot,
                     struct cb_error *err) {
  struct mpi_ctx *c = ctx;
  MPI_Comm g = *(MPI_Comm *)comm;
  MPI_Datatype t = mpi_type(a->dtype);
  int n = (int)a->count;
  MPI_Request *r = &c->slots[slot];
  switch (a->op->id) {
  case CB_OP_ALLREDUCE: TRY(MPI_Iallreduce(in(a), a->recv, n, t, mpi_op(a->redop), g, r)); break;
  case CB_OP_ALLGATHER: TRY(MPI_Iallgather(in(a), n, t, a->recv, n, t, g, r)); break;
  case CB_OP_REDUCESCATTER:
    TRY(MPI_Ireduce_scatter_block(in(a), a->recv, n, t, mpi_op(a->redop), g, r));
    break;
  case CB_OP_BROADCAST: TRY(MPI_Ibcast(a->recv, n, t, a->root, g, r)); break;
  case CB_OP_ALLTOALL: TRY(MPI_Ialltoall(in(a), n, t, a->recv, n, t, g, r)); break;
  default:
    return cb_fail(err, CB_USAGE, "mpi: %s does not run side by side (--concurrent)", a->op->name);
  }
  return CB_OK;
}

static int mpi_test(void *ctx, int slot, int *done, struct cb_error *err) {
  struct mpi_ctx *c = ctx;
  int rc = MPI_Test(&c->slots[slot], done, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS)
    return cb_fail(err, CB_RUNTIME, "rank %d (%s): mpi: MPI_Test of --concurrent's op %d: %d",
                   c->cl->rank, c->cl->hostname, slot, rc);
  return CB_OK;
}

typedef int (*runner)(struct mpi_ctx *, const struct cb_op_args *, struct cb_error *);
static const runner runners[CB_NOPS] = {
    [CB_OP_ALLREDUCE] = run_allreduce,
    [CB_OP_ALLGATHER] = run_allgather,
    [CB_OP_REDUCESCATTER] = run_reducescatter,
    [CB_OP_BROADCAST] = run_broadcast,
    [CB_OP_ALLTOALL] = run_alltoall,
    [CB_OP_P2P_LAT] = run_p2p_lat,
    [CB_OP_P2P_BW] = run_p2p_bw,
    [CB_OP_P2P_BIBW] = run_p2p_bibw,
    [CB_OP_ALLTOALLV] = run_alltoallv,
};

static int mpi_run(void *ctx, const struct cb_op_args *a, struct cb_error *err) {
  return runners[a->op->id](ctx, a, err);
}

#ifdef OPEN_MPI
static int tool_open(void);
#endif

static int mpi_pre_init(const char *transport, struct cb_error *err) {
#ifdef OPEN_MPI
  (void)err;
  /* Read by Open MPI at MPI_Init; the run record shows them. */
  if (strcmp(transport, "auto") != 0) {
    setenv("OMPI_MCA_pml", "ob1", 1);
    setenv("OMPI_MCA_btl", strcmp(transport, "shm") == 0 ? "self,vader" : "self,tcp", 1);
  }
  /* Open MPI reads its OMPI_MCA_ variables here, not at MPI_Init: every
   * one must be set before (mode_tune.c's pre_mpi sets its own first) */
  tool_open();
  return CB_OK;
#else
  if (strcmp(transport, "auto") == 0)
    return CB_OK;
  return cb_fail(err, CB_USAGE,
                 "--transport %s: only Open MPI's paths can be chosen; with this MPI use "
                 "--transport auto and its own environment variables",
                 transport);
#endif
}

static int mpi_probe(char *why, size_t len) {
  snprintf(why, len, "usable");
  return 1;
}

static void mpi_version(char *buf, size_t len) {
  cb_mpi_library(buf, len);
}

#ifdef OPEN_MPI
/* An Open MPI component selection string ("self,vader", "^ucx", "") admits
 * a component unless it is excluded or another list names only others. */
static int admits(const char *list, const char *component) {
  if (!list || !*list)
    return 1;
  int exclude = list[0] == '^';
  const char *p = list + exclude;
  size_t n = strlen(component);
  int named = 0;
  while (*p) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, component, n) == 0)
      named = 1;
    p += len + (p[len] == ',');
  }
  return exclude ? !named : named;
}

/* The effective value of an MCA parameter, wherever it was set: a string
 * into buf (type MPI_CHAR), or an int or bool into *num. Returns 0 when
 * the library has no such variable. */
/* One MPI_T session for the process, never closed: Open MPI 4.1 registers
 * every framework again (a dlopen of each component) whenever the last
 * session is opened after one closed, about 0.2 s a time; a session per
 * variable made each backend init (each burn-in pass) take about 2 s.
 * Opened before MPI_Init (mpi_pre_init) it costs almost nothing more than
 * MPI_Init alone, which then finds the frameworks registered: 0.26 s for
 * both against 0.46 s opened after (2 ranks, Open MPI 4.1.4, this VM). */
static int tool_open(void) {
  static int open = -1;
  int provided;
  if (open < 0)
    open = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
  return open;
}

static int read_cvar_as(const char *name, MPI_Datatype want, char *buf, size_t len, int *num) {
  int ncvars, found = 0;
  if (buf)
    buf[0] = '\0';
  if (!tool_open())
    return 0;
  MPI_T_cvar_get_num(&ncvars);
  for (int i = 0; i < ncvars && !found; i++) {
    char cname[256], desc[8];
    int nlen = sizeof cname, dlen = sizeof desc, verbosity, bind, scope, count;
    MPI_Datatype type;
    MPI_T_enum en;
    if (MPI_T_cvar_get_info(i, cname, &nlen, &verbosity, &type, &en, desc, &dlen, &bind, &scope) !=
            MPI_SUCCESS ||
        strcmp(cname, name) != 0 || type != want)
      continue;
    MPI_T_cvar_handle h;
    if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
      break;
    if (want == MPI_CHAR) {
      char *value = calloc((size_t)count + 1, 1); /* count: the string's capacity */
      if (value && MPI_T_cvar_read(h, value) == MPI_SUCCESS)
        snprintf(buf, len, "%s", value), found = 1;
      free(value);
    } else {
      int v = 0; /* a bool fills its first byte only */
      if (MPI_T_cvar_read(h, &v) == MPI_SUCCESS)
        *num = want == MPI_C_BOOL ? (v & 0xff) != 0 : v, found = 1;
    }
    MPI_T_cvar_handle_free(&h);
  }
  return found;
}

static void read_cvar(const char *name, char *buf, size_t len) {
  read_cvar_as(name, MPI_CHAR, buf, len, NULL);
}

static int read_cvar_int(const char *name, MPI_Datatype type, int fallback) {
  int v = fallback;
  return read_cvar_as(name, type, NULL, 0, &v) ? v : fallback;
}

/* What coll/tuned will run (Open MPI 4.1, ompi/mca/coll/tuned/coll_tuned_component.c and
 * coll_tuned_allreduce_decision.c): an algorithm is
 * forced only with use_dynamic_rules and coll_tuned_<coll>_algorithm set;
 * a dynamic rules file decides by rules collbench cannot see. */
static void read_tuned(struct mpi_ctx *c) {
  char coll[256], file[512];
  read_cvar("coll", coll, sizeof coll);
  read_cvar("coll_tuned_dynamic_rules_filename", file, sizeof file);
  int dynamic = read_cvar_int("coll_tuned_use_dynamic_rules", MPI_C_BOOL, 0);
  int tuned_prio = read_cvar_int("coll_tuned_priority", MPI_INT, 30);
  int han_prio = read_cvar_int("coll_han_priority", MPI_INT, 0);
  c->tuned = admits(coll, "tuned") && !(dynamic && file[0]) &&
             !(admits(coll, "han") && han_prio >= tuned_prio);
  c->segsize = read_cvar_int("coll_tuned_allreduce_algorithm_segmentsize", MPI_INT, 0);
  for (int op = 0; op < CB_NOPS && dynamic; op++) {
    const char *coll_name = cb_ompi_coll_name(op);
    char name[96];
    if (!coll_name)
      continue;
    snprintf(name, sizeof name, "coll_tuned_%s_algorithm", coll_name);
    c->forced[op] = read_cvar_int(name, MPI_INT, 0);
  }
}

/* Open MPI has no call that says which BTL carried a message, so the
 * label follows from the selected components and each pair's locality. */
static void derive_labels(struct mpi_ctx *c) {
  char pml[256], btl[256];
  read_cvar("pml", pml, sizeof pml);
  read_cvar("btl", btl, sizeof btl);
  if (admits(pml, "ucx") && !admits(pml, "ob1")) {
    strcpy(c->intra, "ucx");
    strcpy(c->inter, "ucx");
  } else if (admits(pml, "ucx") && (!*pml || pml[0] == '^')) {
    /* pml unrestricted: UCX wins where it finds RDMA devices */
    strcpy(c->intra, "auto");
    strcpy(c->inter, "auto");
  } else {
    strcpy(c->intra, admits(btl, "vader") || admits(btl, "sm") ? "shm" : "tcp");
    strcpy(c->inter, admits(btl, "tcp") ? "tcp" : "other");
  }
}
#else
static void derive_labels(struct mpi_ctx *c) {
  strcpy(c->intra, "mpi");
  strcpy(c->inter, "mpi");
}

static void read_tuned(struct mpi_ctx *c) {
  c->tuned = 0; /* only Open MPI's coll/tuned is known */
}
#endif

static int mpi_init(const struct cb_cluster *cl, const struct cb_settings *s, const char *transport,
                    void **ctx, struct cb_error *err) {
  (void)transport; /* applied before MPI_Init by mpi_pre_init */
  struct mpi_ctx *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "mpi: out of memory");
  c->cl = cl;
  c->s = s;
  for (int m = 0; m < s->nmems; m++) /* ask CUDA only when GPU memory was asked for */
    if (s->mems[m] != CB_MEM_HOST) {
      if (cb_gpu_count(c->no_gpu, sizeof c->no_gpu) > 0)
        c->no_gpu[0] = '\0';
      if (cb_gpu_mpi_cuda_aware(c->not_aware, sizeof c->not_aware))
        c->not_aware[0] = '\0';
      break;
    }
  MPI_Comm_dup(cl->comm, &c->comm);
  MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
  derive_labels(c);
  read_tuned(c);
  *ctx = c;
  return CB_OK;
}

static const char *mpi_unsupported(void *ctx, const struct cb_op *op, int mem, int dtype, int redop,
                                   int inplace) {
  struct mpi_ctx *c = ctx;
  if (c && mem != CB_MEM_HOST && c->no_gpu[0])
    return c->no_gpu;
  if (c && mem == CB_MEM_DEVICE && c->not_aware[0])
    return c->not_aware;
  if (cb_dtype_is_fp8(dtype))
    return CB_FP8_NCCL_ONLY;
  if (op->uses_redop && (dtype == CB_HALF || dtype == CB_BFLOAT16))
    return "MPI has no half/bfloat16 reductions";
  if (op->id == CB_OP_BROADCAST && !inplace)
    return "MPI_Bcast has a single buffer (in place only)";
  (void)redop;
  return NULL;
}

static int mpi_alloc(void *ctx, int mem, size_t bytes, void **ptr, struct cb_error *err) {
  struct mpi_ctx *c = ctx;
  if (mem != CB_MEM_HOST) {
    int device;
    if (cb_gpu_bind(c->cl, c->s, &device, err))
      return err->status;
    return cb_gpu_alloc(c->cl, "mpi", mem, bytes, ptr, err);
  }
  if (!(*ptr = cb_host_alloc(bytes)))
    return cb_fail(err, CB_RUNTIME, "rank %d (%s): mpi: cannot allocate %zu bytes of host memory",
                   c->cl->rank, c->cl->hostname, bytes);
  return CB_OK;
}

static void mpi_free(void *ctx, int mem, void *ptr) {
  (void)ctx;
  if (mem == CB_MEM_HOST)
    free(ptr);
  else
    cb_gpu_free(mem, ptr);
}

static int mpi_copy(void *ctx, void *dst, const void *src, size_t bytes, struct cb_error *err) {
  struct mpi_ctx *c = ctx;
  return cb_gpu_copy(c->cl, "mpi", dst, src, bytes, err);
}

static int mpi_sync(void *ctx, struct cb_error *err) {
  (void)ctx;
  (void)err;
  return CB_OK; /* blocking calls have completed on return */
}

static void mpi_transport_label(void *ctx, const struct cb_op *op, int mem, char *buf, size_t len) {
  struct mpi_ctx *c = ctx;
  (void)mem;
  const struct cb_cluster *cl = c->cl;
  if (cl->nranks == 1) {
    snprintf(buf, len, "self");
    return;
  }
  int intra, inter;
  if (op->min_ranks == 2) { /* rank 0's pair stands for the row */
    intra = cl->node_of_rank[0] == cl->node_of_rank[1];
    inter = !intra;
  } else {
    intra = cl->nnodes < cl->nranks; /* some node holds two ranks */
    inter = cl->nnodes > 1;
  }
  if (intra && inter && strcmp(c->intra, c->inter) != 0)
    snprintf(buf, len, "%s+%s", c->intra, c->inter);
  else
    snprintf(buf, len, "%s", inter ? c->inter : c->intra);
}

/* Forced: the run's algorithm after the fall-backs inside it; else what
 * the fixed rules pick for this size and rank count. */
static void mpi_coll_algo(void *ctx, const struct cb_op_args *a, char *name, size_t len, char *by,
                          size_t blen) {
  struct mpi_ctx *c = ctx;
  int op = a->op->id, p = c->cl->nranks;
  name[0] = by[0] = '\0';
  if (!c->tuned || p < 2 || !cb_ompi_coll_name(op))
    return;
  size_t tsize = cb_dtypes[a->dtype].size;
  int forced = c->forced[op] > 0;
  int alg = forced ? c->forced[op] : cb_ompi_rules(op, p, a->count * tsize);
  alg = cb_ompi_effective(op, alg, p, a->count, tsize, forced ? (size_t)c->segsize : 0);
  const char *n = cb_ompi_algo_name(op, alg);
  if (!n || alg == 0)
    return;
  snprintf(name, len, "%s", n);
  snprintf(by, blen, "%s", forced ? "forced" : "rules");
}

/* MPI_IN_PLACE reduce-scatter leaves the result at the buffer's start. */
static size_t mpi_inplace_result_offset(const struct cb_op *op, size_t count, int rank) {
  if (op->id == CB_OP_REDUCESCATTER)
    return 0;
  return op->inplace_result_offset(count, rank);
}

static void mpi_finalize(void *ctx) {
  struct mpi_ctx *c = ctx;
  if (!c)
    return;
  MPI_Comm_free(&c->comm);
  free(c->requests);
  free(c->v);
  free(c->statuses);
  free(c);
}

const struct cb_backend cb_backend_mpi = {
    .name = "mpi",
    .transports = transports,
    .max_count = INT_MAX,
    .pre_mpi_init = mpi_pre_init,
    .probe = mpi_probe,
    .version = mpi_version,
    .init = mpi_init,
    .unsupported = mpi_unsupported,
    .alloc = mpi_alloc,
    .free = mpi_free,
    .copy = mpi_copy,
    .run = mpi_run,
    .sync = mpi_sync,
    .transport_label = mpi_transport_label,
    .coll_algo = mpi_coll_algo,
    .inplace_result_offset = mpi_inplace_result_offset,
    .split = mpi_split,
    .start = mpi_start,
    .test = mpi_test,
    .free_comm = mpi_free_comm,
    .finalize = mpi_finalize,
};
