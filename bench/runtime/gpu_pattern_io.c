/* The GPU kernels as a struct cb_pattern_io, admitted once per process by
 * the self-check (pattern_io.c). Without CUDA there is none. */
#include <stdio.h>

#include "cluster.h"
#include "config.h"
#include "pattern_io.h"

#if CB_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "gpu.h"
#include "kernels/gpu_pattern.h"

static int cuda_said(const char *call, cudaError_t rc, char *why, size_t len) {
  snprintf(why, len, "%s: %s (%d)", call, cudaGetErrorString(rc), (int)rc);
  return -1;
}

static int gpu_alloc(size_t bytes, void **buf, char *why, size_t len) {
  cudaError_t rc = cudaMalloc(buf, bytes);
  return rc == cudaSuccess ? 0 : cuda_said("cudaMalloc", rc, why, len);
}

static void gpu_free(void *buf) {
  cudaFree(buf);
}

static int gpu_copy(void *dst, const void *src, size_t bytes, int to_buf, char *why, size_t len) {
  cudaError_t rc =
      cudaMemcpy(dst, src, bytes, to_buf ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  return rc == cudaSuccess ? 0 : cuda_said("cudaMemcpy", rc, why, len);
}

static const struct cb_pattern_io gpu_io = {
    .name = "GPU kernels",
    .fill = cb_gpu_pattern_fill,
    .count_wrong = cb_gpu_pattern_count_wrong,
    .poison = cb_gpu_pattern_poison,
    .alloc = gpu_alloc,
    .free = gpu_free,
    .copy = gpu_copy,
};

const struct cb_pattern_io *cb_gpu_pattern_io(char *why, size_t len) {
  static int decided, admitted;
  static char reason[256];
  if (!decided) {
    decided = 1;
    if (cb_gpu_count(reason, sizeof reason) > 0)
      admitted = cb_pattern_io_selfcheck(&gpu_io, reason, sizeof reason);
  }
  if (!admitted)
    snprintf(why, len, "%s", reason);
  return admitted ? &gpu_io : NULL;
}

#else

const struct cb_pattern_io *cb_gpu_pattern_io(char *why, size_t len) {
  snprintf(why, len, "this collbench was built without CUDA");
  return NULL;
}

#endif

const struct cb_pattern_io *cb_gpu_pattern_io_all(const struct cb_cluster *cl, char *why,
                                                  size_t len) {
  const struct cb_pattern_io *io = cb_gpu_pattern_io(why, len);
  if (!io && cl->rank != 0)
    fprintf(stderr, "collbench: rank %d (%s): GPU check kernels not used: %s\n", cl->rank,
            cl->hostname, why);
  if (!cb_cluster_agree(cl, io ? CB_OK : CB_RUNTIME))
    return io;
  if (io)
    snprintf(why, len, "the GPU check kernels failed their self-check on another rank");
  return NULL;
}
