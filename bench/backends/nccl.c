/* The NCCL backend: device memory, one communicator over all ranks (unique
 * id broadcast over MPI), every op on one CUDA stream (--concurrent's on
 * communicators split from it, a stream each); nccl_launch.c enqueues
 * them. run() enqueues,
 * sync() waits by polling the stream like nccl-tests does, checking
 * ncclCommGetAsyncError and --timeout on the way, so a hang ends in
 * ncclCommAbort and a message naming rank, host, op and size.
 * Timing is the engine's host clock around whole batches (as nccl-tests);
 * CUDA events around the same batches are kept for comparison. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <limits.h>
#include <nccl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "base/dtype.h"
#include "nccl_end.h"
#include "nccl_env.h"
#include "nccl_launch.h"
#include "nccl_log.h"
#include "nccl_logfile.h"
#include "nccl_ran.h"
#include "runtime/gpu.h"
#include "runtime/standin.h"
#include "runtime/settings.h"
#include "runtime/watchdog.h"

/* --register: device buffers registered at once (the engine holds two) */
#define REGS 8

/* A chunk of log this large at once (64 MiB of lines) is passed over. */
#define LOG_LIMIT (64L << 20)

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
  /* --concurrent: a stream per slot and the communicator started on it */
  struct {
    cudaStream_t stream;
    ncclComm_t comm;
  } side[CB_MAX_CONCURRENT];
  /* NCCL's log, read as it grows from where this communicator began: the
   * lines that tell the path, kept per op that made the connection (index
   * CB_NOPS: made at init), and NCCL's WARN messages. */
  struct cb_nccl_log_cursor log;
  char *paths[CB_NOPS + 1];
  size_t paths_len[CB_NOPS + 1];
  char warned[512];
  /* the algorithm, protocol and channels NCCL chose for `learned`, from
   * one untimed call with TUNING logged (learn_choice) */
  struct cb_op_args learned;
  char algo[32], proto[16];
  int channels;
  char why[128];       /* an unsupported() reason built at run time */
  cb_ran_take_fn take; /* collbench's profiler plugin, as NCCL loaded it; NULL: none */
  int failed;          /* an NCCL or CUDA call on it failed: it is aborted, not destroyed */
  /* --register: how device buffers are allocated and registered, and the
   * live ones with their handles (ncclCommRegister's or the window) */
  int reg;
  struct {
    void *ptr, *handle;
  } regs[REGS];
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

static void follow_log(struct nccl_ctx *c);
static char *read_new(struct nccl_ctx *c);

/* A failed NCCL call in NCCL's own words: ncclGetLastError (one string per
 * process, whatever the argument; fetched before any abort can log over
 * it) and the WARN lines of this process's log. */
static int nccl_failed(struct nccl_ctx *c, const char *call, ncclResult_t rc,
                       struct cb_error *err) {
  const char *last = ncclGetLastError(NULL);
  c->failed = 1;
  follow_log(c);
  char what[160], text[900];
  cb_nccl_failure_text(text, sizeof text, call, what_ran(c, what, sizeof what), (int)rc,
                       ncclGetErrorString(rc), last, c->warned);
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): nccl: %s", c->cl->rank, c->cl->hostname, text);
}

static int cuda_failed(struct nccl_ctx *c, const char *call, cudaError_t rc, struct cb_error *err) {
  char what[160];
  c->failed = 1;
  follow_log(c);
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): nccl: %s failed%s: %s (%d)%s%s", c->cl->rank,
                 c->cl->hostname, call, what_ran(c, what, sizeof what), cudaGetErrorString(rc),
                 (int)rc, c->warned[0] ? "; NCCL warned: " : "", c->warned);
}

#define TRY_NCCL(call)                                                                             \
  do {                                                                                             \
    ncclResult_t rc_ = (call);                                                                     \
    if (rc_ != ncclSuccess)                                                                        \
      return nccl_failed(c, #call, rc_, err);                                                      \
  } while (0)

/* Inside ncclGroupStart/End: an error still ends the group, or the
 * thread's next NCCL call would join the broken one. */
#define TRY_GROUP(call)                                                                            \
  do {                                                                                             \
    ncclResult_t rc_ = (call);                                                                     \
    if (rc_ != ncclSuccess) {                                                                      \
      int st_ = nccl_failed(c, #call, rc_, err);                                                   \
      ncclGroupEnd();                                                                              \
      return st_;                                                                                  \
    }                                                                                              \
  } while (0)

#define TRY_CUDA(call)                                                                             \
  do {                                                                                             \
    cudaError_t rc_ = (call);                                                                      \
    if (rc_ != cudaSuccess)                                                                        \
      return cuda_failed(c, #call, rc_, err);                                                      \
  } while (0)

/* Enqueues one op on a lane: the run's communicator and stream, or one of
 * --concurrent's (nccl_launch.c). */
static int launch_on(struct nccl_ctx *c, const struct cb_nccl_lane *l, const struct cb_op_args *a,
                     struct cb_error *err) {
  const char *call;
  int group;
  ncclResult_t rc = cb_nccl_launch(l, a, &call, &group);
  if (rc == ncclSuccess)
    return CB_OK;
  int st = nccl_failed(c, call, rc, err);
  if (group)
    ncclGroupEnd();
  return st;
}

static int launch(struct nccl_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  struct cb_nccl_lane l = {c->comm, c->stream, c->cl->rank, c->cl->nranks};
  return launch_on(c, &l, a, err);
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
    cudaGraph_t g = NULL;
    TRY_CUDA(cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal));
    int rc = CB_OK;
    for (long i = 0; i < a->graph && rc == CB_OK; i++)
      rc = launch(c, a, err);
    /* the capture always ends, and a graph it made goes, even after a failed launch */
    cudaError_t end = cudaStreamEndCapture(c->stream, &g);
    if (rc || end != cudaSuccess) {
      if (end == cudaSuccess && g)
        cudaGraphDestroy(g);
      return rc ? rc : cuda_failed(c, "cudaStreamEndCapture", end, err);
    }
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

/* Ends the communicator after a failure already in err: the graph goes
 * first, since ncclCommAbort waits for every graph that captured the
 * communicator (init.cc polls localPersistentRefs, which only the graph's
 * destruction releases). The log is kept, and err names it. */
static int abort_comm(struct nccl_ctx *c, struct cb_error *err) {
  drop_graph(c);
  ncclCommAbort(c->comm);
  c->comm = NULL;
  const char *path = cb_nccl_log_keep();
  size_t used = strlen(err->msg);
  if (*path && used < sizeof err->msg)
    snprintf(err->msg + used, sizeof err->msg - used, " (NCCL's log kept: %s)", path);
  return err->status;
}

/* Waits for the stream by polling, as nccl-tests does: a peer that never
 * comes shows as an async error or as --timeout, never as a silent hang
 * (as long as the NCCL call itself returned: see bench/backends/GPUS.md on lazy connect).
 * Each idle poll yields the CPU, as nccl-tests' testStreamSynchronize does:
 * mpirun binds a rank to one core, NCCL's proxy thread shares it, and a
 * busy loop starved the network transport (2 ranks --share-gpu on an
 * H100: 7.4 ms per 8-byte allreduce instead of nccl-tests' 46 us). */
static int wait_stream(struct nccl_ctx *c, struct cb_error *err) {
  for (;;) {
    cudaError_t q = cudaStreamQuery(c->stream);
    if (q == cudaSuccess)
      return CB_OK;
    if (q != cudaErrorNotReady)
      return cuda_failed(c, "cudaStreamQuery", q, err);
    sched_yield();
    ncclResult_t async = ncclSuccess;
    TRY_NCCL(ncclCommGetAsyncError(c->comm, &async));
    if (async != ncclSuccess && async != ncclInProgress) {
      nccl_failed(c, "an operation (ncclCommGetAsyncError)", async, err);
      return abort_comm(c, err);
    }
    char what[256];
    if (cb_watchdog_poll(what, sizeof what)) {
      follow_log(c);
      cb_fail(err, CB_RUNTIME,
              "timeout: rank %d on %s waited more than %g s for %s to complete (--timeout); "
              "a peer never joined or the GPU hangs; ncclCommAbort called%s%s",
              c->cl->rank, c->cl->hostname, cb_watchdog_timeout(), what,
              c->warned[0] ? "; NCCL warned: " : "", c->warned);
      return abort_comm(c, err);
    }
  }
}

/* ncclResetDebugInit makes NCCL read NCCL_DEBUG* again; exported by NCCL
 * 2.28 but deprecated in nccl.h, so looked up: without it no TUNING line
 * is logged and the algorithm stays unknown. */
static void (*debug_reset)(void);

static int same_shape(const struct cb_op_args *x, const struct cb_op_args *y) {
  return x->op == y->op && x->count == y->count && x->dtype == y->dtype && x->redop == y->redop &&
         x->root == y->root && !x->send == !y->send;
}

/* NCCL logs its choice as one TUNING line per call on rank 0: a formatted
 * line written to a file inside every timed call of the slowest-rank
 * sample. So TUNING is logged only around one untimed call of each new
 * shape, made before its first run (in the warm-up), on every rank alike
 * since it is a collective; only rank 0 switches its log. */
static int learn_choice(struct nccl_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  if (!cb_nccl_func_name(a->op->name) || c->cl->nranks == 1 ||
      (c->learned.op && same_shape(&c->learned, a)))
    return CB_OK;
  c->learned = *a;
  c->learned.graph = 0;
  c->algo[0] = c->proto[0] = '\0';
  c->channels = 0;
  follow_log(c); /* what came before is read under the old subsystems */
  int logging = c->cl->rank == 0 && debug_reset && cb_nccl_log_switch(1);
  if (logging)
    debug_reset();
  int rc = launch(c, a, err);
  if (rc == CB_OK)
    rc = wait_stream(c, err);
  if (rc == CB_OK && c->cl->rank == 0) {
    char *text = read_new(c);
    cb_nccl_log_choice(text ? text : "", cb_nccl_func_name(a->op->name),
                       (uint64_t)(a->count * cb_dtypes[a->dtype].size), c->algo, sizeof c->algo,
                       c->proto, sizeof c->proto, &c->channels);
    free(text);
  }
  if (logging) {
    cb_nccl_log_switch(0);
    debug_reset();
  }
  return rc;
}

static int nccl_run(void *ctx, const struct cb_op_args *a, struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  c->last = *a;
  if (c->stall)
    stall(c);
  if (!c->batch_open && learn_choice(c, a, err))
    return err->status;
  if (!c->batch_open) {
    TRY_CUDA(cudaEventRecord(c->start, c->stream));
    c->batch_open = 1;
  }
  return a->graph > 0 ? run_graph(c, a, err) : launch(c, a, err);
}

static int nccl_sync(void *ctx, struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  TRY_CUDA(cudaEventRecord(c->stop, c->stream));
  if (wait_stream(c, err))
    return err->status;
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
  snprintf(buf, len, "NCCL %d.%d.%d, CUDA runtime %d.%d%s", v / 10000, v / 100 % 100, v % 100,
           rt / 1000, rt % 1000 / 10, cb_standin() ? " (the test stand-in, no GPU)" : "");
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
  cb_nccl_log_open();
  cb_nccl_ran_setup(); /* NCCL_PROFILER_PLUGIN: what each row ran */
  return CB_OK;
}

/* The IB plugin's device line ("NET/IB : Using [0]mlx5_0:1/RoCE") tells
 * RoCE from InfiniBand; NCCL may write it once per process, so it is kept
 * across communicators. */
static char net_line[512];

/* Reads what NCCL logged since the last read: path lines go to the bucket
 * of the op last run (connections are made lazily, inside the first call
 * that needs them), WARN messages to c->warned. Returns the text (the
 * caller frees it); NULL when nothing is new. */
static char *read_new(struct nccl_ctx *c) {
  int skipped;
  char *text = cb_nccl_log_read(&c->log, LOG_LIMIT, &skipped);
  if (!text)
    return NULL;
  cb_nccl_log_warnings(text, c->warned, sizeof c->warned);
  int b = c->last.op ? c->last.op->id : CB_NOPS;
  for (char *line = text; *line;) {
    char *end = strchr(line, '\n');
    size_t n = (size_t)(end - line) + 1;
    *end = '\0';
    int tuning = strstr(line, " Bytes -> Algo ") != NULL;
    if (strstr(line, "INFO NET/") && strstr(line, " : Using ") && n < sizeof net_line)
      memcpy(net_line, line, n); /* with its '\0' */
    *end = '\n';
    char *grown = tuning ? NULL : realloc(c->paths[b], c->paths_len[b] + n + 1);
    if (grown) {
      c->paths[b] = grown;
      memcpy(grown + c->paths_len[b], line, n);
      c->paths_len[b] += n;
      grown[c->paths_len[b]] = '\0';
    }
    line = end + 1;
  }
  return text;
}

static void follow_log(struct nccl_ctx *c) {
  free(read_new(c));
}

/* The NET plugin's device line and the lines of bucket `op` and of init
 * (op < 0: of all), as one text the caller frees; NULL out of memory. */
static char *log_text(const struct nccl_ctx *c, int op) {
  size_t n = strlen(net_line) + 2;
  for (int i = 0; i <= CB_NOPS; i++)
    n += op < 0 || i == op || i == CB_NOPS ? c->paths_len[i] : 0;
  char *text = malloc(n);
  if (!text)
    return NULL;
  size_t used = (size_t)snprintf(text, n, "%s\n", net_line);
  for (int i = 0; i <= CB_NOPS; i++)
    if (c->paths[i] && (op < 0 || i == op || i == CB_NOPS)) {
      memcpy(text + used, c->paths[i], c->paths_len[i]);
      used += c->paths_len[i];
    }
  text[used] = '\0';
  return text;
}

/* The paths in the lines of bucket `op` and of init (op < 0: of all). */
static void paths_of(const struct nccl_ctx *c, int op, char *buf, size_t len) {
  char *text = log_text(c, op);
  buf[0] = '\0';
  if (text)
    cb_nccl_log_paths(text, buf, len);
  free(text);
}

/* The path read back from NCCL's log: the connections this communicator
 * made at init and in this op's calls; when this op made none (it used
 * ones an earlier series opened), all of this communicator's. */
static void nccl_transport_label(void *ctx, const struct cb_op *op, int mem, char *buf,
                                 size_t len) {
  struct nccl_ctx *c = ctx;
  (void)mem;
  if (c->cl->nranks == 1) {
    snprintf(buf, len, "local");
    return;
  }
  follow_log(c);
  paths_of(c, op->id, buf, len);
  if (!buf[0])
    paths_of(c, -1, buf, len);
  if (!buf[0])
    snprintf(buf, len, cb_nccl_log_path()[0] ? "unknown" : "unknown (NCCL_DEBUG set)");
}

/* How NCCL used the network for this op (issue 41): the devices its NET
 * plugin listed and whether its network connections used GPUDirect RDMA,
 * from the same lines as the transport label. */
static void nccl_net_use(void *ctx, const struct cb_op *op, int *nics, int *gdr) {
  struct nccl_ctx *c = ctx;
  *nics = 0, *gdr = 0;
  (void)op;
  if (c->cl->nranks == 1)
    return;
  char *text = log_text(c, -1); /* every connection of this communicator */
  if (text)
    cb_nccl_log_net(text, nics, gdr);
  free(text);
}

/* What NCCL chose for the op last run, learnt from its untimed call (rank
 * 0's log says; the other ranks leave it empty). */
static void nccl_algorithm(void *ctx, const struct cb_op *op, char *algo, size_t alen, char *proto,
                           size_t plen, int *channels) {
  struct nccl_ctx *c = ctx;
  int known = c->learned.op == op && same_shape(&c->learned, &c->last);
  snprintf(algo, alen, "%s", known ? c->algo : "");
  snprintf(proto, plen, "%s", known ? c->proto : "");
  *channels = known ? c->channels : 0;
}

static int make_comm(struct nccl_ctx *c, struct cb_error *err) {
  const struct cb_cluster *cl = c->cl;
  ncclUniqueId id;
  ncclResult_t rc = ncclSuccess;
  cb_nccl_log_cursor_end(&c->log); /* this communicator's lines only */
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
  c->comm = NULL;
  rc = ncclCommInitRankConfig(&c->comm, cl->nranks, id, cl->rank, &config);
  cb_watchdog_disarm();
  if (rc != ncclSuccess) {
    /* NCCL's text first (an abort may log), then what NCCL left in the
     * handle aborted, as NCCL's docs say of a communicator whose init
     * failed (2.24 to 2.30 free it themselves on this blocking path and
     * leave NULL: then nothing is called) */
    int status = nccl_failed(c, "ncclCommInitRankConfig", rc, err);
    cb_nccl_comm_end(c->comm, 1);
    c->comm = NULL;
    return status;
  }
  follow_log(c); /* the init bucket: the graph, and connections made at init */
  return CB_OK;
}

static void nccl_finalize(void *ctx) {
  struct nccl_ctx *c = ctx;
  if (!c)
    return;
  drop_graph(c); /* before any abort: ncclCommAbort waits for graphs that captured it */
  cb_nccl_comm_end(c->comm, c->failed);
  if (c->start)
    cudaEventDestroy(c->start);
  if (c->stop)
    cudaEventDestroy(c->stop);
  if (c->stream)
    cudaStreamDestroy(c->stream);
  for (int i = 0; i < CB_MAX_CONCURRENT; i++)
    if (c->side[i].stream)
      cudaStreamDestroy(c->side[i].stream);
  for (int i = 0; i <= CB_NOPS; i++)
    free(c->paths[i]);
  free(c);
}

static int nccl_init(const struct cb_cluster *cl, const struct cb_settings *s,
                     const char *transport, void **ctx, struct cb_error *err) {
  (void)transport; /* applied before MPI_Init by nccl_pre_init */
  struct nccl_ctx *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "nccl: out of memory");
  c->cl = cl;
  *ctx = c;
  int version = 0;
  char why[160];
  ncclGetVersion(&version);
  if (cb_nccl_register_refusal(s->reg, version, why, sizeof why)) {
    free(c);
    *ctx = NULL;
    err->host = 1; /* the command line is sound; this NCCL cannot do it */
    return cb_fail(err, CB_USAGE, "%s", why);
  }
  c->reg = s->reg;
  /* --tune's rule sweep and --accept reach here without nccl_pre_init */
  cb_nccl_log_open();
  cb_nccl_log_cursor_end(&c->log);
  if (!debug_reset)
    *(void **)&debug_reset = dlsym(RTLD_DEFAULT, "ncclResetDebugInit");
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
  c->take = cb_nccl_ran_find(); /* NCCL loaded the profiler at its first communicator */
  return CB_OK;
}

/* What NCCL ran since the last ask, from collbench's profiler plugin. */
static void nccl_ran(void *ctx, char *buf, size_t len) {
  struct nccl_ctx *c = ctx;
  struct cb_ran r[CB_RAN_MAX];
  long more = 0;
  int n = c && c->take ? c->take(r, CB_RAN_MAX, &more) : 0;
  cb_nccl_ran_format(r, n, more, buf, len);
}

static const char *nccl_unsupported(void *ctx, const struct cb_op *op, int mem, int dtype,
                                    int redop, int inplace) {
  struct nccl_ctx *c = ctx;
  (void)redop;
  if (mem != CB_MEM_DEVICE)
    return "the nccl backend moves device memory only (--mem device)";
  /* NCCL refuses these itself: "FP8 reduction support begins with sm90
   * capable devices." Moving fp8 data works on any GPU. */
  if (c && cb_dtype_is_fp8(dtype) && op->uses_redop && c->cc < 90) {
    snprintf(c->why, sizeof c->why,
             "NCCL reduces fp8 only on compute capability 9.0 and newer; this GPU is %d.%d",
             c->cc / 10, c->cc % 10);
    return c->why;
  }
  if (op->id == CB_OP_ALLTOALL && inplace)
    return "alltoall by grouped send/receive needs separate buffers (no in-place variant)";
  return NULL;
}

/* --matrix: one round's traffic for this rank as one group, so the receive
 * from `from` and the send to `to` are in flight together, as in the MPI
 * matrix's rounds. */
static int nccl_shift(void *ctx, const void *send, void *recv, size_t bytes, int window, int from,
                      int to, struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  c->last = (struct cb_op_args){0};
  TRY_NCCL(ncclGroupStart());
  for (int w = 0; w < window; w++) {
    if (from >= 0)
      TRY_GROUP(
          ncclRecv((char *)recv + (size_t)w * bytes, bytes, ncclInt8, from, c->comm, c->stream));
    if (to >= 0)
      TRY_GROUP(ncclSend(send, bytes, ncclInt8, to, c->comm, c->stream));
  }
  TRY_NCCL(ncclGroupEnd());
  return CB_OK;
}

static int nccl_device_index(void *ctx) {
  return ((struct nccl_ctx *)ctx)->device;
}

/* --register local|symmetric: ncclMemAlloc's memory, registered as
 * nccl-tests -R 1/2 registers it. A window registration is collective:
 * the engine allocates the same buffers in the same order on every rank. */
static int register_alloc(struct nccl_ctx *c, size_t bytes, void **ptr, struct cb_error *err) {
  int slot = 0;
  while (slot < REGS && c->regs[slot].ptr)
    slot++;
  if (slot == REGS)
    return cb_fail(err, CB_RUNTIME, "rank %d: nccl: more than %d registered buffers at once",
                   c->cl->rank, REGS);
  TRY_NCCL(ncclMemAlloc(ptr, bytes));
  ncclResult_t rc;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  if (c->reg == CB_REGISTER_SYMMETRIC)
    rc = ncclCommWindowRegister(c->comm, *ptr, bytes, (ncclWindow_t *)&c->regs[slot].handle,
                                NCCL_WIN_COLL_SYMMETRIC);
  else
#endif
    rc = ncclCommRegister(c->comm, *ptr, bytes, &c->regs[slot].handle);
  if (rc != ncclSuccess) {
    ncclMemFree(*ptr);
    *ptr = NULL;
    return nccl_failed(
        c, c->reg == CB_REGISTER_SYMMETRIC ? "ncclCommWindowRegister" : "ncclCommRegister", rc,
        err);
  }
  c->regs[slot].ptr = *ptr;
  return CB_OK;
}

static int nccl_alloc(void *ctx, int mem, size_t bytes, void **ptr, struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  if (c->reg && mem == CB_MEM_DEVICE)
    return register_alloc(c, bytes, ptr, err);
  return cb_gpu_alloc(c->cl, "nccl", mem, bytes, ptr, err);
}

static void nccl_free(void *ctx, int mem, void *ptr) {
  struct nccl_ctx *c = ctx;
  drop_graph(c); /* it may point into this buffer */
  for (int i = 0; i < REGS; i++)
    if (c->regs[i].ptr && c->regs[i].ptr == ptr) {
      /* an aborted communicator (c->comm NULL) took its registrations with
       * it, and ncclCommWindowDeregister does not check for a NULL one
       * (src/dev_runtime.cc:927-935 at v2.28.9-1): the memory alone is freed */
      if (c->comm) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
        if (c->reg == CB_REGISTER_SYMMETRIC)
          ncclCommWindowDeregister(c->comm, (ncclWindow_t)c->regs[i].handle);
        else
#endif
          ncclCommDeregister(c->comm, c->regs[i].handle);
      }
      ncclMemFree(ptr);
      c->regs[i].ptr = NULL;
      return;
    }
  cb_gpu_free(mem, ptr);
}

/* --concurrent: a communicator split from the run's for each op's group,
 * and a stream per slot, so the ops run side by side as the layout's step
 * runs them (tuner/layout_nccl.c); every rank starts them in the same
 * order. test() polls the slot's stream as wait_stream does, with its
 * communicator's asynchronous error. */
static int nccl_split(void *ctx, int color, int key, void **comm, struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  ncclComm_t *sub = malloc(sizeof *sub);
  if (!sub)
    return cb_fail(err, CB_RUNTIME, "rank %d (%s): nccl: out of memory for --concurrent",
                   c->cl->rank, c->cl->hostname);
  *sub = NULL;
  cb_watchdog_arm("--concurrent: ncclCommSplit");
  ncclResult_t rc = ncclCommSplit(c->comm, color, key, sub, NULL);
  cb_watchdog_disarm();
  if (rc != ncclSuccess) {
    int st = nccl_failed(c, "ncclCommSplit (--concurrent)", rc, err);
    cb_nccl_comm_end(*sub, 1);
    free(sub);
    return st;
  }
  *comm = sub;
  return CB_OK;
}

static void nccl_free_comm(void *ctx, void *comm) {
  struct nccl_ctx *c = ctx;
  ncclComm_t *sub = comm;
  for (int i = 0; i < CB_MAX_CONCURRENT; i++)
    if (c->side[i].comm == *sub)
      c->side[i].comm = NULL;
  cb_nccl_comm_end(*sub, c->failed);
  free(sub);
}

static int nccl_start(void *ctx, void *comm, const struct cb_op_args *a, int slot,
                      struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  if (!c->side[slot].stream)
    TRY_CUDA(cudaStreamCreateWithFlags(&c->side[slot].stream, cudaStreamNonBlocking));
  struct cb_nccl_lane l = {*(ncclComm_t *)comm, c->side[slot].stream, 0, 1};
  TRY_NCCL(ncclCommUserRank(l.comm, &l.rank));
  TRY_NCCL(ncclCommCount(l.comm, &l.nranks));
  c->side[slot].comm = l.comm;
  c->last = *a;
  return launch_on(c, &l, a, err);
}

static int nccl_test(void *ctx, int slot, int *done, struct cb_error *err) {
  struct nccl_ctx *c = ctx;
  cudaError_t q = cudaStreamQuery(c->side[slot].stream);
  *done = q == cudaSuccess;
  if (q == cudaSuccess)
    return CB_OK;
  if (q != cudaErrorNotReady)
    return cuda_failed(c, "cudaStreamQuery (--concurrent)", q, err);
  sched_yield(); /* NCCL's proxy thread may share this core (wait_stream) */
  ncclResult_t async = ncclSuccess;
  TRY_NCCL(ncclCommGetAsyncError(c->side[slot].comm, &async));
  if (async != ncclSuccess && async != ncclInProgress)
    return nccl_failed(c, "a --concurrent op (ncclCommGetAsyncError)", async, err);
  return CB_OK;
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
    .net_use = nccl_net_use,
    .ran = nccl_ran,
    .shift = nccl_shift,
    .device_index = nccl_device_index,
    .split = nccl_split,
    .start = nccl_start,
    .test = nccl_test,
    .free_comm = nccl_free_comm,
    .inplace_result_offset = NULL,
    .finalize = nccl_finalize,
};
