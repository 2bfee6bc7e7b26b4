/* The compute backend of the reference step: one struct of functions per
 * implementation (host: OpenBLAS in float; gpu: cuBLAS in the model's
 * dtype). A step is forward then backward over every layer; backward hands
 * each gradient tensor to `ready` as soon as it is final, last layer
 * first, and calls `poll` between GEMMs so a communication backend that
 * needs the CPU to make progress gets it. On a GPU "final" means the
 * kernel producing it has been enqueued on stream(): whoever reads it
 * must order itself after that point of the stream (an event). */
#ifndef CB_COMPUTE_H
#define CB_COMPUTE_H

#include <stddef.h>

#include "base/error.h"
#include "transformer.h"

struct cb_step_hooks {
  /* tensor: index in ready order (0 .. layers*CB_T_PER_LAYER-1) */
  int (*ready)(void *user, int tensor, struct cb_error *err);
  void (*poll)(void *user);
  void *user;
};

struct cb_compute {
  const char *name;
  /* Allocates weights, gradients and activations for the model. */
  int (*init)(const struct cb_model *m, int threads, void **ctx, struct cb_error *err);
  /* The gradients, one flat buffer in ready order: tensor i starts at the
   * sum of the sizes of tensors 0..i-1 (see cb_model_tensor_elems), so a
   * bucket of consecutive tensors is one contiguous slice. Elements are
   * grad_dtype() (enum cb_model_dtype); device memory on a GPU. */
  void *(*grads)(void *ctx);
  int (*grad_dtype)(void *ctx);
  /* The cudaStream_t the step runs on; NULL on the host. */
  void *(*stream)(void *ctx);
  /* One forward and backward pass, returning when it has completed (a GPU
   * backend synchronizes its stream); hooks may be NULL (compute alone). */
  int (*step)(void *ctx, const struct cb_step_hooks *hooks, struct cb_error *err);
  /* Host only (NULL on a GPU): the float weights, laid out like grads();
   * and the loss of the last step, sum(out^2) / (2 * elements of out),
   * whose gradient backward computes (for gradient checks). */
  float *(*params)(void *ctx);
  double (*loss)(void *ctx);
  /* Floating-point operations of one step, as counted by the kernel. */
  double (*flops)(void *ctx);
  void (*finalize)(void *ctx);
};

/* The compute backends of this build, or NULL with the reason. */
const struct cb_compute *cb_compute_host(const char **why);
const struct cb_compute *cb_compute_gpu(const char **why);
/* The host's step with its gradients copied to the GPU (gpu_host_step.c): where collbench's
 * GPU kernels cannot run on the GPU. */
const struct cb_compute *cb_compute_host_gpu(const char **why);

#endif
