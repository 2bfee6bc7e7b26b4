/* The GPU step's work besides GEMMs: layer norm, causal softmax, GELU,
 * bias add and column sums, and the deterministic weights. Tensors are in
 * the model's dtype (enum cb_model_dtype: float, bf16, fp16), arithmetic
 * in float; row-major like the host kernel. Each call enqueues on `stream`
 * and returns the launch's error (cudaSuccess when enqueued). */
#ifndef CB_GPU_STEP_OPS_H
#define CB_GPU_STEP_OPS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* w[i] = the host kernel's i-th weight: its 32-bit LCG from 12345, jumped
 * ahead to i + 1 steps, so a float GPU step starts from the host's model. */
cudaError_t cb_gs_fill_weights(int dtype, void *w, size_t n, cudaStream_t stream);
cudaError_t cb_gs_fill_const(int dtype, void *p, size_t n, float value, cudaStream_t stream);
/* x[i] = (i * 7919 % 1000) / 1000 - 0.5, the host kernel's input */
cudaError_t cb_gs_fill_input(int dtype, void *x, size_t n, cudaStream_t stream);
/* y = a * x */
cudaError_t cb_gs_scale(int dtype, const void *x, void *y, size_t n, float a, cudaStream_t stream);
/* y[r][j] += b[j] */
cudaError_t cb_gs_bias_add(int dtype, void *y, const void *b, size_t rows, size_t cols,
                           cudaStream_t stream);
/* db[j] = sum over rows of dy[r][j] */
cudaError_t cb_gs_col_sum(int dtype, const void *dy, size_t rows, size_t cols, void *db,
                          cudaStream_t stream);
/* y = (x - mu) * rs * g + b per row of h, keeping mu and rs (float) */
cudaError_t cb_gs_ln_forward(int dtype, const void *x, const void *g, const void *b, void *y,
                             float *mu, float *rs, size_t rows, size_t h, cudaStream_t stream);
/* dg, db = the scale's and shift's gradients; dx += the input's */
cudaError_t cb_gs_ln_backward(int dtype, const void *dy, const void *x, const float *mu,
                              const float *rs, const void *g, void *dg, void *db, void *dx,
                              size_t rows, size_t h, cudaStream_t stream);
/* tanh-approximated GELU; backward multiplies d by GELU'(x) in place */
cudaError_t cb_gs_gelu_forward(int dtype, const void *x, void *y, size_t n, cudaStream_t stream);
cudaError_t cb_gs_gelu_backward(int dtype, const void *x, void *d, size_t n, cudaStream_t stream);
/* p holds `blocks` s x s score blocks: each row scaled, causally masked
 * (zeros right of the diagonal) and softmaxed in place */
cudaError_t cb_gs_softmax_forward(int dtype, void *p, size_t s, size_t blocks, float scale,
                                  cudaStream_t stream);
/* dp = p * (dp - rowsum(p * dp)) * scale on and left of the diagonal, 0 right */
cudaError_t cb_gs_softmax_backward(int dtype, const void *p, void *dp, size_t s, size_t blocks,
                                   float scale, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
