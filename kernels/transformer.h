/* Transformer shapes for the reference training step: presets, the
 * --model-config form, and what follows from a shape (parameter tensors in
 * gradient-ready order, FLOPs, memory). Pure: unit-tested without MPI. */
#ifndef CB_KERNELS_MODEL_H
#define CB_KERNELS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

enum cb_model_dtype { CB_MODEL_FLOAT, CB_MODEL_BF16, CB_MODEL_FP16, CB_MODEL_NDTYPES };
extern const char *const cb_model_dtype_names[CB_MODEL_NDTYPES];

struct cb_model {
  char name[32];
  long hidden, layers, heads, seq, batch;
  int dtype;
  /* The parallel layouts' fields (tuner/layout.h): pipeline microbatches
   * per step, experts of a mixture-of-experts layer and the experts each
   * token goes to, and Megatron's sequence parallelism (0 or 1) */
  long microbatches, experts, topk, sequence_parallel;
};

/* Fills m from a preset name; CB_USAGE naming the bad name otherwise. */
int cb_model_preset(const char *name, struct cb_model *m, struct cb_error *err);
/* Space-separated preset names, for help and messages. */
const char *cb_model_preset_names(void);
/* "hidden=768,layers=12,heads=12,seq=1024,batch=1,dtype=float": each key
 * given overrides m (start from a preset); checks the shape is coherent. */
int cb_model_config_parse(const char *text, struct cb_model *m, struct cb_error *err);
int cb_model_check(const struct cb_model *m, struct cb_error *err);

/* The per-layer parameter tensors, in the order backward makes their
 * gradients ready within a layer (the last layer comes first). */
enum cb_tensor_kind {
  CB_T_MLP_DOWN_W,
  CB_T_MLP_DOWN_B,
  CB_T_MLP_UP_W,
  CB_T_MLP_UP_B,
  CB_T_LN2_G,
  CB_T_LN2_B,
  CB_T_ATTN_OUT_W,
  CB_T_ATTN_OUT_B,
  CB_T_QKV_W,
  CB_T_QKV_B,
  CB_T_LN1_G,
  CB_T_LN1_B,
  CB_T_PER_LAYER
};
extern const char *const cb_tensor_names[CB_T_PER_LAYER];

/* Elements of one tensor of a layer. */
size_t cb_model_tensor_elems(const struct cb_model *m, int kind);
/* Elements of one layer's parameters, and of all layers. */
size_t cb_model_layer_params(const struct cb_model *m);
size_t cb_model_params(const struct cb_model *m);
/* Bytes of one element of a dtype (enum cb_model_dtype). */
size_t cb_model_dtype_bytes(int dtype);
/* Bytes of one element of gradient as communicated (the model's dtype). */
size_t cb_model_dtype_size(const struct cb_model *m);
/* Gradient bytes of one step (what the all-reduces carry). */
uint64_t cb_model_grad_bytes(const struct cb_model *m);
/* Host memory one rank needs for weights, gradients, activations and
 * scratch of the float host kernel. */
uint64_t cb_model_host_bytes(const struct cb_model *m);

/* Floating-point operations of one reference step, forward and backward,
 * counting the GEMMs only (2*m*n*k each), as both step kernels issue them:
 * per layer 72*t*h^2 for the projections and MLP, 12*batch*seq^2*h for the
 * attention products (t = seq*batch tokens; the causal mask saves none). */
double cb_model_step_flops(const struct cb_model *m);

/* Device memory of the GPU step: one arena carved into buffers, each
 * aligned for cuBLAS. Per layer, what backward reads (in the model's
 * dtype; the norms' row statistics in float): */
enum cb_gpu_layer_buf {
  CB_GL_X,
  CB_GL_XN1,
  CB_GL_MU1,
  CB_GL_RS1,
  CB_GL_QKV,
  CB_GL_PROBS,
  CB_GL_ATT,
  CB_GL_XM,
  CB_GL_XN2,
  CB_GL_MU2,
  CB_GL_RS2,
  CB_GL_UP,
  CB_GL_GE,
  CB_GL_N
};
/* and once: weights and gradients (ready order, like the host's), the
 * last output, backward's scratch, cuBLAS's workspace, then the layers. */
enum cb_gpu_buf {
  CB_GB_WEIGHTS,
  CB_GB_GRADS,
  CB_GB_OUT,
  CB_GB_DY,
  CB_GB_DXM,
  CB_GB_DBIG,
  CB_GB_DSMALL,
  CB_GB_DQKV,
  CB_GB_DPROBS,
  CB_GB_WORKSPACE,
  CB_GB_LAYERS,
  CB_GB_N
};
#define CB_GPU_ALIGN 256
#define CB_GPU_WORKSPACE_BYTES ((uint64_t)32 << 20) /* cuBLAS's advice for Hopper */

struct cb_gpu_layout {
  uint64_t layer_at[CB_GL_N]; /* within one layer's block */
  uint64_t layer_bytes;       /* one layer's block, a multiple of CB_GPU_ALIGN */
  uint64_t at[CB_GB_N];       /* within the arena; CB_GB_LAYERS: layer 0's block */
  uint64_t size[CB_GB_N];     /* bytes of each (CB_GB_LAYERS: all layers) */
  uint64_t total;             /* the arena: what init checks against free memory */
};
/* Pure: the GPU step allocates exactly this, so tests can check it here. */
void cb_model_gpu_layout(const struct cb_model *m, struct cb_gpu_layout *l);

#endif
