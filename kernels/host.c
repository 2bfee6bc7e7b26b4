/* The host compute backend: a GPT-style transformer layer stack in float,
 * forward and backward as real GEMMs through OpenBLAS (cblas_sgemm, row
 * major), plus layer norm, causal softmax and GELU. No embeddings, LM head
 * or optimizer: the step is what produces the gradients to all-reduce.
 * OpenBLAS is loaded here, on first use, not linked: linked, its constructor
 * starts worker threads in every process before main, and under a memory
 * limit (ulimit -v, a batch system's h_vmem) one loops on a failing mmap
 * and every command hangs at exit (issue 56). */
#include <cblas.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "compute.h"

struct layer_acts {
  float *x, *xn1, *mu1, *rs1, *qkv, *probs, *att, *xm, *xn2, *mu2, *rs2, *up, *ge;
};

struct host {
  struct cb_model m;
  size_t t, h, hd, layer_params;
  size_t koff[CB_T_PER_LAYER]; /* a tensor's offset within its layer */
  float *weights, *grads;      /* same layout: ready order */
  struct layer_acts *acts;     /* [layers] */
  float *out;                  /* last layer's output */
  float *dy, *dxm, *dbig, *dsmall, *dqkv, *dprobs;
  double flops, loss;
  const struct cb_step_hooks *hooks;
};

static __typeof__(cblas_sgemm) *sgemm;
static __typeof__(openblas_set_num_threads) *set_threads;

/* OpenBLAS, once, with `threads` workers from its start. */
static int load_blas(int threads, struct cb_error *err) {
  if (sgemm)
    return CB_OK;
  char n[16];
  snprintf(n, sizeof n, "%d", threads > 0 ? threads : 1);
  setenv("OPENBLAS_NUM_THREADS", n, 1); /* read by its constructor */
  const char *names[] = {"libopenblas.so.0", "libopenblas.so"};
  void *h = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++)
    h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return cb_fail(err, CB_RUNTIME, "host kernel: cannot load OpenBLAS (libopenblas.so.0): %s",
                   dlerror());
  *(void **)&set_threads = dlsym(h, "openblas_set_num_threads");
  *(void **)&sgemm = dlsym(h, "cblas_sgemm");
  if (!sgemm || !set_threads)
    return cb_fail(err, CB_RUNTIME,
                   "host kernel: %s has no cblas_sgemm or openblas_set_num_threads", names[0]);
  return CB_OK;
}

int cb_blas_load(int threads, struct cb_error *err) {
  return load_blas(threads, err);
}

void cb_blas_sgemm(size_t m, size_t n, size_t k, const float *a, const float *b, float *c) {
  sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a, (int)k, b,
        (int)n, 0.0f, c, (int)n);
}

static float *alloc_floats(size_t n) {
  return calloc(n ? n : 1, sizeof(float));
}

/* Tensor `kind` of layer l, in weights or grads (last layer first). */
static float *tensor(const struct host *c, float *base, size_t l, int kind) {
  return base + ((size_t)c->m.layers - 1 - l) * c->layer_params + c->koff[kind];
}

static void gemm(struct host *c, int ta, int tb, size_t m, size_t n, size_t k, const float *a,
                 size_t lda, const float *b, size_t ldb, float beta, float *out, size_t ldc) {
  sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m,
        (int)n, (int)k, 1.0f, a, (int)lda, b, (int)ldb, beta, out, (int)ldc);
  c->flops += 2.0 * (double)m * (double)n * (double)k;
}

static void poll(const struct host *c) {
  if (c->hooks && c->hooks->poll)
    c->hooks->poll(c->hooks->user);
}

static int ready(const struct host *c, size_t l, int kind, struct cb_error *err) {
  if (!c->hooks || !c->hooks->ready)
    return CB_OK;
  int index = (int)(((size_t)c->m.layers - 1 - l) * CB_T_PER_LAYER) + kind;
  return c->hooks->ready(c->hooks->user, index, err);
}

static void add_bias(float *y, const float *b, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; r++)
    for (size_t j = 0; j < cols; j++)
      y[r * cols + j] += b[j];
}

static void col_sum(const float *dy, size_t rows, size_t cols, float *db) {
  memset(db, 0, cols * sizeof *db);
  for (size_t r = 0; r < rows; r++)
    for (size_t j = 0; j < cols; j++)
      db[j] += dy[r * cols + j];
}

static void ln_forward(const float *x, const float *g, const float *b, float *y, float *mu,
                       float *rs, size_t rows, size_t h) {
  for (size_t r = 0; r < rows; r++) {
    const float *xr = x + r * h;
    double s = 0, s2 = 0;
    for (size_t j = 0; j < h; j++)
      s += xr[j];
    double mean = s / (double)h;
    for (size_t j = 0; j < h; j++)
      s2 += (xr[j] - mean) * (xr[j] - mean);
    mu[r] = (float)mean;
    rs[r] = (float)(1.0 / sqrt(s2 / (double)h + 1e-5));
    for (size_t j = 0; j < h; j++)
      y[r * h + j] = (xr[j] - mu[r]) * rs[r] * g[j] + b[j];
  }
}

/* dx = layer-norm backward of dy; dx is added to (residual path). */
static void ln_backward(const float *dy, const float *x, const float *mu, const float *rs,
                        const float *g, float *dg, float *db, float *dx, size_t rows, size_t h) {
  memset(dg, 0, h * sizeof *dg);
  memset(db, 0, h * sizeof *db);
  for (size_t r = 0; r < rows; r++) {
    const float *dyr = dy + r * h, *xr = x + r * h;
    double m1 = 0, m2 = 0;
    for (size_t j = 0; j < h; j++) {
      float xhat = (xr[j] - mu[r]) * rs[r];
      dg[j] += dyr[j] * xhat;
      db[j] += dyr[j];
      m1 += dyr[j] * g[j];
      m2 += dyr[j] * g[j] * xhat;
    }
    m1 /= (double)h;
    m2 /= (double)h;
    for (size_t j = 0; j < h; j++) {
      float xhat = (xr[j] - mu[r]) * rs[r];
      dx[r * h + j] += rs[r] * (float)(dyr[j] * g[j] - m1 - xhat * m2);
    }
  }
}

#define GELU_C 0.7978845608f /* sqrt(2/pi) */

static void gelu_forward(const float *x, float *y, size_t n) {
  for (size_t i = 0; i < n; i++) {
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(GELU_C * (v + 0.044715f * v * v * v)));
  }
}

static void gelu_backward(const float *x, float *d, size_t n) {
  for (size_t i = 0; i < n; i++) {
    float v = x[i], u = GELU_C * (v + 0.044715f * v * v * v), th = tanhf(u);
    float du = GELU_C * (1.0f + 3.0f * 0.044715f * v * v);
    d[i] *= 0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * du;
  }
}

/* Causal softmax of each row of an s x s score block, in place. */
static void softmax_causal(float *p, size_t s) {
  for (size_t i = 0; i < s; i++) {
    float *row = p + i * s, mx = row[0];
    for (size_t j = 1; j <= i; j++)
      mx = row[j] > mx ? row[j] : mx;
    double sum = 0;
    for (size_t j = 0; j <= i; j++)
      sum += row[j] = expf(row[j] - mx);
    for (size_t j = 0; j <= i; j++)
      row[j] = (float)(row[j] / sum);
    memset(row + i + 1, 0, (s - i - 1) * sizeof *row);
  }
}

static void attention_forward(struct host *c, struct layer_acts *a) {
  size_t s = (size_t)c->m.seq, h = c->h, hd = c->hd, nh = (size_t)c->m.heads;
  float scale = 1.0f / sqrtf((float)hd);
  for (size_t b = 0; b < (size_t)c->m.batch; b++) {
    for (size_t head = 0; head < nh; head++) {
      const float *q = a->qkv + b * s * 3 * h + head * hd, *k = q + h, *v = q + 2 * h;
      float *p = a->probs + (b * nh + head) * s * s;
      gemm(c, 0, 1, s, s, hd, q, 3 * h, k, 3 * h, 0.0f, p, s);
      for (size_t i = 0; i < s * s; i++)
        p[i] *= scale;
      softmax_causal(p, s);
      gemm(c, 0, 0, s, hd, s, p, s, v, 3 * h, 0.0f, a->att + b * s * h + head * hd, h);
    }
    poll(c);
  }
}

static void attention_backward(struct host *c, const struct layer_acts *a, const float *datt) {
  size_t s = (size_t)c->m.seq, h = c->h, hd = c->hd, nh = (size_t)c->m.heads;
  float scale = 1.0f / sqrtf((float)hd);
  for (size_t b = 0; b < (size_t)c->m.batch; b++) {
    for (size_t head = 0; head < nh; head++) {
      size_t off = b * s * 3 * h + head * hd;
      const float *q = a->qkv + off, *k = q + h, *v = q + 2 * h;
      float *dq = c->dqkv + off, *dk = dq + h, *dv = dq + 2 * h;
      const float *p = a->probs + (b * nh + head) * s * s, *dout = datt + b * s * h + head * hd;
      float *dp = c->dprobs;
      gemm(c, 0, 1, s, s, hd, dout, h, v, 3 * h, 0.0f, dp, s); /* dP = dO V^T */
      gemm(c, 1, 0, s, hd, s, p, s, dout, h, 0.0f, dv, 3 * h); /* dV = P^T dO */
      for (size_t i = 0; i < s; i++) {                         /* softmax backward */
        double dot = 0;
        for (size_t j = 0; j <= i; j++)
          dot += p[i * s + j] * dp[i * s + j];
        for (size_t j = 0; j < s; j++)
          dp[i * s + j] = j <= i ? p[i * s + j] * (dp[i * s + j] - (float)dot) * scale : 0.0f;
      }
      gemm(c, 0, 0, s, hd, s, dp, s, k, 3 * h, 0.0f, dq, 3 * h); /* dQ = dS K */
      gemm(c, 1, 0, s, hd, s, dp, s, q, 3 * h, 0.0f, dk, 3 * h); /* dK = dS^T Q */
    }
    poll(c);
  }
}

static void forward(struct host *c) {
  size_t t = c->t, h = c->h;
  float *W = c->weights;
  for (size_t l = 0; l < (size_t)c->m.layers; l++) {
    struct layer_acts *a = &c->acts[l];
    float *next = l + 1 < (size_t)c->m.layers ? c->acts[l + 1].x : c->out;
    ln_forward(a->x, tensor(c, W, l, CB_T_LN1_G), tensor(c, W, l, CB_T_LN1_B), a->xn1, a->mu1,
               a->rs1, t, h);
    gemm(c, 0, 0, t, 3 * h, h, a->xn1, h, tensor(c, W, l, CB_T_QKV_W), 3 * h, 0.0f, a->qkv, 3 * h);
    add_bias(a->qkv, tensor(c, W, l, CB_T_QKV_B), t, 3 * h);
    poll(c);
    attention_forward(c, a);
    memcpy(a->xm, a->x, t * h * sizeof(float));
    gemm(c, 0, 0, t, h, h, a->att, h, tensor(c, W, l, CB_T_ATTN_OUT_W), h, 1.0f, a->xm, h);
    add_bias(a->xm, tensor(c, W, l, CB_T_ATTN_OUT_B), t, h);
    poll(c);
    ln_forward(a->xm, tensor(c, W, l, CB_T_LN2_G), tensor(c, W, l, CB_T_LN2_B), a->xn2, a->mu2,
               a->rs2, t, h);
    gemm(c, 0, 0, t, 4 * h, h, a->xn2, h, tensor(c, W, l, CB_T_MLP_UP_W), 4 * h, 0.0f, a->up,
         4 * h);
    add_bias(a->up, tensor(c, W, l, CB_T_MLP_UP_B), t, 4 * h);
    gelu_forward(a->up, a->ge, t * 4 * h);
    poll(c);
    memcpy(next, a->xm, t * h * sizeof(float));
    gemm(c, 0, 0, t, h, 4 * h, a->ge, 4 * h, tensor(c, W, l, CB_T_MLP_DOWN_W), h, 1.0f, next, h);
    add_bias(next, tensor(c, W, l, CB_T_MLP_DOWN_B), t, h);
    poll(c);
  }
}

/* Backward of one layer: c->dy holds d(output) and becomes d(input). */
static int backward_layer(struct host *c, size_t l, struct cb_error *err) {
  size_t t = c->t, h = c->h;
  float *W = c->weights, *G = c->grads;
  struct layer_acts *a = &c->acts[l];
  gemm(c, 1, 0, 4 * h, h, t, a->ge, 4 * h, c->dy, h, 0.0f, tensor(c, G, l, CB_T_MLP_DOWN_W), h);
  col_sum(c->dy, t, h, tensor(c, G, l, CB_T_MLP_DOWN_B));
  if (ready(c, l, CB_T_MLP_DOWN_W, err) || ready(c, l, CB_T_MLP_DOWN_B, err))
    return err->status;
  gemm(c, 0, 1, t, 4 * h, h, c->dy, h, tensor(c, W, l, CB_T_MLP_DOWN_W), h, 0.0f, c->dbig, 4 * h);
  gelu_backward(a->up, c->dbig, t * 4 * h);
  poll(c);
  gemm(c, 1, 0, h, 4 * h, t, a->xn2, h, c->dbig, 4 * h, 0.0f, tensor(c, G, l, CB_T_MLP_UP_W),
       4 * h);
  col_sum(c->dbig, t, 4 * h, tensor(c, G, l, CB_T_MLP_UP_B));
  if (ready(c, l, CB_T_MLP_UP_W, err) || ready(c, l, CB_T_MLP_UP_B, err))
    return err->status;
  gemm(c, 0, 1, t, h, 4 * h, c->dbig, 4 * h, tensor(c, W, l, CB_T_MLP_UP_W), 4 * h, 0.0f, c->dsmall,
       h);
  memcpy(c->dxm, c->dy, t * h * sizeof(float)); /* residual */
  ln_backward(c->dsmall, a->xm, a->mu2, a->rs2, tensor(c, W, l, CB_T_LN2_G),
              tensor(c, G, l, CB_T_LN2_G), tensor(c, G, l, CB_T_LN2_B), c->dxm, t, h);
  if (ready(c, l, CB_T_LN2_G, err) || ready(c, l, CB_T_LN2_B, err))
    return err->status;
  gemm(c, 1, 0, h, h, t, a->att, h, c->dxm, h, 0.0f, tensor(c, G, l, CB_T_ATTN_OUT_W), h);
  col_sum(c->dxm, t, h, tensor(c, G, l, CB_T_ATTN_OUT_B));
  if (ready(c, l, CB_T_ATTN_OUT_W, err) || ready(c, l, CB_T_ATTN_OUT_B, err))
    return err->status;
  gemm(c, 0, 1, t, h, h, c->dxm, h, tensor(c, W, l, CB_T_ATTN_OUT_W), h, 0.0f, c->dsmall, h);
  poll(c);
  attention_backward(c, a, c->dsmall);
  gemm(c, 1, 0, h, 3 * h, t, a->xn1, h, c->dqkv, 3 * h, 0.0f, tensor(c, G, l, CB_T_QKV_W), 3 * h);
  col_sum(c->dqkv, t, 3 * h, tensor(c, G, l, CB_T_QKV_B));
  if (ready(c, l, CB_T_QKV_W, err) || ready(c, l, CB_T_QKV_B, err))
    return err->status;
  gemm(c, 0, 1, t, h, 3 * h, c->dqkv, 3 * h, tensor(c, W, l, CB_T_QKV_W), 3 * h, 0.0f, c->dsmall,
       h);
  memcpy(c->dy, c->dxm, t * h * sizeof(float)); /* residual */
  ln_backward(c->dsmall, a->x, a->mu1, a->rs1, tensor(c, W, l, CB_T_LN1_G),
              tensor(c, G, l, CB_T_LN1_G), tensor(c, G, l, CB_T_LN1_B), c->dy, t, h);
  if (ready(c, l, CB_T_LN1_G, err) || ready(c, l, CB_T_LN1_B, err))
    return err->status;
  poll(c);
  return CB_OK;
}

static int host_step(void *ctx, const struct cb_step_hooks *hooks, struct cb_error *err) {
  struct host *c = ctx;
  c->hooks = hooks;
  c->flops = 0;
  forward(c);
  /* The loss gradient, of the mean of the squared outputs over two */
  double n = (double)(c->t * c->h), loss = 0;
  for (size_t i = 0; i < c->t * c->h; i++) {
    loss += (double)c->out[i] * c->out[i];
    c->dy[i] = (float)(c->out[i] / n);
  }
  c->loss = loss / (2 * n);
  for (size_t l = (size_t)c->m.layers; l-- > 0;)
    if (backward_layer(c, l, err))
      return err->status;
  return CB_OK;
}

static void host_finalize(void *ctx) {
  struct host *c = ctx;
  if (!c)
    return;
  for (size_t l = 0; c->acts && l < (size_t)c->m.layers; l++) {
    struct layer_acts *a = &c->acts[l];
    float *bufs[] = {a->x,  a->xn1, a->mu1, a->rs1, a->qkv, a->probs, a->att,
                     a->xm, a->xn2, a->mu2, a->rs2, a->up,  a->ge};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
      free(bufs[i]);
  }
  float *bufs[] = {c->weights, c->grads,  c->out,  c->dy,    c->dxm,
                   c->dbig,    c->dsmall, c->dqkv, c->dprobs};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    free(bufs[i]);
  free(c->acts);
  free(c);
}

static int host_init(const struct cb_model *m, int threads, void **ctx, struct cb_error *err) {
  if (load_blas(threads, err))
    return err->status;
  struct host *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "host kernel: out of memory");
  set_threads(threads);
  c->m = *m;
  c->t = (size_t)(m->seq * m->batch);
  c->h = (size_t)m->hidden;
  c->hd = c->h / (size_t)m->heads;
  for (int k = 0; k < CB_T_PER_LAYER; k++) {
    c->koff[k] = c->layer_params;
    c->layer_params += cb_model_tensor_elems(m, k);
  }
  size_t t = c->t, h = c->h, s = (size_t)m->seq, np = cb_model_params(m);
  c->weights = alloc_floats(np);
  c->grads = alloc_floats(np);
  c->acts = calloc((size_t)m->layers, sizeof *c->acts);
  int ok = c->weights && c->grads && c->acts;
  for (size_t l = 0; ok && l < (size_t)m->layers; l++) {
    struct layer_acts *a = &c->acts[l];
    a->x = alloc_floats(t * h), a->xn1 = alloc_floats(t * h), a->mu1 = alloc_floats(t);
    a->rs1 = alloc_floats(t), a->qkv = alloc_floats(3 * t * h);
    a->probs = alloc_floats((size_t)(m->batch * m->heads) * s * s), a->att = alloc_floats(t * h);
    a->xm = alloc_floats(t * h), a->xn2 = alloc_floats(t * h), a->mu2 = alloc_floats(t);
    a->rs2 = alloc_floats(t), a->up = alloc_floats(4 * t * h), a->ge = alloc_floats(4 * t * h);
    ok = a->x && a->xn1 && a->mu1 && a->rs1 && a->qkv && a->probs && a->att && a->xm && a->xn2 &&
         a->mu2 && a->rs2 && a->up && a->ge;
  }
  c->out = alloc_floats(t * h), c->dy = alloc_floats(t * h), c->dxm = alloc_floats(t * h);
  c->dbig = alloc_floats(4 * t * h), c->dsmall = alloc_floats(t * h);
  c->dqkv = alloc_floats(3 * t * h), c->dprobs = alloc_floats(s * s);
  if (!ok || !c->out || !c->dy || !c->dxm || !c->dbig || !c->dsmall || !c->dqkv || !c->dprobs) {
    host_finalize(c);
    return cb_fail(err, CB_RUNTIME, "host kernel: out of memory for model %s", m->name);
  }
  /* Small deterministic weights (a 32-bit LCG), unit norm scales, and an
   * input that is not all zeros, so every value is an ordinary float. */
  uint32_t r = 12345;
  for (size_t i = 0; i < np; i++) {
    r = r * 1664525u + 1013904223u;
    c->weights[i] = ((float)(r >> 8) / 16777216.0f - 0.5f) * 0.04f;
  }
  for (size_t l = 0; l < (size_t)m->layers; l++)
    for (size_t j = 0; j < h; j++)
      tensor(c, c->weights, l, CB_T_LN1_G)[j] = tensor(c, c->weights, l, CB_T_LN2_G)[j] = 1.0f;
  for (size_t i = 0; i < t * h; i++)
    c->acts[0].x[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
  *ctx = c;
  return CB_OK;
}

static void *host_grads(void *ctx) {
  return ((struct host *)ctx)->grads;
}

static int host_grad_dtype(void *ctx) {
  (void)ctx;
  return CB_MODEL_FLOAT;
}

static float *host_params(void *ctx) {
  return ((struct host *)ctx)->weights;
}

static double host_loss(void *ctx) {
  return ((struct host *)ctx)->loss;
}

static double host_flops(void *ctx) {
  return ((struct host *)ctx)->flops;
}

const struct cb_compute cb_compute_openblas = {
    .name = "openblas",
    .init = host_init,
    .grads = host_grads,
    .grad_dtype = host_grad_dtype,
    .stream = NULL,
    .step = host_step,
    .params = host_params,
    .loss = host_loss,
    .flops = host_flops,
    .finalize = host_finalize,
};
