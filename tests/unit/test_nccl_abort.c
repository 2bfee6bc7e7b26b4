/* The nccl backend after a failed call: a launch that NCCL refuses must
 * leave the communicator to be aborted at finalize, never destroyed
 * (destroy waits for kernels that may wait on a peer: the run would end
 * only through the watchdog); a communicator that never failed is
 * destroyed. A failed ncclCommInitRankConfig: what NCCL left in the handle
 * is aborted (NCCL's docs), in the backend and in --tune's NCCL all-reduce
 * (tuner/comm_nccl.c); a NULL handle is left alone. No GPU here: the CUDA
 * and NCCL calls made on these paths are stand-ins defined below (the
 * test's own definitions come before libcudart's and libnccl's);
 * ncclAllReduce fails as on a broken peer, ncclCommInitRankConfig as
 * init_fails says, the rest succeed. One rank, MPI as a singleton. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "config.h"
#include "engine/defaults.h"
#include "ops/op.h"
#include "runtime/settings.h"
#include "tap.h"
#include "tuner/comm.h"
#include "tuner/space.h"

#if CB_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>

static int destroyed, aborted, allreduce_fails;
static int fake_comm, fake_stream, fake_event;
/* ncclCommInitRankConfig: 0 succeeds; 1 fails leaving its communicator in
 * the handle (to be aborted); 2 fails leaving NULL (as NCCL 2.24 to 2.30
 * do on a blocking init) */
static int init_fails;
static ncclComm_t aborted_comm;

cudaError_t cudaGetDeviceCount(int *n) {
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) {
  (void)d;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d) {
  (void)d;
  *v = a == cudaDevAttrComputeCapabilityMajor ? 9 : 0;
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
  (void)flags;
  *s = (cudaStream_t)&fake_stream;
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = (cudaEvent_t)&fake_event;
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags) {
  (void)flags;
  *e = (cudaEvent_t)&fake_event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  (void)e, (void)s;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  (void)e;
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  (void)s;
  return cudaSuccess;
}
ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  memset(id, 0, sizeof *id);
  return ncclSuccess;
}
ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int n, ncclUniqueId id, int rank,
                                    ncclConfig_t *config) {
  (void)n, (void)id, (void)rank, (void)config;
  *comm = init_fails == 2 ? NULL : (ncclComm_t)&fake_comm;
  return init_fails ? ncclSystemError : ncclSuccess;
}
ncclResult_t ncclAllReduce(const void *in, void *out, size_t count, ncclDataType_t t,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t s) {
  (void)in, (void)out, (void)count, (void)t, (void)op, (void)comm, (void)s;
  allreduce_fails++;
  return ncclRemoteError; /* as when a peer has gone */
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  (void)comm;
  destroyed++;
  return ncclSuccess;
}
ncclResult_t ncclCommAbort(ncclComm_t comm) {
  aborted++, aborted_comm = comm;
  return ncclSuccess;
}

/* --register symmetric (issue 75 finding 7): buffers from ncclMemAlloc in
 * a window; the stream never completes and NCCL reports an asynchronous
 * error, so the backend aborts the communicator; NCCL's
 * ncclCommWindowDeregister dereferences its comm without a check
 * (src/dev_runtime.cc:927-935 at v2.28.9-1): a NULL one is counted here. */
static int async_fails, windows, deregistered_null, deregistered, mem_freed;
cudaError_t cudaStreamQuery(cudaStream_t s) {
  (void)s;
  return async_fails ? cudaErrorNotReady : cudaSuccess;
}
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *async) {
  (void)comm;
  *async = async_fails ? ncclRemoteError : ncclSuccess;
  return ncclSuccess;
}
ncclResult_t ncclMemAlloc(void **p, size_t bytes) {
  *p = malloc(bytes);
  return *p ? ncclSuccess : ncclSystemError;
}
ncclResult_t ncclMemFree(void *p) {
  free(p);
  mem_freed++;
  return ncclSuccess;
}
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void *buf, size_t size, ncclWindow_t *win,
                                    int flags) {
  (void)comm, (void)buf, (void)size, (void)flags;
  *win = (ncclWindow_t)&windows;
  windows++;
  return ncclSuccess;
}
ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win) {
  (void)win;
  comm ? deregistered++ : deregistered_null++;
  return ncclSuccess;
}

static void test_symmetric_abort(const struct cb_cluster *cl, const struct cb_backend *b) {
  struct cb_settings s;
  cb_settings_defaults(&s);
  s.reg = CB_REGISTER_SYMMETRIC;
  void *ctx = NULL, *buf = NULL;
  struct cb_error err = {0};
  aborted = destroyed = 0;
  int rc = b->init(cl, &s, "auto", &ctx, &err);
  if (rc == CB_OK)
    rc = b->alloc(ctx, CB_MEM_DEVICE, 4096, &buf, &err);
  ok(rc == CB_OK && buf && windows == 1, "--register symmetric: a buffer in a window (%s)",
     err.msg);
  if (rc != CB_OK)
    return;
  async_fails = 1;
  rc = b->sync(ctx, &err);
  async_fails = 0;
  ok(rc == CB_RUNTIME && aborted == 1, "an asynchronous error aborts the communicator (%s)",
     err.msg);
  b->free(ctx, CB_MEM_DEVICE, buf);
  b->finalize(ctx);
  ok(deregistered_null == 0 && deregistered == 0 && mem_freed == 1,
     "after the abort, its buffer is freed and no window deregistered on a NULL communicator "
     "(NULL %d, others %d, freed %d)",
     deregistered_null, deregistered, mem_freed);
}
#endif

/* --tune's NCCL all-reduce: a communicator for one setting, then closed */
static void tuner_open(const struct cb_cluster *cl, const char *how) {
  int stream = 0;
  struct cb_comm_setup setup = {.dtype = 0, .stream = &stream};
  struct cb_tune_config cfg = {0};
  struct cb_error err = {0};
  void *ctx = NULL, *setting = NULL;
  aborted = destroyed = 0, aborted_comm = NULL;
  int rc = cb_comm_nccl.init(cl, &setup, &ctx, &err);
  if (rc == CB_OK)
    rc = cb_comm_nccl.open(ctx, &cfg, &setting, &err);
  if (rc == CB_OK)
    cb_comm_nccl.close(ctx, setting);
  if (ctx)
    cb_comm_nccl.finalize(ctx);
  if (!init_fails)
    ok(rc == CB_OK && destroyed == 1 && aborted == 0,
       "--tune nccl: %s: opened and destroyed (aborted %d, destroyed %d)", how, aborted, destroyed);
  else if (init_fails == 1)
    ok(rc == CB_RUNTIME && strstr(err.msg, "ncclCommInitRankConfig") && aborted == 1 &&
           aborted_comm == (ncclComm_t)&fake_comm && destroyed == 0,
       "--tune nccl: %s: its communicator aborted (aborted %d, destroyed %d; %s)", how, aborted,
       destroyed, err.msg);
  else
    ok(rc == CB_RUNTIME && strstr(err.msg, "ncclCommInitRankConfig") && aborted == 0 &&
           destroyed == 0,
       "--tune nccl: %s: nothing to abort (aborted %d, destroyed %d)", how, aborted, destroyed);
}

int main(int argc, char **argv) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  setenv("NCCL_DEBUG", "WARN", 1); /* the user's log: none made in $TMPDIR */
  MPI_Init(&argc, &argv);
  struct cb_cluster cl = {
      .comm = MPI_COMM_WORLD, .rank = 0, .nranks = 1, .local_size = 1, .nnodes = 1};
  snprintf(cl.hostname, sizeof cl.hostname, "node0");
  struct cb_settings s;
  cb_settings_defaults(&s);
  const struct cb_backend *b = cb_backends[cb_backend_lookup("nccl")];

  void *ctx = NULL;
  struct cb_error err = {0};
  ok(b->init(&cl, &s, "auto", &ctx, &err) == CB_OK && ctx, "init with stand-in CUDA and NCCL (%s)",
     err.msg);
  char buf[64];
  struct cb_op_args a = {.op = cb_ops[CB_OP_ALLREDUCE], .send = buf, .recv = buf + 32, .count = 4};
  int rc = b->run(ctx, &a, &err);
  ok(rc == CB_RUNTIME && allreduce_fails == 1 && strstr(err.msg, "ncclAllReduce"),
     "a refused ncclAllReduce is a runtime error naming the call (%s)", err.msg);
  b->finalize(ctx);
  ok(aborted == 1 && destroyed == 0,
     "after it, finalize aborts the communicator, not destroys it (aborted %d, destroyed %d)",
     aborted, destroyed);

  aborted = destroyed = 0;
  struct cb_error err2 = {0};
  ctx = NULL;
  ok(b->init(&cl, &s, "auto", &ctx, &err2) == CB_OK && ctx, "a second communicator");
  b->finalize(ctx);
  ok(destroyed == 1 && aborted == 0,
     "a healthy one is destroyed, not aborted (aborted %d, destroyed %d)", aborted, destroyed);

  /* a failed init: the backend's init fails, naming the call, and aborts
   * what NCCL left in the handle, once (not again at finalize) */
  aborted = destroyed = 0, aborted_comm = NULL, init_fails = 1;
  struct cb_error err3 = {0};
  ctx = NULL;
  rc = b->init(&cl, &s, "auto", &ctx, &err3);
  ok(rc == CB_RUNTIME && !ctx && strstr(err3.msg, "ncclCommInitRankConfig"),
     "a failed ncclCommInitRankConfig fails init, naming it (%s)", err3.msg);
  ok(aborted == 1 && aborted_comm == (ncclComm_t)&fake_comm && destroyed == 0,
     "the communicator NCCL left is aborted, once, never destroyed (aborted %d, destroyed %d)",
     aborted, destroyed);
  aborted = destroyed = 0, init_fails = 2;
  ctx = NULL;
  rc = b->init(&cl, &s, "auto", &ctx, &err3);
  ok(rc == CB_RUNTIME && aborted == 0 && destroyed == 0,
     "a failed init that left NULL: nothing aborted (aborted %d, destroyed %d)", aborted,
     destroyed);

  init_fails = 0;
  tuner_open(&cl, "a healthy communicator");
  init_fails = 1;
  tuner_open(&cl, "a failed init that left a communicator");
  init_fails = 2;
  tuner_open(&cl, "a failed init that left NULL");
  init_fails = 0;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  test_symmetric_abort(&cl, b);
#endif
  MPI_Finalize();
  done_testing();
  return exit_status();
}
#else
int main(void) {
  plan(1);
  printf("ok 1 # SKIP built without NCCL (no nccl backend to drive)\n");
  return 0;
}
#endif
