/* Transformer shapes for the reference training step (transformer.h says more). */
#include "transformer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"

const char *const cb_model_dtype_names[CB_MODEL_NDTYPES] = {"float", "bf16", "fp16"};

const char *const cb_tensor_names[CB_T_PER_LAYER] = {
    "mlp_down.weight", "mlp_down.bias", "mlp_up.weight", "mlp_up.bias", "ln2.weight", "ln2.bias",
    "attn_out.weight", "attn_out.bias", "qkv.weight",    "qkv.bias",    "ln1.weight", "ln1.bias",
};

/* The published shapes (embeddings and the LM head are not part of the
 * step: only the transformer layers run, see tuner/TUNING.md). `tiny`
 * keeps a host step at tens of milliseconds on one core, for tests. */
static const struct cb_model presets[] = {
    {"tiny", 128, 4, 4, 64, 1, CB_MODEL_FLOAT, 4, 4, 2, 0},
    {"gpt2-124m", 768, 12, 12, 1024, 1, CB_MODEL_FLOAT, 4, 8, 2, 0},
    {"gpt-1.3b", 2048, 24, 16, 2048, 1, CB_MODEL_BF16, 8, 8, 2, 0},
    {"llama-7b", 4096, 32, 32, 4096, 1, CB_MODEL_BF16, 8, 8, 2, 0},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

const char *cb_model_preset_names(void) {
  return "tiny gpt2-124m gpt-1.3b llama-7b";
}

int cb_model_preset(const char *name, struct cb_model *m, struct cb_error *err) {
  for (size_t i = 0; i < NPRESETS; i++)
    if (strcmp(presets[i].name, name) == 0) {
      *m = presets[i];
      return CB_OK;
    }
  return cb_fail(err, CB_USAGE, "--workload: unknown workload '%s' (%s)", name,
                 cb_model_preset_names());
}

int cb_model_check(const struct cb_model *m, struct cb_error *err) {
  if (m->hidden % m->heads != 0)
    return cb_fail(err, CB_USAGE, "--workload-config: hidden=%ld is not a multiple of heads=%ld",
                   m->hidden, m->heads);
  if (m->topk > m->experts)
    return cb_fail(err, CB_USAGE,
                   "--workload-config: topk=%ld is more than experts=%ld (each token goes to "
                   "topk of the experts)",
                   m->topk, m->experts);
  return CB_OK;
}

/* A table of keys instead of a chain of branches. */
static const struct {
  const char *key;
  size_t offset;
  long min, max;
} keys[] = {
    {"hidden", offsetof(struct cb_model, hidden), 1, 65536},
    {"layers", offsetof(struct cb_model, layers), 1, 1024},
    {"heads", offsetof(struct cb_model, heads), 1, 1024},
    {"seq", offsetof(struct cb_model, seq), 1, 1 << 20},
    {"batch", offsetof(struct cb_model, batch), 1, 4096},
    {"microbatches", offsetof(struct cb_model, microbatches), 1, 1024},
    {"experts", offsetof(struct cb_model, experts), 1, 1024},
    {"topk", offsetof(struct cb_model, topk), 1, 64},
    {"sequence_parallel", offsetof(struct cb_model, sequence_parallel), 0, 1},
};

int cb_model_config_parse(const char *text, struct cb_model *m, struct cb_error *err) {
  char copy[512];
  if (snprintf(copy, sizeof copy, "%s", text) >= (int)sizeof copy)
    return cb_fail(err, CB_USAGE, "--workload-config: '%s' is too long", text);
  char *save = NULL;
  int n = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save), n++) {
    char *eq = strchr(tok, '=');
    if (!eq)
      return cb_fail(err, CB_USAGE, "--workload-config: '%s' is not KEY=VALUE", tok);
    *eq = '\0';
    const char *value = eq + 1;
    if (strcmp(tok, "dtype") == 0) {
      int d = -1;
      for (int i = 0; i < CB_MODEL_NDTYPES; i++)
        if (strcmp(value, cb_model_dtype_names[i]) == 0)
          d = i;
      if (d < 0)
        return cb_fail(err, CB_USAGE, "--workload-config: unknown dtype '%s' (float bf16 fp16)",
                       value);
      m->dtype = d;
      continue;
    }
    size_t k = 0;
    while (k < sizeof keys / sizeof keys[0] && strcmp(keys[k].key, tok) != 0)
      k++;
    if (k == sizeof keys / sizeof keys[0])
      return cb_fail(err, CB_USAGE,
                     "--workload-config: unknown key '%s' (hidden layers heads seq batch dtype "
                     "microbatches experts topk sequence_parallel)",
                     tok);
    char what[64];
    snprintf(what, sizeof what, "--workload-config %s", tok);
    if (cb_parse_long(value, what, keys[k].min, keys[k].max, (long *)((char *)m + keys[k].offset),
                      err))
      return err->status;
  }
  if (n == 0)
    return cb_fail(err, CB_USAGE, "--workload-config: empty '%s'", text);
  if (!strstr(m->name, "(custom)")) { /* the preset it started from, marked */
    char base[sizeof m->name];
    snprintf(base, sizeof base, "%s", m->name);
    snprintf(m->name, sizeof m->name, "%.20s (custom)", base);
  }
  return cb_model_check(m, err);
}

size_t cb_model_tensor_elems(const struct cb_model *m, int kind) {
  size_t h = (size_t)m->hidden;
  switch (kind) {
  case CB_T_MLP_DOWN_W: return 4 * h * h;
  case CB_T_MLP_UP_W: return h * 4 * h;
  case CB_T_MLP_UP_B: return 4 * h;
  case CB_T_ATTN_OUT_W: return h * h;
  case CB_T_QKV_W: return h * 3 * h;
  case CB_T_QKV_B: return 3 * h;
  default: return h; /* biases of width h and the norms' scale and shift */
  }
}

size_t cb_model_layer_params(const struct cb_model *m) {
  size_t n = 0;
  for (int k = 0; k < CB_T_PER_LAYER; k++)
    n += cb_model_tensor_elems(m, k);
  return n;
}

size_t cb_model_params(const struct cb_model *m) {
  return cb_model_layer_params(m) * (size_t)m->layers;
}

size_t cb_model_dtype_bytes(int dtype) {
  return dtype == CB_MODEL_FLOAT ? 4 : 2;
}

size_t cb_model_dtype_size(const struct cb_model *m) {
  return cb_model_dtype_bytes(m->dtype);
}

uint64_t cb_model_grad_bytes(const struct cb_model *m) {
  return (uint64_t)cb_model_params(m) * cb_model_dtype_size(m);
}

uint64_t cb_model_host_bytes(const struct cb_model *m) {
  uint64_t t = (uint64_t)(m->seq * m->batch), h = (uint64_t)m->hidden;
  /* per layer kept for backward: x, two norms, qkv, attention output,
   * residual, MLP up and its activation (16 t*h) plus the probabilities */
  uint64_t act = 16 * t * h + 2 * t + (uint64_t)(m->batch * m->heads) * (uint64_t)(m->seq * m->seq);
  uint64_t scratch = 12 * t * h + 2 * (uint64_t)(m->seq * m->seq);
  return 4 * (2 * (uint64_t)cb_model_params(m) + act * (uint64_t)m->layers + scratch);
}

double cb_model_step_flops(const struct cb_model *m) {
  double t = (double)(m->seq * m->batch), h = (double)m->hidden, s = (double)m->seq;
  /* GEMM shapes as (m, n, k): forward qkv (t,3h,h), out (t,h,h), up
   * (t,4h,h), down (t,h,4h) = 24 t h^2; backward two GEMMs of the same size
   * per projection (weights and input) = 48 t h^2. Attention per sequence
   * and head (hd = h/heads): forward Q K^T (s,s,hd) and P V (s,hd,s),
   * backward four of those; summed over heads 4 s^2 h and 8 s^2 h. */
  double dense = 2 * t * h * h * (3 + 1 + 4 + 4), attention = 2 * 2 * s * s * h * (double)m->batch;
  return (double)m->layers * 3 * (dense + attention);
}

static uint64_t align_up(uint64_t n) {
  return (n + CB_GPU_ALIGN - 1) / CB_GPU_ALIGN * CB_GPU_ALIGN;
}

/* Elements of a per-layer buffer, in units of t*h unless said otherwise;
 * `stat` marks the float row statistics. */
static const struct {
  int th, per_row, probs, stat;
} layer_bufs[CB_GL_N] = {
    [CB_GL_X] = {1, 0, 0, 0},   [CB_GL_XN1] = {1, 0, 0, 0}, [CB_GL_MU1] = {0, 1, 0, 1},
    [CB_GL_RS1] = {0, 1, 0, 1}, [CB_GL_QKV] = {3, 0, 0, 0}, [CB_GL_PROBS] = {0, 0, 1, 0},
    [CB_GL_ATT] = {1, 0, 0, 0}, [CB_GL_XM] = {1, 0, 0, 0},  [CB_GL_XN2] = {1, 0, 0, 0},
    [CB_GL_MU2] = {0, 1, 0, 1}, [CB_GL_RS2] = {0, 1, 0, 1}, [CB_GL_UP] = {4, 0, 0, 0},
    [CB_GL_GE] = {4, 0, 0, 0},
};

void cb_model_gpu_layout(const struct cb_model *m, struct cb_gpu_layout *l) {
  uint64_t t = (uint64_t)(m->seq * m->batch), h = (uint64_t)m->hidden, e = cb_model_dtype_size(m);
  uint64_t s2 = (uint64_t)m->seq * (uint64_t)m->seq, heads = (uint64_t)m->heads;
  memset(l, 0, sizeof *l);
  for (int i = 0; i < CB_GL_N; i++) {
    uint64_t elems = layer_bufs[i].th * t * h + layer_bufs[i].per_row * t +
                     layer_bufs[i].probs * (uint64_t)m->batch * heads * s2;
    l->layer_at[i] = l->layer_bytes;
    l->layer_bytes += align_up(elems * (layer_bufs[i].stat ? 4 : e));
  }
  uint64_t params = (uint64_t)cb_model_params(m);
  l->size[CB_GB_WEIGHTS] = l->size[CB_GB_GRADS] = params * e;
  l->size[CB_GB_OUT] = l->size[CB_GB_DY] = l->size[CB_GB_DXM] = l->size[CB_GB_DSMALL] = t * h * e;
  l->size[CB_GB_DBIG] = 4 * t * h * e;
  l->size[CB_GB_DQKV] = 3 * t * h * e;
  l->size[CB_GB_DPROBS] = heads * s2 * e; /* one sequence, all heads batched */
  l->size[CB_GB_WORKSPACE] = CB_GPU_WORKSPACE_BYTES;
  l->size[CB_GB_LAYERS] = l->layer_bytes * (uint64_t)m->layers;
  for (int i = 0; i < CB_GB_N; i++) {
    l->at[i] = l->total;
    l->total += align_up(l->size[i]);
  }
}
