/* The nccl backend after a failed call: a launch that NCCL refuses must
 * leave the communicator to be aborted at finalize, never destroyed
 * (destroy waits for kernels that may wait on a peer: the run would end
 * only through the watchdog); a communicator that never failed is
 * destroyed. No GPU here: the CUDA and NCCL calls the backend makes on
 * this path are stand-ins defined below (the test's own definitions come
 * before libcudart's and libnccl's); ncclAllReduce fails as on a broken
 * peer, the rest succeed. One rank, MPI as a singleton. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "config.h"
#include "ops/op.h"
#include "core/settings.h"
#include "tap.h"

#if CB_HAVE_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>

static int destroyed, aborted, allreduce_fails;
static int fake_comm, fake_stream, fake_event;

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
  *comm = (ncclComm_t)&fake_comm;
  return ncclSuccess;
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
  (void)comm;
  aborted++;
  return ncclSuccess;
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
