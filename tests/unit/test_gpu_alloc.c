/* cb_gpu_alloc after a failed cudaMalloc: the error must not stay CUDA's
 * "last error", or the next kernel launch's check reports it as its own
 * and the run aborts instead of skipping the size. No GPU here, so the
 * CUDA runtime calls gpu.c makes are stand-ins defined below (the test's
 * own definitions come before libcudart's): cudaMalloc fails as on a full
 * GPU and records its error as the runtime does. */
#include <stdlib.h>

#include "backends/backend.h"
#include "config.h"
#include "runtime/gpu.h"
#include "tap.h"

#if CB_HAVE_CUDA
#include <cuda_runtime_api.h>

static cudaError_t last_error = cudaSuccess;

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
  *free_bytes = *total = (size_t)80 << 30;
  return cudaSuccess;
}

cudaError_t cudaMalloc(void **ptr, size_t bytes) {
  (void)bytes;
  *ptr = NULL;
  return last_error = cudaErrorMemoryAllocation;
}

cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned int flags) {
  (void)bytes, (void)flags;
  *ptr = NULL;
  return last_error = cudaErrorMemoryAllocation;
}

cudaError_t cudaGetLastError(void) {
  cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

int main(void) {
  struct cb_cluster cl = {0};
  snprintf(cl.hostname, sizeof cl.hostname, "node0");
  struct cb_error err = {0};
  void *p = (void *)&cl;
  int rc = cb_gpu_alloc(&cl, "nccl", CB_MEM_DEVICE, 1 << 20, &p, &err);
  ok(rc == CB_RUNTIME && p == NULL, "a failed cudaMalloc is a runtime error (%s)", err.msg);
  ok(strstr(err.msg, "cudaMalloc failed for 1048576 bytes") != NULL,
     "the message names the call and the size");
  is_long(last_error, cudaSuccess, "and CUDA's last error is cleared for the next launch");
  struct cb_error err2 = {0};
  cb_gpu_alloc(&cl, "nccl", CB_MEM_PINNED, 4096, &p, &err2);
  is_long(last_error, cudaSuccess, "likewise after a failed cudaHostAlloc (pinned)");
  done_testing();
  return exit_status();
}
#else
int main(void) {
  plan(1);
  printf("ok 1 # SKIP built without CUDA (no cudaMalloc to fail)\n");
  return 0;
}
#endif
