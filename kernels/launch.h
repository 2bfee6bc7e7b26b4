/* Host-side launch arithmetic of the CUDA kernels (launch.c). */
#ifndef CB_KERNELS_LAUNCH_H
#define CB_KERNELS_LAUNCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A grid-stride launch: threads per block, blocks capped at max_blocks,
 * none for no elements. */
struct cb_launch {
  unsigned blocks, threads;
};
struct cb_launch cb_launch_dims(size_t n, unsigned threads, unsigned max_blocks);

#ifdef __cplusplus
}
#endif

#endif
