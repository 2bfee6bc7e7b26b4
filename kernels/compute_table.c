/* The table of compute backends of the reference step (host OpenBLAS,
 * GPU cuBLAS), as built; compute.h is their interface. */
#include "compute.h"
#include "config.h"

#if CB_HAVE_OPENBLAS
extern const struct cb_compute cb_compute_openblas;
#endif

const struct cb_compute *cb_compute_host(const char **why) {
#if CB_HAVE_OPENBLAS
  *why = NULL;
  return &cb_compute_openblas;
#else
  *why = "this collbench was configured without OpenBLAS (install libopenblas-dev and run "
         "./configure again): --tune is disabled";
  return NULL;
#endif
}

#if CB_HAVE_CUBLAS
extern const struct cb_compute cb_compute_cublas;
#endif

const struct cb_compute *cb_compute_gpu(const char **why) {
#if CB_HAVE_CUBLAS
  *why = NULL;
  return &cb_compute_cublas;
#else
  *why = "this collbench was configured without CUDA and cuBLAS: the GPU step is disabled";
  return NULL;
#endif
}

#if CB_HAVE_CUDA && CB_HAVE_OPENBLAS
extern const struct cb_compute cb_compute_host_gpu_grads;
#endif

const struct cb_compute *cb_compute_host_gpu(const char **why) {
#if CB_HAVE_CUDA && CB_HAVE_OPENBLAS
  *why = NULL;
  return &cb_compute_host_gpu_grads;
#else
  *why = "this collbench was configured without CUDA or OpenBLAS";
  return NULL;
#endif
}
