// The GPU step's elementwise and row kernels (see gpu_step_ops.h): the same
// arithmetic as kernels/host.c, on tensors in the model's dtype with float
// accumulation. Rows go one block each (reductions in shared memory);
// per-column sums one thread per column, so reads stay coalesced.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <type_traits>

extern "C" {
#include "transformer.h"
}
#include "gpu_pattern.h" // cb_launch_dims
#include "gpu_step_ops.h"

namespace {

constexpr unsigned kThreads = 256, kMaxBlocks = 65535;
constexpr float kGeluC = 0.7978845608f; // sqrt(2/pi)

__device__ float load(float v) {
  return v;
}
__device__ float load(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
__device__ float load(__half v) {
  return __half2float(v);
}
template <typename T> __device__ T store(float v);
template <> __device__ float store<float>(float v) {
  return v;
}
template <> __device__ __nv_bfloat16 store<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
template <> __device__ __half store<__half>(float v) {
  return __float2half(v);
}

// Calls f with a null T* for the model's dtype, T its element type.
template <typename F> cudaError_t dispatch(int dtype, F f) {
  switch (dtype) {
  case CB_MODEL_FLOAT: f(static_cast<float *>(nullptr)); break;
  case CB_MODEL_BF16: f(static_cast<__nv_bfloat16 *>(nullptr)); break;
  case CB_MODEL_FP16: f(static_cast<__half *>(nullptr)); break;
  default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}
#define ELEM(tag) std::remove_pointer_t<decltype(tag)>

#define GRID_STRIDE(k, n)                                                                          \
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < (n);                          \
       k += (size_t)gridDim.x * blockDim.x)

// The sum of v over the block (every thread gets it); blockDim.x <= 1024.
__device__ float block_sum(float v) {
  __shared__ float part[32];
  __shared__ float total;
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = (blockDim.x + 31) / 32;
  if (lane == 0)
    part[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (unsigned w = 0; w < nwarps; w++)
      s += part[w];
    total = s;
  }
  __syncthreads();
  float s = total;
  __syncthreads(); // part and total are reused by the next call
  return s;
}

__device__ float block_max(float v) {
  __shared__ float part[32];
  __shared__ float total;
  for (int o = 16; o > 0; o /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = (blockDim.x + 31) / 32;
  if (lane == 0)
    part[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = part[0];
    for (unsigned w = 1; w < nwarps; w++)
      s = fmaxf(s, part[w]);
    total = s;
  }
  __syncthreads();
  float s = total;
  __syncthreads();
  return s;
}

// The host's LCG (r = r * 1664525 + 1013904223 from 12345) after `steps`
// steps, by squaring the affine map: O(log steps) per element.
__device__ unsigned lcg_after(unsigned long long steps) {
  unsigned mul = 1, add = 0, cur_mul = 1664525u, cur_add = 1013904223u;
  for (; steps; steps >>= 1) {
    if (steps & 1) {
      mul *= cur_mul;
      add = add * cur_mul + cur_add;
    }
    cur_add = (cur_mul + 1) * cur_add;
    cur_mul *= cur_mul;
  }
  return mul * 12345u + add;
}

template <typename T> __global__ void fill_weights(T *w, size_t n) {
  GRID_STRIDE(i, n) {
    unsigned r = lcg_after(i + 1);
    w[i] = store<T>(((float)(r >> 8) / 16777216.0f - 0.5f) * 0.04f);
  }
}

template <typename T> __global__ void fill_const(T *p, size_t n, float v) {
  GRID_STRIDE(i, n) p[i] = store<T>(v);
}

template <typename T> __global__ void fill_input(T *x, size_t n) {
  GRID_STRIDE(i, n) x[i] = store<T>((float)((i * 7919) % 1000) / 1000.0f - 0.5f);
}

template <typename T> __global__ void scale(const T *x, T *y, size_t n, float a) {
  GRID_STRIDE(i, n) y[i] = store<T>(a * load(x[i]));
}

template <typename T> __global__ void bias_add(T *y, const T *b, size_t rows, size_t cols) {
  GRID_STRIDE(i, rows * cols) y[i] = store<T>(load(y[i]) + load(b[i % cols]));
}

template <typename T> __global__ void col_sum(const T *dy, size_t rows, size_t cols, T *db) {
  GRID_STRIDE(j, cols) {
    float s = 0;
    for (size_t r = 0; r < rows; r++)
      s += load(dy[r * cols + j]);
    db[j] = store<T>(s);
  }
}

template <typename T>
__global__ void ln_forward(const T *x, const T *g, const T *b, T *y, float *mu, float *rs,
                           size_t h) {
  const T *xr = x + blockIdx.x * h;
  float s = 0;
  for (size_t j = threadIdx.x; j < h; j += blockDim.x)
    s += load(xr[j]);
  float mean = block_sum(s) / (float)h, s2 = 0;
  for (size_t j = threadIdx.x; j < h; j += blockDim.x) {
    float d = load(xr[j]) - mean;
    s2 += d * d;
  }
  float r = rsqrtf(block_sum(s2) / (float)h + 1e-5f);
  if (threadIdx.x == 0) {
    mu[blockIdx.x] = mean;
    rs[blockIdx.x] = r;
  }
  for (size_t j = threadIdx.x; j < h; j += blockDim.x)
    y[blockIdx.x * h + j] = store<T>((load(xr[j]) - mean) * r * load(g[j]) + load(b[j]));
}

template <typename T>
__global__ void ln_backward_params(const T *dy, const T *x, const float *mu, const float *rs, T *dg,
                                   T *db, size_t rows, size_t h) {
  GRID_STRIDE(j, h) {
    float sg = 0, sb = 0;
    for (size_t r = 0; r < rows; r++) {
      float d = load(dy[r * h + j]);
      sg += d * (load(x[r * h + j]) - mu[r]) * rs[r];
      sb += d;
    }
    dg[j] = store<T>(sg);
    db[j] = store<T>(sb);
  }
}

template <typename T>
__global__ void ln_backward_input(const T *dy, const T *x, const float *mu, const float *rs,
                                  const T *g, T *dx, size_t h) {
  size_t row = blockIdx.x;
  const T *dyr = dy + row * h, *xr = x + row * h;
  float m1 = 0, m2 = 0, mean = mu[row], r = rs[row];
  for (size_t j = threadIdx.x; j < h; j += blockDim.x) {
    float dg = load(dyr[j]) * load(g[j]);
    m1 += dg;
    m2 += dg * (load(xr[j]) - mean) * r;
  }
  m1 = block_sum(m1) / (float)h;
  m2 = block_sum(m2) / (float)h;
  for (size_t j = threadIdx.x; j < h; j += blockDim.x) {
    float xhat = (load(xr[j]) - mean) * r;
    size_t i = row * h + j;
    dx[i] = store<T>(load(dx[i]) + r * (load(dyr[j]) * load(g[j]) - m1 - xhat * m2));
  }
}

__device__ float gelu(float v) {
  return 0.5f * v * (1.0f + tanhf(kGeluC * (v + 0.044715f * v * v * v)));
}

__device__ float gelu_grad(float v) {
  float th = tanhf(kGeluC * (v + 0.044715f * v * v * v));
  float du = kGeluC * (1.0f + 3.0f * 0.044715f * v * v);
  return 0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * du;
}

template <typename T> __global__ void gelu_forward(const T *x, T *y, size_t n) {
  GRID_STRIDE(i, n) y[i] = store<T>(gelu(load(x[i])));
}

template <typename T> __global__ void gelu_backward(const T *x, T *d, size_t n) {
  GRID_STRIDE(i, n) d[i] = store<T>(load(d[i]) * gelu_grad(load(x[i])));
}

// One block per row of all score blocks; row i of a block keeps 0..i.
template <typename T> __global__ void softmax_forward(T *p, size_t s, float scale) {
  T *row = p + blockIdx.x * s;
  size_t i = blockIdx.x % s;
  float mx = -INFINITY;
  for (size_t j = threadIdx.x; j <= i; j += blockDim.x)
    mx = fmaxf(mx, scale * load(row[j]));
  mx = block_max(mx);
  float sum = 0;
  for (size_t j = threadIdx.x; j <= i; j += blockDim.x)
    sum += __expf(scale * load(row[j]) - mx);
  sum = block_sum(sum);
  for (size_t j = threadIdx.x; j < s; j += blockDim.x)
    row[j] = store<T>(j <= i ? __expf(scale * load(row[j]) - mx) / sum : 0.0f);
}

template <typename T> __global__ void softmax_backward(const T *p, T *dp, size_t s, float scale) {
  const T *prow = p + blockIdx.x * s;
  T *drow = dp + blockIdx.x * s;
  size_t i = blockIdx.x % s;
  float dot = 0;
  for (size_t j = threadIdx.x; j <= i; j += blockDim.x)
    dot += load(prow[j]) * load(drow[j]);
  dot = block_sum(dot);
  for (size_t j = threadIdx.x; j < s; j += blockDim.x)
    drow[j] = store<T>(j <= i ? load(prow[j]) * (load(drow[j]) - dot) * scale : 0.0f);
}

cb_launch dims(size_t n) {
  return cb_launch_dims(n, kThreads, kMaxBlocks);
}

// Row kernels: one block per row, fewer threads for short rows.
unsigned row_threads(size_t width) {
  return width >= 256 ? 256 : width > 32 ? 128 : 32;
}

} // namespace

extern "C" cudaError_t cb_gs_fill_weights(int dtype, void *w, size_t n, cudaStream_t st) {
  cb_launch l = dims(n);
  if (!l.blocks)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    fill_weights<<<l.blocks, l.threads, 0, st>>>(static_cast<ELEM(tag) *>(w), n);
  });
}

extern "C" cudaError_t cb_gs_fill_const(int dtype, void *p, size_t n, float v, cudaStream_t st) {
  cb_launch l = dims(n);
  if (!l.blocks)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    fill_const<<<l.blocks, l.threads, 0, st>>>(static_cast<ELEM(tag) *>(p), n, v);
  });
}

extern "C" cudaError_t cb_gs_fill_input(int dtype, void *x, size_t n, cudaStream_t st) {
  cb_launch l = dims(n);
  if (!l.blocks)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    fill_input<<<l.blocks, l.threads, 0, st>>>(static_cast<ELEM(tag) *>(x), n);
  });
}

extern "C" cudaError_t cb_gs_scale(int dtype, const void *x, void *y, size_t n, float a,
                                   cudaStream_t st) {
  cb_launch l = dims(n);
  if (!l.blocks)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    using T = ELEM(tag);
    scale<<<l.blocks, l.threads, 0, st>>>(static_cast<const T *>(x), static_cast<T *>(y), n, a);
  });
}

extern "C" cudaError_t cb_gs_bias_add(int dtype, void *y, const void *b, size_t rows, size_t cols,
                                      cudaStream_t st) {
  cb_launch l = dims(rows * cols);
  if (!l.blocks)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    using T = ELEM(tag);
    bias_add<<<l.blocks, l.threads, 0, st>>>(static_cast<T *>(y), static_cast<const T *>(b), rows,
                                             cols);
  });
}

extern "C" cudaError_t cb_gs_col_sum(int dtype, const void *dy, size_t rows, size_t cols, void *db,
                                     cudaStream_t st) {
  cb_launch l = dims(cols);
  if (!l.blocks)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    using T = ELEM(tag);
    col_sum<<<l.blocks, l.threads, 0, st>>>(static_cast<const T *>(dy), rows, cols,
                                            static_cast<T *>(db));
  });
}

extern "C" cudaError_t cb_gs_ln_forward(int dtype, const void *x, const void *g, const void *b,
                                        void *y, float *mu, float *rs, size_t rows, size_t h,
                                        cudaStream_t st) {
  if (!rows)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    using T = ELEM(tag);
    ln_forward<<<(unsigned)rows, row_threads(h), 0, st>>>(
        static_cast<const T *>(x), static_cast<const T *>(g), static_cast<const T *>(b),
        static_cast<T *>(y), mu, rs, h);
  });
}

extern "C" cudaError_t cb_gs_ln_backward(int dtype, const void *dy, const void *x, const float *mu,
                                         const float *rs, const void *g, void *dg, void *db,
                                         void *dx, size_t rows, size_t h, cudaStream_t st) {
  cb_launch l = dims(h);
  if (!rows || !l.blocks)
    return cudaSuccess;
  cudaError_t rc = dispatch(dtype, [&](auto tag) {
    using T = ELEM(tag);
    ln_backward_params<<<l.blocks, l.threads, 0, st>>>(
        static_cast<const T *>(dy), static_cast<const T *>(x), mu, rs, static_cast<T *>(dg),
        static_cast<T *>(db), rows, h);
  });
  if (rc != cudaSuccess)
    return rc;
  return dispatch(dtype, [&](auto tag) {
    using T = ELEM(tag);
    ln_backward_input<<<(unsigned)rows, row_threads(h), 0, st>>>(
        static_cast<const T *>(dy), static_cast<const T *>(x), mu, rs, static_cast<const T *>(g),
        static_cast<T *>(dx), h);
  });
}

extern "C" cudaError_t cb_gs_gelu_forward(int dtype, const void *x, void *y, size_t n,
                                          cudaStream_t st) {
  cb_launch l = dims(n);
  if (!l.blocks)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    using T = ELEM(tag);
    gelu_forward<<<l.blocks, l.threads, 0, st>>>(static_cast<const T *>(x), static_cast<T *>(y), n);
  });
}

extern "C" cudaError_t cb_gs_gelu_backward(int dtype, const void *x, void *d, size_t n,
                                           cudaStream_t st) {
  cb_launch l = dims(n);
  if (!l.blocks)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    using T = ELEM(tag);
    gelu_backward<<<l.blocks, l.threads, 0, st>>>(static_cast<const T *>(x), static_cast<T *>(d),
                                                  n);
  });
}

extern "C" cudaError_t cb_gs_softmax_forward(int dtype, void *p, size_t s, size_t blocks,
                                             float scale, cudaStream_t st) {
  if (!s || !blocks)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    softmax_forward<<<(unsigned)(blocks * s), row_threads(s), 0, st>>>(static_cast<ELEM(tag) *>(p),
                                                                       s, scale);
  });
}

extern "C" cudaError_t cb_gs_softmax_backward(int dtype, const void *p, void *dp, size_t s,
                                              size_t blocks, float scale, cudaStream_t st) {
  if (!s || !blocks)
    return cudaSuccess;
  return dispatch(dtype, [&](auto tag) {
    using T = ELEM(tag);
    softmax_backward<<<(unsigned)(blocks * s), row_threads(s), 0, st>>>(
        static_cast<const T *>(p), static_cast<T *>(dp), s, scale);
  });
}
