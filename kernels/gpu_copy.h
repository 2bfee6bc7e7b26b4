/* The SM copy kernel of the copy matrix (--op copy): a grid-stride copy
 * with 16-byte loads and stores, run by one GPU's SMs. */
#ifndef CB_KERNELS_COPY_H
#define CB_KERNELS_COPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Queues a copy of `bytes` (a multiple of 16, both pointers 16-byte
 * aligned) on `stream` (a cudaStream_t) of the current device, with
 * `blocks` blocks; returns the cudaError_t of the launch. */
int cb_copy_kernel_launch(void *dst, const void *src, size_t bytes, int blocks, void *stream);

#ifdef __cplusplus
}
#endif

#endif
