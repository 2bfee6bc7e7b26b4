/* Transformer shapes for the reference training step: presets, the
 * --model-config form, and what follows from a shape (parameter tensors in
 * gradient-ready order, FLOPs, memory). Pure: unit-tested without MPI. */
#ifndef CB_KERNELS_MODEL_H
#define CB_KERNELS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

enum cb_model_dtype { CB_MODEL_FLOAT, CB_MODEL_BF16, CB_MODEL_FP16, CB_MODEL_NDTYPES };
extern const char *const cb_model_dtype_names[CB_MODEL_NDTYPES];

struct cb_model {
  char name[32];
  long hidden, layers, heads, seq, batch;
  int dtype;
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

#endif
