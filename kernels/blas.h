/* OpenBLAS's sgemm for callers other than the host step (the parallel
 * layouts' compute, tuner/layout_step.c), loaded as host.c loads it. */
#ifndef CB_KERNELS_BLAS_H
#define CB_KERNELS_BLAS_H

#include <stddef.h>

#include "base/error.h"

/* Once per process; `threads` workers (OPENBLAS_NUM_THREADS). */
int cb_blas_load(int threads, struct cb_error *err);
/* c[m x n] = a[m x k] b[k x n], row major, after cb_blas_load. */
void cb_blas_sgemm(size_t m, size_t n, size_t k, const float *a, const float *b, float *c);

#endif
