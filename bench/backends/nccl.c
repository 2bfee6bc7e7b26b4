/* The NCCL backend: device memory, one communicator over all ranks (unique
 * id broadcast over MPI), every op on one CUDA stream. run() enqueues,
 * sync() waits by polling the stream like nccl-tests does, checking
 * ncclCommGetAsyncError and --timeout on the way, so a hang ends in
 * ncclCommAbort and a message naming rank, host, op and size.
 * Timing is the engine's host clock around whole batches (as nccl-tests);
 * CUDA events around the same batches are kept for comparison. */
#include <cuda_runtime_api.h>
#include <dirent.h>
#include <limits.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../backend.h"
#include "../dtype.h"
#include "../gpu.h"
#include "../settings.h"
#include "../watchdog.h"
#include "nccl_env.h"
#include "nccl_log.h"

/* Where this process's NCCL INFO log goes; "" when the user owns logging. */
static char log_dir[256];

struct nccl_ctx {
  const struct cb_cluster *cl;
  int device, cc; /* cc: compute capability * 10 */
  ncclComm_t comm;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  int batch_open;     /* start event recorded for the batch in flight */
  double gpu_seconds; /* the last batch by CUDA events */
  int stall;          /* COLLBENCH_STALL_RANK names this rank: stall once */
  /* --graph: the captured batch and the call it repeats */
  cudaGraphExec_t graph;
  struct cb_op_args graph_args;
  struct cb_op_args last; /* the op last run, for error messages */
  /* NCCL's log, read as it grows: where reading stopped, the lines that
   * tell the path (not the per-call TUNING lines), and the algorithm and
   * protocol the calls since the last read chose for `last`. */
  long log_read;
  char *path_lines;
  size_t path_len;
  char algo[32], proto[16];
  int channels;
  char why[128]; /* an unsupported() reason built at run time */
};

/* " for allreduce of 262144 float (1048576 bytes)", from the op last run */
static const char *what_ran(const struct nccl_ctx *c, char *buf, size_t len) {
  const struct cb_op_args *a = &c->last;
  buf[0] = '\0';
  if (a->op)
    snprintf(buf, len, " for %s of %zu %s (%zu bytes per block)", a->op->name, a->count,
             cb_dtypes[a->dtype].name, a->count * cb_dtypes[a->dtype].size);
  return buf;
}

static int nccl_failed(const struct nccl_ctx *c, const char *call, ncclResult_t rc,
                       struct cb_error *err) {
  const char *last = c->comm ? ncclGetLastError(c->comm) : NULL;
  char what[160];
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): nccl: %s failed%s: %s (%d)%s%s", c->cl->rank,
                 c->cl->hostname, call, what_ran(c, what, sizeof what), ncclGetErrorString(rc),
                 (int)rc, last && *last ? ": " : "", last ? last : "");
}

static int cuda_failed(const struct nccl_ctx *c, const char *call, cudaError_t rc,
                       struct cb_error *err) {
  char what[160];
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): nccl: %s failed%s: %s (%d)", c->cl->rank,
                 c->cl->hostname, call, what_ran(c, what, sizeof what), cudaGetErrorString(rc),
                 (int)rc);
}

#define TRY_NCCL(call)                                                                             \
  do {                                                                                             \
    ncclResult_t rc_ = (call);                                                                     \
    if (rc_ != ncclSuccess)                                                                        \
      return nccl_failed(c, #call, rc_, err);                                                      \
  } while (0)

#define TRY_CUDA(call)                                                                             \
  do {                                                                                             \
    cudaError_t rc_ = (call);                                                                      \
    if (rc_ != cudaSuccess)                                                                        \
      return cuda_failed(c, #call, rc_, err);                                                      \
  } while (0)

static ncclDataType_t nccl_type(int dtype) {
  switch (dtype) {
  case CB_INT8: return ncclInt8;
  case CB_INT32: return ncclInt32;
  case CB_INT64: return ncclInt64;
  case CB_DOUBLE: return ncclFloat64;
  case CB_HALF: return ncclFloat16;
  case CB_BFLOAT16: return ncclBfloat16;
  case CB_FP8_E4M3: return ncclFloat8e4m3; /* NCCL >= 2.24 */
  case CB_FP8_E5M2: return ncclFloat8e5m2;
  default: return ncclFloat32;
  }
}

static ncclRedOp_t nccl_op(int redop) {
  switch (redop) {
  case CB_PROD: return ncclProd;
  case CB_MIN: return ncclMin;
  case CB_MAX: return ncclMax;
  default: return ncclSum;
  }
}

static size_t esize(const struct cb_op_args *a) {
  return cb_dtypes[a->dtype].size;
}

/* In place, each op reads its input where nccl-tests (and NCCL) expect it. */
static const void *input(const struct nccl_ctx *c, const struct cb_op_args *a) {
  if (a->send)
    return a->send;
  if (a->op->id == CB_OP_ALLGATHER)
    return (const char *)a->recv + (size_t)c->cl->rank * a->count * esize(a);
  return a->recv;
}

static int run_p2p(struct nccl_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  ncclDataType_t t = nccl_type(a->dtype);
  int peer = a->peer, even = c->cl->rank % 2 == 0;
  if (peer < 0)
    return CB_OK; /* the odd rank out */
  switch (a->op->id) {
  case CB_OP_P2P_LAT: /* a ping-pong: stream order makes the second wait for the first */
    if (even) {
      TRY_NCCL(ncclSend(a->send, a->count, t, peer, c->comm, c->stream));
      TRY_NCCL(ncclRecv(a->recv, a->count, t, peer, c->comm, c->stream));
    } else {
      TRY_NCCL(ncclRecv(a->recv, a->count, t, peer, c->comm, c->stream));
      TRY_NCCL(ncclSend(a->send, a->count, t, peer, c->comm, c->stream));
    }
    return CB_OK;
  case CB_OP_P2P_BW: /* a window one way, then a one-element acknowledgement */
    TRY_NCCL(ncclGroupStart());
    for (int i = 0; i < a->window; i++)
      TRY_NCCL(even ? ncclSend(a->send, a->count, t, peer, c->comm, c->stream)
                    : ncclRecv(a->recv, a->count, t, peer, c->comm, c->stream));
    TRY_NCCL(ncclGroupEnd());
    /* the receiver's buffer is only read; the sender's is never checked */
    TRY_NCCL(even ? ncclRecv(a->recv, 1, t, peer, c->comm, c->stream)
                  : ncclSend(a->recv, 1, t, peer, c->comm, c->stream));
    return CB_OK;
  default: /* p2p_bibw: both directions in one group */
    TRY_NCCL(ncclGroupStart());
    for (int i = 0; i < a->window; i++) {
      TRY_NCCL(ncclSend(a->send, a->count, t, peer, c->comm, c->stream));
      TRY_NCCL(ncclRecv(a->recv, a->count, t, peer, c->comm, c->stream));
    }
    TRY_NCCL(ncclGroupEnd());
    return CB_OK;
  }
}

/* NCCL has no all-to-all: one group of a send and a receive per peer. */
static int run_alltoall(struct nccl_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  ncclDataType_t t = nccl_type(a->dtype);
  size_t block = a->count * esize(a);
  TRY_NCCL(ncclGroupStart());
  for (int p = 0; p < c->cl->nranks; p++) {
    TRY_NCCL(
        ncclSend((const char *)a->send + (size_t)p * block, a->count, t, p, c->comm, c->stream));
    TRY_NCCL(ncclRecv((char *)a->recv + (size_t)p * block, a->count, t, p, c->comm, c->stream));
  }
  TRY_NCCL(ncclGroupEnd());
  return CB_OK;
}

/* Enqueues one op on the stream. */
static int launch(struct nccl_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  ncclDataType_t t = nccl_type(a->dtype);
  const void *in = input(c, a);
  switch (a->op->id) {
  case CB_OP_ALLREDUCE:
    TRY_NCCL(ncclAllReduce(in, a->recv, a->count, t, nccl_op(a->redop), c->comm, c->stream));
    return CB_OK;
  case CB_OP_ALLGATHER:
    TRY_NCCL(ncclAllGather(in, a->recv, a->count, t, c->comm, c->stream));
    return CB_OK;
  case CB_OP_REDUCESCATTER: {
    /* in place, the result lands in this rank's block (nccl-tests) */
    void *out = a->send ? a->recv : (char *)a->recv + (size_t)c->cl->rank * a->count * esize(a);
    TRY_NCCL(ncclReduceScatter(in, out, a->count, t, nccl_op(a->redop), c->comm, c->stream));
    return CB_OK;
  }
  case CB_OP_BROADCAST:
    TRY_NCCL(ncclBroadcast(in, a->recv, a->count, t, a->root, c->comm, c->stream));
    return CB_OK;
  case CB_OP_ALLTOALL: return run_alltoall(c, a, err);
  default: return run_p2p(c, a, err);
  }
}

static int same_call(const struct cb_op_args *x, const struct cb_op_args *y) {
  return x->op == y->op && x->send == y->send && x->recv == y->recv && x->count == y->count &&
         x->dtype == y->dtype && x->redop == y->redop && x->root == y->root && x->peer == y->peer &&
         x->window == y->window && x->graph == y->graph;
}

static void drop_graph(struct nccl_ctx *c) {
  if (c->graph)
    cudaGraphExecDestroy(c->graph);
  c->graph = NULL;
}

/* --graph N: N launches captured once per call shape, replayed per run(). */
static int run_graph(struct nccl_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  if (!c->graph || !same_call(&c->graph_args, a)) {
    drop_graph(c);
    cudaGraph_t g;
    TRY_CUDA(cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal));
    int rc = CB_OK;
    for (long i = 0; i < a->graph && rc == CB_OK; i++)
      rc = launch(c, a, err);
    cudaError_t end = cudaStreamEndCapture(c->stream, &g);
    if (rc)
      return rc;
    if (end != cudaSuccess)
      return cuda_failed(c, "cudaStreamEndCapture", end, err);
    cudaError_t inst = cudaGraphInstantiate(&c->graph, g, 0);
    cudaGraphDestroy(g);
    if (inst != cudaSuccess) {
      c->graph = NULL;
      return cuda_failed(c, "cudaGraphInstantiate", inst, err);
    }
    c->graph_args = *a;
  }
  TRY_CUDA(cudaGraphLaunch(c->graph, c->stream));
  return CB_OK;
}

/* COLLBENCH_STALL_RANK (a test aid): this rank sleeps instead of joining
 * its first op, so the others hang and their watchdog fires. It sleeps
 * disarmed and past their timeout plus grace, and they end the job. */
static void stall(struct nccl_ctx *c) {
  c->stall = 0;
  double t = cb_watchdog_timeout();
  cb_watchdog_disarm();
  fprintf(stderr, "collbench: rank %d (%s): COLLBENCH_STALL_RANK: stalling before the first op\n",
          c->cl->rank, c->cl->hostname);
  sleep((unsigned)(t > 0 ? t + 2 * CB_WATCHDOG_GRACE + 5 : 60));
}

static int nccl_run(void *ctx, const struct cb_op_args *a, struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  c->last = *a;
  if (c->stall)
    stall(c);
  if (!c->batch_open) {
    TRY_CUDA(cudaEventRecord(c->start, c->stream));
    c->batch_open = 1;
  }
  return a->graph > 0 ? run_graph(c, a, err) : launch(c, a, err);
}

/* Waits for the stream by polling, as nccl-tests does: a peer that never
 * comes shows as an async error or as --timeout, never as a silent hang. */
static int nccl_sync(void *ctx, struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  TRY_CUDA(cudaEventRecord(c->stop, c->stream));
  for (;;) {
    cudaError_t q = cudaStreamQuery(c->stream);
    if (q == cudaSuccess)
      break;
    if (q != cudaErrorNotReady)
      return cuda_failed(c, "cudaStreamQuery", q, err);
    ncclResult_t async = ncclSuccess;
    TRY_NCCL(ncclCommGetAsyncError(c->comm, &async));
    if (async != ncclSuccess && async != ncclInProgress) {
      ncclCommAbort(c->comm);
      c->comm = NULL;
      return nccl_failed(c, "an operation (ncclCommGetAsyncError)", async, err);
    }
    char what[256];
    if (cb_watchdog_poll(what, sizeof what)) {
      ncclCommAbort(c->comm);
      c->comm = NULL;
      return cb_fail(err, CB_RUNTIME,
                     "timeout: rank %d on %s waited more than %g s for %s to complete (--timeout); "
                     "a peer never joined or the GPU hangs; ncclCommAbort called",
                     c->cl->rank, c->cl->hostname, cb_watchdog_timeout(), what);
    }
  }
  float ms = 0;
  if (c->batch_open && cudaEventElapsedTime(&ms, c->start, c->stop) == cudaSuccess)
    c->gpu_seconds = ms * 1e-3;
  c->batch_open = 0;
  return CB_OK;
}

static double nccl_device_seconds(void *ctx) {
  return ((struct nccl_ctx *)ctx)->gpu_seconds;
}

static int nccl_probe(char *why, size_t len) {
  return cb_gpu_count(why, len) > 0;
}

static void nccl_version(char *buf, size_t len) {
  int v = 0, rt = 0;
  ncclGetVersion(&v);
  cudaRuntimeGetVersion(&rt);
  /* NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch */
  snprintf(buf, len, "NCCL %d.%d.%d, CUDA runtime %d.%d", v / 10000, v / 100 % 100, v % 100,
           rt / 1000, rt % 1000 / 10);
}

/* Before MPI_Init: the transport's NCCL_* variables and the INFO log that
 * tells which path was taken (both read when the communicator is made). */
static int nccl_pre_init(const char *transport, struct cb_error *err) {
  const struct cb_env_setting *env = cb_nccl_transport_env(transport);
  if (!env)
    return cb_fail(err, CB_USAGE, "--transport %s: nccl has no such path", transport);
  char kept[512] = "";
  if (cb_env_apply(env, kept, sizeof kept)) {
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r || strcmp(r, "0") == 0)
      fprintf(stderr, "collbench: nccl --transport %s: keeping what you set: %s\n", transport,
              kept);
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(log_dir, sizeof log_dir, "%s/collbench-nccl.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(log_dir) || !cb_nccl_log_env(log_dir)) {
    if (log_dir[0] && strstr(log_dir, "XXXXXX") == NULL)
      rmdir(log_dir);
    log_dir[0] = '\0';
  }
  return CB_OK;
}

/* What NCCL appended to this process's log since `from`, up to its last
 * complete line; *next is where the next read starts. NULL when there is
 * no log or nothing new. */
static char *read_log(long from, long *next) {
  *next = from;
  if (!log_dir[0])
    return NULL;
  DIR *d = opendir(log_dir);
  if (!d)
    return NULL;
  char *text = NULL;
  for (struct dirent *e; !text && (e = readdir(d));) {
    if (strncmp(e->d_name, "nccl.", 5) != 0)
      continue;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", log_dir, e->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    /* a huge chunk at once (64 MiB of calls) is skipped, not held */
    if (size > from && size - from <= (64L << 20) && fseek(f, from, SEEK_SET) == 0 &&
        (text = malloc((size_t)(size - from) + 1))) {
      size_t n = fread(text, 1, (size_t)(size - from), f);
      while (n > 0 && text[n - 1] != '\n') /* a line NCCL is still writing */
        n--;
      text[n] = '\0';
      *next = from + (long)n;
    } else if (size > from + (64L << 20)) {
      *next = size;
    }
    fclose(f);
  }
  closedir(d);
  return text;
}

/* Keeps the path lines of new log text and reads the choice for the op
 * last run from its TUNING lines (only rank 0 writes them). */
static void follow_log(struct nccl_ctx *c) {
  long next;
  char *text = read_log(c->log_read, &next);
  c->log_read = next;
  if (!text)
    return;
  const char *func = c->last.op ? cb_nccl_func_name(c->last.op->name) : NULL;
  uint64_t bytes = c->last.op ? (uint64_t)(c->last.count * esize(&c->last)) : 0;
  cb_nccl_log_choice(text, func, bytes, c->algo, sizeof c->algo, c->proto, sizeof c->proto,
                     &c->channels);
  for (char *line = text; *line;) {
    char *end = strchr(line, '\n');
    size_t n = (size_t)(end - line) + 1;
    *end = '\0';
    int tuning = strstr(line, " Bytes -> Algo ") != NULL;
    *end = '\n';
    if (!tuning) {
      char *grown = realloc(c->path_lines, c->path_len + n + 1);
      if (!grown)
        break;
      c->path_lines = grown;
      memcpy(c->path_lines + c->path_len, line, n);
      c->path_len += n;
      c->path_lines[c->path_len] = '\0';
    }
    line = end + 1;
  }
  free(text);
}

static void remove_log(void) {
  if (!log_dir[0])
    return;
  DIR *d = opendir(log_dir);
  if (d) {
    for (struct dirent *e; (e = readdir(d));)
      if (strncmp(e->d_name, "nccl.", 5) == 0) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", log_dir, e->d_name);
        unlink(path);
      }
    closedir(d);
  }
  rmdir(log_dir);
  log_dir[0] = '\0';
}

/* The path read back from NCCL's log: connections appear as NCCL makes
 * them (point-to-point ones at the first send), so it is read each time. */
static void nccl_transport_label(void *ctx, const struct cb_op *op, int mem, char *buf,
                                 size_t len) {
  struct nccl_ctx *c = ctx;
  (void)op, (void)mem;
  if (c->cl->nranks == 1) {
    snprintf(buf, len, "local");
    return;
  }
  follow_log(c);
  buf[0] = '\0';
  if (c->path_lines)
    cb_nccl_log_paths(c->path_lines, buf, len);
  if (!buf[0])
    snprintf(buf, len, log_dir[0] ? "unknown" : "unknown (NCCL_DEBUG set)");
}

/* What NCCL chose for the op last run, if its log says (rank 0's does). */
static void nccl_algorithm(void *ctx, const struct cb_op *op, char *algo, size_t alen, char *proto,
                           size_t plen, int *channels) {
  struct nccl_ctx *c = ctx;
  follow_log(c);
  int known = c->last.op == op;
  snprintf(algo, alen, "%s", known ? c->algo : "");
  snprintf(proto, plen, "%s", known ? c->proto : "");
  *channels = known ? c->channels : 0;
}

static int make_comm(struct nccl_ctx *c, struct cb_error *err) {
  const struct cb_cluster *cl = c->cl;
  ncclUniqueId id;
  ncclResult_t rc = ncclSuccess;
  memset(&id, 0, sizeof id);
  if (cl->rank == 0)
    rc = ncclGetUniqueId(&id);
  int status = rc == ncclSuccess ? CB_OK : nccl_failed(c, "ncclGetUniqueId", rc, err);
  if (cb_cluster_agree(cl, status))
    return status ? status : cb_fail(err, CB_RUNTIME, "nccl: rank 0 could not make a unique id");
  MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, cl->comm);
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  cb_watchdog_arm("nccl communicator setup (ncclCommInitRankConfig)");
  rc = ncclCommInitRankConfig(&c->comm, cl->nranks, id, cl->rank, &config);
  cb_watchdog_disarm();
  if (rc != ncclSuccess) {
    c->comm = NULL;
    return nccl_failed(c, "ncclCommInitRankConfig", rc, err);
  }
  return CB_OK;
}

static void nccl_finalize(void *ctx) {
  struct nccl_ctx *c = ctx;
  if (!c)
    return;
  drop_graph(c);
  if (c->comm)
    ncclCommDestroy(c->comm);
  if (c->start)
    cudaEventDestroy(c->start);
  if (c->stop)
    cudaEventDestroy(c->stop);
  if (c->stream)
    cudaStreamDestroy(c->stream);
  free(c->path_lines);
  free(c);
  remove_log();
}

static int nccl_init(const struct cb_cluster *cl, const struct cb_settings *s,
                     const char *transport, void **ctx, struct cb_error *err) {
  (void)transport; /* applied before MPI_Init by nccl_pre_init */
  struct nccl_ctx *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "nccl: out of memory");
  c->cl = cl;
  *ctx = c;
  const char *stall_rank = getenv("COLLBENCH_STALL_RANK");
  c->stall = stall_rank && *stall_rank && atoi(stall_rank) == cl->rank;
  int rc = cb_gpu_bind(cl, s, &c->device, err);
  if (!rc) {
    c->cc = cb_gpu_compute_capability();
    cudaError_t e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess)
      e = cudaEventCreate(&c->start);
    if (e == cudaSuccess)
      e = cudaEventCreate(&c->stop);
    if (e != cudaSuccess)
      rc = cuda_failed(c, "cudaStreamCreate/cudaEventCreate", e, err);
  }
  /* every rank must get this far before the collective setup */
  if (cb_cluster_agree(cl, rc)) {
    nccl_finalize(c);
    *ctx = NULL;
    return rc ? rc : cb_fail(err, CB_RUNTIME, "nccl: another rank could not set up its GPU");
  }
  if (make_comm(c, err)) {
    rc = err->status;
    nccl_finalize(c);
    *ctx = NULL;
    return rc;
  }
  return CB_OK;
}

static const char *nccl_unsupported(void *ctx, const struct cb_op *op, int mem, int dtype,
                                    int redop, int inplace) {
  struct nccl_ctx *c = ctx;
  (void)redop;
  if (mem != CB_MEM_DEVICE)
    return "the nccl backend moves device memory only (--mem device)";
  /* NCCL refuses these itself: "FP8 reduction support begins with sm90
   * capable devices." Moving fp8 data works on any GPU. */
  if (cb_dtype_is_fp8(dtype) && op->uses_redop && c->cc < 90) {
    snprintf(c->why, sizeof c->why,
             "NCCL reduces fp8 only on compute capability 9.0 and newer; this GPU is %d.%d",
             c->cc / 10, c->cc % 10);
    return c->why;
  }
  if (op->id == CB_OP_ALLTOALL && inplace)
    return "alltoall by grouped send/receive needs separate buffers (no in-place variant)";
  return NULL;
}

static int nccl_alloc(void *ctx, int mem, size_t bytes, void **ptr, struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  return cb_gpu_alloc(c->cl, "nccl", mem, bytes, ptr, err);
}

static void nccl_free(void *ctx, int mem, void *ptr) {
  struct nccl_ctx *c = ctx;
  drop_graph(c); /* it may point into this buffer */
  cb_gpu_free(mem, ptr);
}

static int nccl_copy(void *ctx, void *dst, const void *src, size_t bytes, struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  return cb_gpu_copy(c->cl, "nccl", dst, src, bytes, err);
}

const struct cb_backend cb_backend_nccl = {
    .name = "nccl",
    .transports = cb_nccl_transports,
    .max_count = (size_t)INT_MAX, /* keeps every rank's block addressable as int too */
    .pre_mpi_init = nccl_pre_init,
    .probe = nccl_probe,
    .version = nccl_version,
    .init = nccl_init,
    .unsupported = nccl_unsupported,
    .alloc = nccl_alloc,
    .free = nccl_free,
    .copy = nccl_copy,
    .run = nccl_run,
    .sync = nccl_sync,
    .device_seconds = nccl_device_seconds,
    .transport_label = nccl_transport_label,
    .algorithm = nccl_algorithm,
    .inplace_result_offset = NULL,
    .finalize = nccl_finalize,
};
