/* The GPU compute backend: the host kernel's transformer layer stack
 * (kernels/host.c), forward and backward, with cuBLAS GEMMs in the model's
 * dtype (float accumulation) and the row/elementwise work in
 * gpu_step_ops.cu, all on one non-blocking stream of its own. Weights,
 * activations and gradients live in one device arena laid out by
 * cb_model_gpu_layout. The caller has selected the GPU. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "compute.h"
#include "config.h"
#include "gpu_blas.h"
#include "gpu_step_ops.h"

struct gpu {
  struct cb_model m;
  size_t t, h, hd, layer_params, esize;
  size_t koff[CB_T_PER_LAYER]; /* a tensor's offset within its layer */
  struct cb_gpu_layout lay;
  char *arena;
  cudaStream_t stream;
  cublasHandle_t blas;
  cudaDataType_t type;
  double flops;
  const struct cb_step_hooks *hooks;
  struct cb_error *err;
};

static const cudaDataType_t blas_types[CB_MODEL_NDTYPES] = {CUDA_R_32F, CUDA_R_16BF, CUDA_R_16F};

/* Every failure: CB_RUNTIME naming the call and CUDA's or cuBLAS's code. */
static int cuda_ok(struct gpu *c, cudaError_t rc, const char *call) {
  if (rc == cudaSuccess)
    return 1;
  cb_fail(c->err, CB_RUNTIME, "GPU step (%s): %s: %s (%d)", c->m.name, call, cudaGetErrorString(rc),
          (int)rc);
  return 0;
}

static int blas_ok(struct gpu *c, cublasStatus_t st, const char *call) {
  if (st == CUBLAS_STATUS_SUCCESS)
    return 1;
  cb_fail(c->err, CB_RUNTIME, "GPU step (%s): %s: %s (%d)", c->m.name, call,
          cb_cublas.cublasGetStatusString(st), (int)st);
  return 0;
}

#define TRY(cond)                                                                                  \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      return c->err->status;                                                                       \
  } while (0)

/* Tensor `kind` of layer l, in weights or grads (last layer first). */
static void *tensor(const struct gpu *c, int buf, size_t l, int kind) {
  size_t index = ((size_t)c->m.layers - 1 - l) * c->layer_params + c->koff[kind];
  return c->arena + c->lay.at[buf] + index * c->esize;
}

static void *global(const struct gpu *c, int buf) {
  return c->arena + c->lay.at[buf];
}

static void *act(const struct gpu *c, size_t l, int buf) {
  return c->arena + c->lay.at[CB_GB_LAYERS] + l * c->lay.layer_bytes + c->lay.layer_at[buf];
}

/* Element `i` of a dtype tensor: for the attention's per-head views. */
static void *at(const struct gpu *c, void *p, size_t i) {
  return (char *)p + i * c->esize;
}

/* Row-major out[m x n] = op(a) op(b) + beta out, as host.c's gemm: cuBLAS
 * is column-major, so it computes out^T = op(b)^T op(a)^T. `count`
 * matrices `stride_*` elements apart (the attention heads). */
static int gemm(struct gpu *c, int ta, int tb, size_t m, size_t n, size_t k, const void *a,
                size_t lda, size_t stride_a, const void *b, size_t ldb, size_t stride_b, float beta,
                void *out, size_t ldc, size_t stride_c, size_t count) {
  const float one = 1.0f;
  cublasOperation_t opa = tb ? CUBLAS_OP_T : CUBLAS_OP_N, opb = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasStatus_t st;
  if (count == 1)
    st = cb_cublas.cublasGemmEx(c->blas, opa, opb, (int)n, (int)m, (int)k, &one, b, c->type,
                                (int)ldb, a, c->type, (int)lda, &beta, out, c->type, (int)ldc,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  else
    st = cb_cublas.cublasGemmStridedBatchedEx(
        c->blas, opa, opb, (int)n, (int)m, (int)k, &one, b, c->type, (int)ldb, (long long)stride_b,
        a, c->type, (int)lda, (long long)stride_a, &beta, out, c->type, (int)ldc,
        (long long)stride_c, (int)count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  c->flops += 2.0 * (double)m * (double)n * (double)k * (double)count;
  return blas_ok(c, st, count == 1 ? "cublasGemmEx" : "cublasGemmStridedBatchedEx");
}

/* The dense GEMMs of the layers: one matrix. */
static int dense(struct gpu *c, int ta, int tb, size_t m, size_t n, size_t k, const void *a,
                 size_t lda, const void *b, size_t ldb, float beta, void *out, size_t ldc) {
  return gemm(c, ta, tb, m, n, k, a, lda, 0, b, ldb, 0, beta, out, ldc, 0, 1);
}

static int copy(struct gpu *c, void *dst, const void *src, size_t elems) {
  return cuda_ok(c,
                 cudaMemcpyAsync(dst, src, elems * c->esize, cudaMemcpyDeviceToDevice, c->stream),
                 "cudaMemcpyAsync");
}

static void poll(const struct gpu *c) {
  if (c->hooks && c->hooks->poll)
    c->hooks->poll(c->hooks->user);
}

/* The producing kernels are enqueued: hand both tensors of a pair over. */
static int ready(struct gpu *c, size_t l, int weight_kind) {
  if (!c->hooks || !c->hooks->ready)
    return 1;
  int index = (int)(((size_t)c->m.layers - 1 - l) * CB_T_PER_LAYER) + weight_kind;
  return c->hooks->ready(c->hooks->user, index, c->err) == CB_OK &&
         c->hooks->ready(c->hooks->user, index + 1, c->err) == CB_OK;
}

static int attention_forward(struct gpu *c, size_t l) {
  size_t s = (size_t)c->m.seq, h = c->h, hd = c->hd, nh = (size_t)c->m.heads;
  size_t batch = (size_t)c->m.batch;
  void *qkv = act(c, l, CB_GL_QKV), *probs = act(c, l, CB_GL_PROBS), *att = act(c, l, CB_GL_ATT);
  /* per sequence, all heads in one batched GEMM: head i's Q, K, V are the
   * columns i*hd.. of the q, k, v thirds of qkv; its scores block i */
  for (size_t b = 0; b < batch; b++) {
    void *q = at(c, qkv, b * s * 3 * h), *k = at(c, q, h);
    TRY(gemm(c, 0, 1, s, s, hd, q, 3 * h, hd, k, 3 * h, hd, 0.0f, at(c, probs, b * nh * s * s), s,
             s * s, nh));
  }
  TRY(cuda_ok(
      c,
      cb_gs_softmax_forward(c->m.dtype, probs, s, batch * nh, 1.0f / sqrtf((float)hd), c->stream),
      "softmax_forward"));
  for (size_t b = 0; b < batch; b++) {
    void *v = at(c, qkv, b * s * 3 * h + 2 * h);
    TRY(gemm(c, 0, 0, s, hd, s, at(c, probs, b * nh * s * s), s, s * s, v, 3 * h, hd, 0.0f,
             at(c, att, b * s * h), h, hd, nh));
    poll(c);
  }
  return CB_OK;
}

static int attention_backward(struct gpu *c, size_t l, const void *datt) {
  size_t s = (size_t)c->m.seq, h = c->h, hd = c->hd, nh = (size_t)c->m.heads;
  float scale = 1.0f / sqrtf((float)hd);
  void *qkv = act(c, l, CB_GL_QKV), *probs = act(c, l, CB_GL_PROBS), *dp = global(c, CB_GB_DPROBS);
  for (size_t b = 0; b < (size_t)c->m.batch; b++) {
    size_t off = b * s * 3 * h;
    void *q = at(c, qkv, off), *k = at(c, q, h), *v = at(c, q, 2 * h);
    void *dq = at(c, global(c, CB_GB_DQKV), off), *dk = at(c, dq, h), *dv = at(c, dq, 2 * h);
    void *p = at(c, probs, b * nh * s * s);
    const void *dout = at(c, (void *)datt, b * s * h);
    /* dP = dO V^T, dV = P^T dO, softmax backward, dQ = dS K, dK = dS^T Q */
    TRY(gemm(c, 0, 1, s, s, hd, dout, h, hd, v, 3 * h, hd, 0.0f, dp, s, s * s, nh));
    TRY(gemm(c, 1, 0, s, hd, s, p, s, s * s, dout, h, hd, 0.0f, dv, 3 * h, hd, nh));
    TRY(cuda_ok(c, cb_gs_softmax_backward(c->m.dtype, p, dp, s, nh, scale, c->stream),
                "softmax_backward"));
    TRY(gemm(c, 0, 0, s, hd, s, dp, s, s * s, k, 3 * h, hd, 0.0f, dq, 3 * h, hd, nh));
    TRY(gemm(c, 1, 0, s, hd, s, dp, s, s * s, q, 3 * h, hd, 0.0f, dk, 3 * h, hd, nh));
    poll(c);
  }
  return CB_OK;
}

static int forward(struct gpu *c) {
  size_t t = c->t, h = c->h;
  int d = c->m.dtype;
  cudaStream_t st = c->stream;
  for (size_t l = 0; l < (size_t)c->m.layers; l++) {
    void *x = act(c, l, CB_GL_X), *xn1 = act(c, l, CB_GL_XN1), *qkv = act(c, l, CB_GL_QKV);
    void *xm = act(c, l, CB_GL_XM), *xn2 = act(c, l, CB_GL_XN2), *up = act(c, l, CB_GL_UP);
    void *ge = act(c, l, CB_GL_GE);
    void *next = l + 1 < (size_t)c->m.layers ? act(c, l + 1, CB_GL_X) : global(c, CB_GB_OUT);
    TRY(cuda_ok(c,
                cb_gs_ln_forward(d, x, tensor(c, CB_GB_WEIGHTS, l, CB_T_LN1_G),
                                 tensor(c, CB_GB_WEIGHTS, l, CB_T_LN1_B), xn1, act(c, l, CB_GL_MU1),
                                 act(c, l, CB_GL_RS1), t, h, st),
                "ln_forward"));
    TRY(dense(c, 0, 0, t, 3 * h, h, xn1, h, tensor(c, CB_GB_WEIGHTS, l, CB_T_QKV_W), 3 * h, 0.0f,
              qkv, 3 * h));
    TRY(cuda_ok(c, cb_gs_bias_add(d, qkv, tensor(c, CB_GB_WEIGHTS, l, CB_T_QKV_B), t, 3 * h, st),
                "bias_add"));
    poll(c);
    TRY(attention_forward(c, l) == CB_OK);
    TRY(copy(c, xm, x, t * h));
    TRY(dense(c, 0, 0, t, h, h, act(c, l, CB_GL_ATT), h,
              tensor(c, CB_GB_WEIGHTS, l, CB_T_ATTN_OUT_W), h, 1.0f, xm, h));
    TRY(cuda_ok(c, cb_gs_bias_add(d, xm, tensor(c, CB_GB_WEIGHTS, l, CB_T_ATTN_OUT_B), t, h, st),
                "bias_add"));
    poll(c);
    TRY(cuda_ok(c,
                cb_gs_ln_forward(d, xm, tensor(c, CB_GB_WEIGHTS, l, CB_T_LN2_G),
                                 tensor(c, CB_GB_WEIGHTS, l, CB_T_LN2_B), xn2, act(c, l, CB_GL_MU2),
                                 act(c, l, CB_GL_RS2), t, h, st),
                "ln_forward"));
    TRY(dense(c, 0, 0, t, 4 * h, h, xn2, h, tensor(c, CB_GB_WEIGHTS, l, CB_T_MLP_UP_W), 4 * h, 0.0f,
              up, 4 * h));
    TRY(cuda_ok(c, cb_gs_bias_add(d, up, tensor(c, CB_GB_WEIGHTS, l, CB_T_MLP_UP_B), t, 4 * h, st),
                "bias_add"));
    TRY(cuda_ok(c, cb_gs_gelu_forward(d, up, ge, t * 4 * h, st), "gelu_forward"));
    poll(c);
    TRY(copy(c, next, xm, t * h));
    TRY(dense(c, 0, 0, t, h, 4 * h, ge, 4 * h, tensor(c, CB_GB_WEIGHTS, l, CB_T_MLP_DOWN_W), h,
              1.0f, next, h));
    TRY(cuda_ok(c, cb_gs_bias_add(d, next, tensor(c, CB_GB_WEIGHTS, l, CB_T_MLP_DOWN_B), t, h, st),
                "bias_add"));
    poll(c);
  }
  return CB_OK;
}

/* Backward of one layer: dy holds d(output) and becomes d(input). */
static int backward_layer(struct gpu *c, size_t l) {
  size_t t = c->t, h = c->h;
  int d = c->m.dtype;
  cudaStream_t st = c->stream;
  void *dy = global(c, CB_GB_DY), *dxm = global(c, CB_GB_DXM), *dbig = global(c, CB_GB_DBIG);
  void *dsmall = global(c, CB_GB_DSMALL), *dqkv = global(c, CB_GB_DQKV);
#define W(kind) tensor(c, CB_GB_WEIGHTS, l, kind)
#define G(kind) tensor(c, CB_GB_GRADS, l, kind)
  TRY(dense(c, 1, 0, 4 * h, h, t, act(c, l, CB_GL_GE), 4 * h, dy, h, 0.0f, G(CB_T_MLP_DOWN_W), h));
  TRY(cuda_ok(c, cb_gs_col_sum(d, dy, t, h, G(CB_T_MLP_DOWN_B), st), "col_sum"));
  TRY(ready(c, l, CB_T_MLP_DOWN_W));
  TRY(dense(c, 0, 1, t, 4 * h, h, dy, h, W(CB_T_MLP_DOWN_W), h, 0.0f, dbig, 4 * h));
  TRY(cuda_ok(c, cb_gs_gelu_backward(d, act(c, l, CB_GL_UP), dbig, t * 4 * h, st),
              "gelu_backward"));
  poll(c);
  TRY(dense(c, 1, 0, h, 4 * h, t, act(c, l, CB_GL_XN2), h, dbig, 4 * h, 0.0f, G(CB_T_MLP_UP_W),
            4 * h));
  TRY(cuda_ok(c, cb_gs_col_sum(d, dbig, t, 4 * h, G(CB_T_MLP_UP_B), st), "col_sum"));
  TRY(ready(c, l, CB_T_MLP_UP_W));
  TRY(dense(c, 0, 1, t, h, 4 * h, dbig, 4 * h, W(CB_T_MLP_UP_W), 4 * h, 0.0f, dsmall, h));
  TRY(copy(c, dxm, dy, t * h)); /* residual */
  TRY(cuda_ok(c,
              cb_gs_ln_backward(d, dsmall, act(c, l, CB_GL_XM), act(c, l, CB_GL_MU2),
                                act(c, l, CB_GL_RS2), W(CB_T_LN2_G), G(CB_T_LN2_G), G(CB_T_LN2_B),
                                dxm, t, h, st),
              "ln_backward"));
  TRY(ready(c, l, CB_T_LN2_G));
  TRY(dense(c, 1, 0, h, h, t, act(c, l, CB_GL_ATT), h, dxm, h, 0.0f, G(CB_T_ATTN_OUT_W), h));
  TRY(cuda_ok(c, cb_gs_col_sum(d, dxm, t, h, G(CB_T_ATTN_OUT_B), st), "col_sum"));
  TRY(ready(c, l, CB_T_ATTN_OUT_W));
  TRY(dense(c, 0, 1, t, h, h, dxm, h, W(CB_T_ATTN_OUT_W), h, 0.0f, dsmall, h));
  poll(c);
  TRY(attention_backward(c, l, dsmall) == CB_OK);
  TRY(dense(c, 1, 0, h, 3 * h, t, act(c, l, CB_GL_XN1), h, dqkv, 3 * h, 0.0f, G(CB_T_QKV_W),
            3 * h));
  TRY(cuda_ok(c, cb_gs_col_sum(d, dqkv, t, 3 * h, G(CB_T_QKV_B), st), "col_sum"));
  TRY(ready(c, l, CB_T_QKV_W));
  TRY(dense(c, 0, 1, t, h, 3 * h, dqkv, 3 * h, W(CB_T_QKV_W), 3 * h, 0.0f, dsmall, h));
  TRY(copy(c, dy, dxm, t * h)); /* residual */
  TRY(cuda_ok(c,
              cb_gs_ln_backward(d, dsmall, act(c, l, CB_GL_X), act(c, l, CB_GL_MU1),
                                act(c, l, CB_GL_RS1), W(CB_T_LN1_G), G(CB_T_LN1_G), G(CB_T_LN1_B),
                                dy, t, h, st),
              "ln_backward"));
  TRY(ready(c, l, CB_T_LN1_G));
  poll(c);
#undef W
#undef G
  return CB_OK;
}

static int gpu_step(void *ctx, const struct cb_step_hooks *hooks, struct cb_error *err) {
  struct gpu *c = ctx;
  c->hooks = hooks;
  c->err = err;
  c->flops = 0;
  TRY(forward(c) == CB_OK);
  /* the gradient of sum(out^2) / (2 n): out / n, as on the host */
  size_t n = c->t * c->h;
  TRY(cuda_ok(c,
              cb_gs_scale(c->m.dtype, global(c, CB_GB_OUT), global(c, CB_GB_DY), n, 1.0f / (float)n,
                          c->stream),
              "scale"));
  for (size_t l = (size_t)c->m.layers; l-- > 0;)
    TRY(backward_layer(c, l) == CB_OK);
  TRY(cuda_ok(c, cudaStreamSynchronize(c->stream), "cudaStreamSynchronize"));
  return CB_OK;
}

static void gpu_finalize(void *ctx) {
  struct gpu *c = ctx;
  if (!c)
    return;
  if (c->stream)
    cudaStreamSynchronize(c->stream);
  if (c->blas)
    cb_cublas.cublasDestroy(c->blas);
  cudaFree(c->arena);
  if (c->stream)
    cudaStreamDestroy(c->stream);
  free(c);
}

/* Deterministic start on the GPU: the host kernel's weights, unit norm
 * scales and input, so a float step matches the host's. */
static int fill(struct gpu *c) {
  int d = c->m.dtype;
  size_t h = c->h;
  TRY(cuda_ok(c, cb_gs_fill_weights(d, global(c, CB_GB_WEIGHTS), cb_model_params(&c->m), c->stream),
              "fill_weights"));
  for (size_t l = 0; l < (size_t)c->m.layers; l++)
    TRY(cuda_ok(c, cb_gs_fill_const(d, tensor(c, CB_GB_WEIGHTS, l, CB_T_LN1_G), h, 1.0f, c->stream),
                "fill_const") &&
        cuda_ok(c, cb_gs_fill_const(d, tensor(c, CB_GB_WEIGHTS, l, CB_T_LN2_G), h, 1.0f, c->stream),
                "fill_const"));
  TRY(cuda_ok(c, cb_gs_fill_input(d, act(c, 0, CB_GL_X), c->t * h, c->stream), "fill_input"));
  TRY(cuda_ok(c, cudaMemsetAsync(global(c, CB_GB_GRADS), 0, c->lay.size[CB_GB_GRADS], c->stream),
              "cudaMemsetAsync"));
  TRY(cuda_ok(c, cudaStreamSynchronize(c->stream), "cudaStreamSynchronize"));
  return CB_OK;
}

static int setup(struct gpu *c) {
  size_t free_b = 0, total_b = 0;
  TRY(cuda_ok(c, cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo"));
  if (c->lay.total > free_b)
    return cb_fail(c->err, CB_USAGE,
                   "GPU step: model %s needs %.2f GiB of GPU memory, %.2f GiB are free (of %.2f "
                   "GiB): choose a smaller workload or --workload-config",
                   c->m.name, (double)c->lay.total / (1 << 30), (double)free_b / (1 << 30),
                   (double)total_b / (1 << 30));
  TRY(cuda_ok(c, cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking),
              "cudaStreamCreateWithFlags"));
  TRY(cuda_ok(c, cudaMalloc((void **)&c->arena, c->lay.total), "cudaMalloc"));
  TRY(cb_cublas_load(c->err) == CB_OK);
  TRY(blas_ok(c, cb_cublas.cublasCreate(&c->blas), "cublasCreate"));
  TRY(blas_ok(c, cb_cublas.cublasSetStream(c->blas, c->stream), "cublasSetStream"));
  TRY(blas_ok(c,
              cb_cublas.cublasSetWorkspace(c->blas, global(c, CB_GB_WORKSPACE),
                                           c->lay.size[CB_GB_WORKSPACE]),
              "cublasSetWorkspace"));
  return fill(c);
}

static int gpu_init(const struct cb_model *m, int threads, void **ctx, struct cb_error *err) {
  (void)threads; /* the GPU's parallelism is its own */
  struct gpu *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "GPU step: out of host memory");
  c->m = *m;
  c->err = err;
  c->t = (size_t)(m->seq * m->batch);
  c->h = (size_t)m->hidden;
  c->hd = c->h / (size_t)m->heads;
  c->esize = cb_model_dtype_size(m);
  c->type = blas_types[m->dtype];
  for (int k = 0; k < CB_T_PER_LAYER; k++) {
    c->koff[k] = c->layer_params;
    c->layer_params += cb_model_tensor_elems(m, k);
  }
  cb_model_gpu_layout(m, &c->lay);
  if (setup(c) != CB_OK) {
    gpu_finalize(c);
    return err->status;
  }
  *ctx = c;
  return CB_OK;
}

static void *gpu_grads(void *ctx) {
  struct gpu *c = ctx;
  return global(c, CB_GB_GRADS);
}

static int gpu_grad_dtype(void *ctx) {
  return ((struct gpu *)ctx)->m.dtype;
}

static void *gpu_stream(void *ctx) {
  return ((struct gpu *)ctx)->stream;
}

static double gpu_flops(void *ctx) {
  return ((struct gpu *)ctx)->flops;
}

const struct cb_compute cb_compute_cublas = {
    .name = "cublas",
    .init = gpu_init,
    .grads = gpu_grads,
    .grad_dtype = gpu_grad_dtype,
    .stream = gpu_stream,
    .step = gpu_step,
    .params = NULL,
    .loss = NULL,
    .flops = gpu_flops,
    .finalize = gpu_finalize,
};
