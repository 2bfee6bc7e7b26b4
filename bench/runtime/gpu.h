/* GPU runtime helpers shared by the backends: how many GPUs there are (and
 * why none), which one this rank uses, and pinned/device buffers. Built
 * with or without CUDA: without it every query says so, so callers need
 * no #if of their own. */
#ifndef CB_GPU_H
#define CB_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "cluster.h"

struct cb_settings;

/* GPUs this process sees; 0 with CUDA's own reason in why
 * ("cudaGetDeviceCount: ..."), as the probe and the copy matrix say it. */
int cb_gpu_devices(char *why, size_t len);
/* The same for a backend or memory kind: "no usable GPU (...)". */
int cb_gpu_count(char *why, size_t len);

/* Whether memory kind `mem` (enum cb_mem) can be allocated here now;
 * 0 with the reason. Host memory always can. */
int cb_gpu_mem_usable(int mem, char *why, size_t len);

/* The device this rank uses: --share-gpu: the first of --gpu-list (or 0);
 * --gpu-list: its entry for this rank's local rank; otherwise the local
 * rank. Pure, so it can be tested without a GPU; -1 when the list has no
 * entry for the local rank. */
int cb_gpu_choose(int local_rank, const int *list, int nlist, int share);

/* Chooses and selects (cudaSetDevice) this rank's device once; later calls
 * return the same one. */
int cb_gpu_bind(const struct cb_cluster *cl, const struct cb_settings *s, int *device,
                struct cb_error *err);

/* Bytes of memory of the bound device; 0 when none is bound or unknown. */
uint64_t cb_gpu_mem_total(void);

/* Compute capability of the bound device as major * 10 + minor; 0 unknown. */
int cb_gpu_compute_capability(void);

/* Whether host waits on the bound device yield the CPU: cb_gpu_bind asks
 * for cudaDeviceScheduleYield and reads the flags back. 1 yes, 0 no (CUDA
 * refused, another schedule is in effect), -1 unknown (no device bound, the
 * flags unreadable, or a build without CUDA). */
int cb_gpu_waits_by_yield(void);
/* That, as one line for the run's notes ("GPU waits: ..."); 0 and nothing
 * written when no device is bound. */
int cb_gpu_wait_note(char *buf, size_t len);

/* Pinned host (cudaHostAlloc) or device (cudaMalloc) memory. Device
 * memory is checked against cudaMemGetInfo first so a size too large
 * fails with a message, not a crash; `who` names the backend. */
int cb_gpu_alloc(const struct cb_cluster *cl, const char *who, int mem, size_t bytes, void **ptr,
                 struct cb_error *err);
void cb_gpu_free(int mem, void *ptr);

/* Copies between any two of host, pinned and device memory (synchronous). */
int cb_gpu_copy(const struct cb_cluster *cl, const char *who, void *dst, const void *src,
                size_t bytes, struct cb_error *err);

/* Whether the MPI library accepts device pointers; 0 with the reason. */
int cb_gpu_mpi_cuda_aware(char *why, size_t len);


#endif
