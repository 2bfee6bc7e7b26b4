/* cuBLAS, loaded when a GPU step first needs it, not linked: its library
 * constructors take 0.3 s, which every command paid at start (and which
 * left SIGTERM without our handler that long, issue 56). The reference
 * step (gpu_step.c) and the layouts' step (tuner/layout_nccl.c) call it
 * through cb_cublas. */
#ifndef CB_GPU_BLAS_H
#define CB_GPU_BLAS_H

#include <cublas_v2.h>

#include "base/error.h"

/* The functions called, by their exported names (cublas_v2.h maps some
 * to NAME_v2). */
#define CB_CUBLAS_FNS(X)                                                                           \
  X(cublasCreate)                                                                                  \
  X(cublasDestroy)                                                                                 \
  X(cublasSetStream)                                                                               \
  X(cublasSetWorkspace) X(cublasGemmEx) X(cublasGemmStridedBatchedEx) X(cublasGetStatusString)

struct cb_cublas {
#define CB_CUBLAS_MEMBER(f) __typeof__(f) *f;
  CB_CUBLAS_FNS(CB_CUBLAS_MEMBER)
#undef CB_CUBLAS_MEMBER
};
extern struct cb_cublas cb_cublas;

/* Loads it once (CB_CUBLAS_SONAME); CB_RUNTIME naming the library or the
 * missing function. */
int cb_cublas_load(struct cb_error *err);

#endif
