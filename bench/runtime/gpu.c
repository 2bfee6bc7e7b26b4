/* GPU runtime helpers: GPU count and why none, binding, pinned and device buffers, CUDA-aware
 * MPI (gpu.h says more). */
#include "gpu.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "memory.h"
#include "settings.h"
#if CB_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

int cb_gpu_choose(int local_rank, const int *list, int nlist, int share) {
  if (share)
    return nlist > 0 ? list[0] : 0;
  if (nlist == 0)
    return local_rank;
  return local_rank < nlist ? list[local_rank] : -1;
}

int cb_gpu_mpi_cuda_aware(char *why, size_t len) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  /* The compile-time macro says what the headers were built for; only the
   * run-time query knows the library actually loaded. */
  if (MPIX_Query_cuda_support())
    return 1;
  snprintf(why, len, "MPI is not CUDA-aware (MPIX_Query_cuda_support() = 0)");
#else
  snprintf(why, len, "MPI is not CUDA-aware (this MPI has no MPIX_Query_cuda_support)");
#endif
  return 0;
}

#if CB_HAVE_CUDA

/* yield: whether host waits yield the CPU (cb_gpu_waits_by_yield), schedule
 * the device's cudaDeviceSchedule* flags read back (-1 unknown), why what
 * refused or could not read them */
static struct {
  int bound, device, cc, yield, schedule;
  char why[160];
} gpu = {0, -1, 0, -1, -1, ""};

static const char *schedule_name(int flags, char *buf, size_t len) {
  switch (flags) {
  case cudaDeviceScheduleAuto: return "auto (CUDA spins or yields by its own rule)";
  case cudaDeviceScheduleSpin: return "spin";
  case cudaDeviceScheduleYield: return "yield";
  case cudaDeviceScheduleBlockingSync: return "blocking sync";
  default: snprintf(buf, len, "0x%x", (unsigned)flags); return buf;
  }
}

int cb_gpu_devices(char *why, size_t len) {
  int n = 0;
  cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc != cudaSuccess) {
    snprintf(why, len, "cudaGetDeviceCount: %s%s", cudaGetErrorString(rc),
             rc == cudaErrorInsufficientDriver || rc == cudaErrorNoDevice
                 ? "; no NVIDIA driver loaded?"
                 : "");
    cudaGetLastError(); /* the error is sticky otherwise */
    return 0;
  }
  if (n == 0)
    snprintf(why, len, "cudaGetDeviceCount: 0 devices");
  return n;
}

int cb_gpu_count(char *why, size_t len) {
  char reason[128]; /* the wrapped reason still fits the callers' 160 bytes */
  int n = cb_gpu_devices(reason, sizeof reason);
  if (n == 0)
    snprintf(why, len, "no usable GPU (%s)", reason);
  return n;
}

int cb_gpu_mem_usable(int mem, char *why, size_t len) {
  if (mem == CB_MEM_HOST)
    return 1;
  return cb_gpu_count(why, len) > 0;
}

int cb_gpu_bind(const struct cb_cluster *cl, const struct cb_settings *s, int *device,
                struct cb_error *err) {
  if (gpu.bound) {
    *device = gpu.device;
    return CB_OK;
  }
  char why[160];
  int n = cb_gpu_count(why, sizeof why);
  if (n == 0)
    return cb_fail(err, CB_USAGE, "rank %d (%s): %s", cl->rank, cl->hostname, why);
  int d = cb_gpu_choose(cl->local_rank, s->gpu_list, s->ngpu_list, s->share_gpu);
  if (d < 0)
    return cb_fail(err, CB_USAGE,
                   "rank %d (%s): --gpu-list names %d devices but this is local rank %d", cl->rank,
                   cl->hostname, s->ngpu_list, cl->local_rank);
  if (d >= n)
    return cb_fail(err, CB_USAGE,
                   "rank %d (%s): local rank %d would use GPU %d but this node has %d "
                   "(fewer ranks per node, --gpu-list, or --share-gpu)",
                   cl->rank, cl->hostname, cl->local_rank, d, n);
  cudaError_t rc = cudaSetDevice(d);
  if (rc != cudaSuccess)
    return cb_fail(err, CB_RUNTIME, "rank %d (%s): cudaSetDevice(%d) failed: %s (%d)", cl->rank,
                   cl->hostname, d, cudaGetErrorString(rc), (int)rc);
  /* A blocking sync (the --tune step's cudaStreamSynchronize) yields the
   * CPU instead of spinning: mpirun binds a rank to one core, NCCL's proxy
   * thread shares it, and a spinning wait starved NCCL's network transport
   * (bench/backends/nccl.c, wait_stream). A refusal only keeps CUDA's own;
   * what is in effect is read back (cudaGetDeviceFlags) and said with the
   * run's notes (cb_gpu_wait_note). */
  cudaError_t set = cudaSetDeviceFlags(cudaDeviceScheduleYield);
  if (set != cudaSuccess)
    snprintf(gpu.why, sizeof gpu.why, "cudaSetDeviceFlags: %s", cudaGetErrorString(set));
  (void)cudaGetLastError();
  unsigned int flags = 0;
  cudaError_t got = cudaGetDeviceFlags(&flags);
  if (got == cudaSuccess) {
    gpu.schedule = (int)(flags & cudaDeviceScheduleMask);
    gpu.yield = gpu.schedule == cudaDeviceScheduleYield;
  } else {
    snprintf(gpu.why, sizeof gpu.why, "cudaGetDeviceFlags: %s", cudaGetErrorString(got));
    (void)cudaGetLastError();
  }
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d) == cudaSuccess &&
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d) == cudaSuccess)
    gpu.cc = major * 10 + minor;
  gpu.bound = 1;
  gpu.device = *device = d;
  return CB_OK;
}

int cb_gpu_compute_capability(void) {
  return gpu.cc;
}

int cb_gpu_waits_by_yield(void) {
  return gpu.bound ? gpu.yield : -1;
}

int cb_gpu_wait_note(char *buf, size_t len) {
  char name[16];
  if (!gpu.bound)
    return 0;
  if (gpu.yield == 1)
    snprintf(buf, len,
             "GPU waits: host waits on GPU %d yield the CPU (cudaDeviceScheduleYield, read back "
             "with cudaGetDeviceFlags)",
             gpu.device);
  else if (gpu.yield == 0)
    snprintf(buf, len,
             "GPU waits: cudaDeviceScheduleYield did not take effect on GPU %d (%s%sits schedule "
             "is %s): a blocking wait may spin on the core NCCL's proxy thread shares",
             gpu.device, gpu.why, gpu.why[0] ? "; " : "",
             schedule_name(gpu.schedule, name, sizeof name));
  else
    snprintf(buf, len,
             "GPU waits: whether cudaDeviceScheduleYield took effect on GPU %d is unknown (%s)",
             gpu.device, gpu.why);
  return 1;
}

static int cuda_failed(const struct cb_cluster *cl, const char *who, const char *call, size_t bytes,
                       cudaError_t rc, struct cb_error *err) {
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): %s: %s failed for %zu bytes: %s (%d)", cl->rank,
                 cl->hostname, who, call, bytes, cudaGetErrorString(rc), (int)rc);
}

/* A failed allocation stays CUDA's "last error", which the next kernel
 * launch's cudaGetLastError() would take for its own failure: cleared
 * here, so the engine skips the size and the run goes on. */
static int alloc_failed(const struct cb_cluster *cl, const char *who, const char *call,
                        size_t bytes, cudaError_t rc, struct cb_error *err) {
  cudaGetLastError();
  return cuda_failed(cl, who, call, bytes, rc, err);
}

int cb_gpu_alloc(const struct cb_cluster *cl, const char *who, int mem, size_t bytes, void **ptr,
                 struct cb_error *err) {
  *ptr = NULL;
  if (bytes == 0)
    bytes = 1;
  cudaError_t rc;
  if (mem == CB_MEM_PINNED) {
    rc = cudaHostAlloc(ptr, bytes, cudaHostAllocDefault);
    return rc == cudaSuccess ? CB_OK : alloc_failed(cl, who, "cudaHostAlloc", bytes, rc, err);
  }
  size_t free_bytes = 0, total = 0;
  rc = cudaMemGetInfo(&free_bytes, &total);
  if (rc != cudaSuccess)
    return alloc_failed(cl, who, "cudaMemGetInfo", bytes, rc, err);
  if (bytes > free_bytes)
    return cb_fail(err, CB_RUNTIME,
                   "rank %d (%s): %s: %zu bytes of device memory do not fit: GPU %d has %zu of "
                   "%zu bytes free",
                   cl->rank, cl->hostname, who, bytes, gpu.device, free_bytes, total);
  rc = cudaMalloc(ptr, bytes);
  return rc == cudaSuccess ? CB_OK : alloc_failed(cl, who, "cudaMalloc", bytes, rc, err);
}

uint64_t cb_gpu_mem_total(void) {
  size_t free_bytes = 0, total = 0;
  if (!gpu.bound || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
    return 0;
  return total;
}

void cb_gpu_free(int mem, void *ptr) {
  if (mem == CB_MEM_PINNED)
    cudaFreeHost(ptr);
  else
    cudaFree(ptr);
}

int cb_gpu_copy(const struct cb_cluster *cl, const char *who, void *dst, const void *src,
                size_t bytes, struct cb_error *err) {
  cudaError_t rc = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
  return rc == cudaSuccess ? CB_OK : cuda_failed(cl, who, "cudaMemcpy", bytes, rc, err);
}

#else /* no CUDA in this build: every GPU request says so */

#define NO_CUDA "this collbench was built without CUDA (see ./configure)"

int cb_gpu_devices(char *why, size_t len) {
  snprintf(why, len, "cudaGetDeviceCount: not built with CUDA (./configure --with-cuda=DIR)");
  return 0;
}

int cb_gpu_count(char *why, size_t len) {
  snprintf(why, len, "no usable GPU (%s)", NO_CUDA);
  return 0;
}

int cb_gpu_mem_usable(int mem, char *why, size_t len) {
  if (mem == CB_MEM_HOST)
    return 1;
  snprintf(why, len, "not built (%s)", NO_CUDA);
  return 0;
}

int cb_gpu_bind(const struct cb_cluster *cl, const struct cb_settings *s, int *device,
                struct cb_error *err) {
  (void)s, (void)device;
  return cb_fail(err, CB_USAGE, "rank %d (%s): %s", cl->rank, cl->hostname, NO_CUDA);
}

int cb_gpu_compute_capability(void) {
  return 0;
}

uint64_t cb_gpu_mem_total(void) {
  return 0;
}

int cb_gpu_waits_by_yield(void) {
  return -1;
}

int cb_gpu_wait_note(char *buf, size_t len) {
  (void)buf, (void)len;
  return 0;
}

int cb_gpu_alloc(const struct cb_cluster *cl, const char *who, int mem, size_t bytes, void **ptr,
                 struct cb_error *err) {
  (void)mem, (void)bytes;
  *ptr = NULL;
  return cb_fail(err, CB_USAGE, "rank %d (%s): %s: %s", cl->rank, cl->hostname, who, NO_CUDA);
}

void cb_gpu_free(int mem, void *ptr) {
  (void)mem, (void)ptr;
}

int cb_gpu_copy(const struct cb_cluster *cl, const char *who, void *dst, const void *src,
                size_t bytes, struct cb_error *err) {
  (void)dst, (void)src, (void)bytes;
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): %s: %s", cl->rank, cl->hostname, who, NO_CUDA);
}

#endif
