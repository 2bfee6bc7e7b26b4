/* Check patterns filled and counted on the GPU: the same values as
 * bench/base/pattern.c (value(rank, index), reduced(index)), computed in place in
 * device memory instead of on the host and copied, as nccl-tests does.
 * The engine uses them for device memory only after a self-check in the
 * same process has proven them equal to the host path (bench/runtime/pattern_io.c,
 * bench/runtime/gpu_pattern_io.c); tests/unit/test_gpu_pattern.c checks them
 * more widely on a GPU. */
#ifndef CB_GPU_PATTERN_H
#define CB_GPU_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "base/pattern.h"

#include "launch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dev[k] = value(rank, first + k) for k < n. 0, or -1 with CUDA's reason. */
int cb_gpu_pattern_fill(const struct cb_pattern *p, void *dev, int rank, uint64_t first, size_t n,
                        char *why, size_t len);
/* *wrong = number of k < n with dev[k] != value(rank, first + k), or, with
 * rank < 0, != reduced(first + k). */
int cb_gpu_pattern_count_wrong(const struct cb_pattern *p, const void *dev, int rank,
                               uint64_t first, size_t n, size_t *wrong, char *why, size_t len);

/* dev[k] = the dtype's poison (cb_pattern_poison's -1) for k < n. */
int cb_gpu_pattern_poison(int dtype, void *dev, size_t n, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
