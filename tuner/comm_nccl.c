/* The overlap engine's GPU communication backend: ncclAllReduce on a stream
 * of its own. A bucket's all-reduce waits (an event) for the point of the
 * compute stream where its last gradient was enqueued, so it overlaps the
 * rest of backward as DDP's does. Each (algorithm, protocol, CTAs) is its
 * own communicator, shared by the bucket sizes (setting_cache.h): NCCL
 * reads NCCL_ALGO and NCCL_PROTO at communicator init, and the CTA count
 * goes in through ncclConfig_t (NCCL user guide, API, "ncclConfig_t": cgaClusterSize, minCTAs,
 * maxCTAs). */
#include <cuda_runtime.h>
#include <nccl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backends/nccl_end.h"
#include "backends/nccl_logfile.h"
#include "comm.h"
#include "kernels/transformer.h"
#include "nccl_choice.h"
#include "nccl_world.h"
#include "plugin.h"

struct nccl_comm {
  const struct cb_cluster *cl;
  cudaStream_t compute, stream;
  cudaEvent_t ready;
  ncclDataType_t dtype;
  ncclComm_t running; /* the communicator of the all-reduces in flight */
  char where[320];
  /* the user's NCCL_ALGO/NCCL_PROTO at launch and what they leave
   * all-reduce (nccl_choice.h; tune.c refused values NCCL would refuse) */
  char *launch_algo, *launch_proto;
  int algo_index, proto_index;
  int failed; /* an NCCL or CUDA call failed: its communicators are aborted, not destroyed */
};

static int cuda_failed(struct nccl_comm *c, const char *call, cudaError_t e, struct cb_error *err) {
  c->failed = 1;
  return cb_fail(err, CB_RUNTIME, "%s: --tune nccl: %s failed: %s (%d)", c->where, call,
                 cudaGetErrorString(e), (int)e);
}

/* NCCL's own text too: ncclGetLastError ignores its argument and returns
 * the process-wide last WARN (init.cc), so NULL is as good as a comm and
 * works when there is none yet. Fetched here, before anything else can
 * call NCCL and replace it. */
static int nccl_failed(struct nccl_comm *c, const char *call, ncclResult_t r,
                       struct cb_error *err) {
  c->failed = 1;
  return cb_nccl_fail(err, c->where, call, (int)r, ncclGetErrorString(r), ncclGetLastError(NULL));
}

static const ncclDataType_t nccl_dtypes[CB_MODEL_NDTYPES] = {
    [CB_MODEL_FLOAT] = ncclFloat32, [CB_MODEL_BF16] = ncclBfloat16, [CB_MODEL_FP16] = ncclFloat16};

static int nccl_init(const struct cb_cluster *cl, const struct cb_comm_setup *setup, void **ctx,
                     struct cb_error *err) {
  if (!setup->stream)
    return cb_fail(err, CB_USAGE, "--tune: the NCCL all-reduce needs gradients on a GPU");
  /* before NCCL first logs: its WARN lines then go to the process's log */
  cb_nccl_log_open();
  struct nccl_comm *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "--tune nccl: out of memory");
  *ctx = c;
  c->cl = cl;
  c->compute = setup->stream;
  c->dtype = nccl_dtypes[setup->dtype];
  snprintf(c->where, sizeof c->where, "rank %d (%s)", cl->rank, cl->hostname);
  const char *algo = getenv("NCCL_ALGO"), *proto = getenv("NCCL_PROTO");
  c->launch_algo = algo ? strdup(algo) : NULL;
  c->launch_proto = proto ? strdup(proto) : NULL;
  if (cb_nccl_launch_index("NCCL_ALGO", algo, cb_nccl_algo_env, CB_NCCL_NALGOS, &c->algo_index,
                           err) ||
      cb_nccl_launch_index("NCCL_PROTO", proto, cb_nccl_proto_env, CB_NCCL_NPROTOS, &c->proto_index,
                           err))
    return err->status;
  cudaError_t e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags(&c->ready, cudaEventDisableTiming);
  return e == cudaSuccess ? CB_OK : cuda_failed(c, "cudaStreamCreate/cudaEventCreate", e, err);
}

static void nccl_tunable(void *ctx, int *yes, char *why, size_t len) {
  (void)ctx;
  *yes = 1;
  snprintf(why, len,
           "NCCL_ALGO x NCCL_PROTO (pruned to the pairs NCCL runs here) x CTAs (ncclConfig_t) x "
           "bucket, a communicator per (algorithm, protocol, CTAs) shared by the buckets");
}

/* A list or '^' exclusion is launch setting 0 (NCCL's choice), measured
 * with the user's value kept (nccl_open). */
static void nccl_launch(void *ctx, struct cb_tune_config *cfg) {
  struct nccl_comm *c = ctx;
  memset(cfg, 0, sizeof *cfg);
  cfg->algorithm = c->algo_index;
  cfg->protocol = c->proto_index;
  const char *ctas = getenv("NCCL_MIN_CTAS"), *max = getenv("NCCL_MAX_CTAS");
  if (ctas && max && !strcmp(ctas, max))
    cfg->ctas = atoi(ctas);
}

static void nccl_version(void *ctx, char *buf, size_t len) {
  (void)ctx;
  int v = 0;
  ncclGetVersion(&v);
  /* 2.28.9 is 22809: major * 10000 + minor * 100 + patch since 2.9 */
  snprintf(buf, len, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
}

static int nccl_open(void *ctx, const struct cb_tune_config *cfg, void **setting,
                     struct cb_error *err) {
  struct nccl_comm *c = ctx;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 1;
  if (cfg->ctas > 0)
    config.minCTAs = config.maxCTAs = cfg->ctas;
  ncclComm_t made = NULL, *comm;
  char *algo =
      cb_nccl_env_swap("NCCL_ALGO", cb_nccl_measure_value(c->launch_algo, c->algo_index,
                                                          cfg->algorithm, cb_nccl_algo_env));
  char *proto =
      cb_nccl_env_swap("NCCL_PROTO", cb_nccl_measure_value(c->launch_proto, c->proto_index,
                                                           cfg->protocol, cb_nccl_proto_env));
  int rc =
      cb_nccl_world_init(c->cl, c->where, "--tune nccl communicator setup (ncclCommInitRankConfig)",
                         &config, &made, err);
  cb_nccl_env_restore("NCCL_ALGO", algo);
  cb_nccl_env_restore("NCCL_PROTO", proto);
  if (rc != CB_OK) {
    /* what NCCL left in the handle is aborted (a failed init is freed with
     * ncclCommAbort; NULL: nothing to call) */
    c->failed = 1;
    cb_nccl_comm_end(made, 1);
    return rc;
  }
  if (!(comm = malloc(sizeof *comm))) {
    cb_nccl_comm_end(made, 0);
    return cb_fail(err, CB_RUNTIME, "%s: --tune nccl: out of memory", c->where);
  }
  *comm = made;
  *setting = comm;
  return CB_OK;
}

static int nccl_start(void *ctx, void *setting, void *buf, size_t count, struct cb_error *err) {
  struct nccl_comm *c = ctx;
  cudaError_t e = cudaEventRecord(c->ready, c->compute);
  if (e == cudaSuccess)
    e = cudaStreamWaitEvent(c->stream, c->ready, 0);
  if (e != cudaSuccess)
    return cuda_failed(c, "cudaEventRecord/cudaStreamWaitEvent", e, err);
  c->running = *(ncclComm_t *)setting;
  ncclResult_t r = ncclAllReduce(buf, buf, count, c->dtype, ncclSum, c->running, c->stream);
  return r == ncclSuccess ? CB_OK : nccl_failed(c, "ncclAllReduce", r, err);
}

static void nccl_poll(void *ctx) {
  (void)ctx; /* the GPU progresses NCCL's kernels on its own */
}

/* Polls rather than blocking in cudaStreamSynchronize, so an asynchronous
 * NCCL error (a peer gone) ends the wait with a message; a true hang is
 * the watchdog's (--timeout). */
static int nccl_wait_all(void *ctx, struct cb_error *err) {
  struct nccl_comm *c = ctx;
  for (;;) {
    cudaError_t e = cudaStreamQuery(c->stream);
    if (e == cudaSuccess)
      return CB_OK;
    if (e != cudaErrorNotReady)
      return cuda_failed(c, "cudaStreamQuery", e, err);
    sched_yield(); /* NCCL's proxy thread may share this core (bench/backends/nccl.c) */
    ncclResult_t async = ncclSuccess;
    if (c->running && ncclCommGetAsyncError(c->running, &async) == ncclSuccess &&
        async != ncclSuccess && async != ncclInProgress)
      return nccl_failed(c, "ncclAllReduce (asynchronous error)", async, err);
  }
}

static void nccl_close(void *ctx, void *setting) {
  struct nccl_comm *c = ctx;
  ncclComm_t *comm = setting;
  if (c->running == *comm)
    c->running = NULL;
  cb_nccl_comm_end(*comm, c->failed);
  free(comm);
}

static void nccl_finalize(void *ctx) {
  struct nccl_comm *c = ctx;
  if (c->ready)
    cudaEventDestroy(c->ready);
  if (c->stream)
    cudaStreamDestroy(c->stream);
  free(c->launch_algo);
  free(c->launch_proto);
  free(c);
}

const struct cb_comm cb_comm_nccl = {
    .name = "nccl",
    .kind = CB_SPACE_NCCL,
    .progress = "ncclAllReduce on its own CUDA stream, each bucket after an event on the compute "
                "stream",
    .init = nccl_init,
    .tunable = nccl_tunable,
    .launch = nccl_launch,
    .version = nccl_version,
    .open = nccl_open,
    .start = nccl_start,
    .poll = nccl_poll,
    .wait_all = nccl_wait_all,
    .close = nccl_close,
    .finalize = nccl_finalize,
};
