/* The compute backend of the reference step: one struct of functions per
 * implementation (host: OpenBLAS; a GPU one with cuBLAS plugs in the same
 * way). A step is forward then backward over every layer; backward hands
 * each gradient tensor to `ready` as soon as it is final, last layer
 * first, and calls `poll` between GEMMs so a communication backend that
 * needs the CPU to make progress gets it. */
#ifndef CB_COMPUTE_H
#define CB_COMPUTE_H

#include <stddef.h>

#include "error.h"
#include "model.h"

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
  /* The gradients, one flat float buffer in ready order: tensor i starts
   * at the sum of the sizes of tensors 0..i-1 (see cb_model_tensor_elems),
   * so a bucket of consecutive tensors is one contiguous slice. */
  float *(*grads)(void *ctx);
  /* One forward and backward pass; hooks may be NULL (compute alone). */
  int (*step)(void *ctx, const struct cb_step_hooks *hooks, struct cb_error *err);
  /* The weights, laid out like grads(); and the loss of the last step,
   * sum(out^2) / (2 * elements of out), whose gradient backward computes
   * (for gradient checks). */
  float *(*params)(void *ctx);
  double (*loss)(void *ctx);
  /* Floating-point operations of one step, as counted by the kernel. */
  double (*flops)(void *ctx);
  void (*finalize)(void *ctx);
};

/* The compute backend of this build, or NULL with the reason. */
const struct cb_compute *cb_compute_host(const char **why);

#endif
