// Check patterns on the GPU (see gpu_pattern.h). The arithmetic mirrors
// bench/base/pattern.c exactly: base residue, rank offset, the prod holder; the
// stored bytes come from the pattern's own tables, so every dtype (half,
// bfloat16 included) is bit-identical to the host path.
#include <cuda_runtime.h>
#include <stdio.h>

extern "C" {
#include "base/dtype.h"
#include "base/pattern.h"
}
#include "gpu_pattern.h"

namespace {

// bench/base/pattern.c's multipliers (MUL_INDEX is 1).
constexpr unsigned long long kMulRank = 1000003, kMulSeed = 7919;
constexpr unsigned kThreads = 256, kMaxBlocks = 4096;

struct Params {
  unsigned long long modulus, seed, first;
  int rank, nranks, prod;
  unsigned esize;
};

__device__ unsigned long long base_residue(const Params &p, unsigned long long index) {
  unsigned long long m = p.modulus;
  return ((index % m) + (p.seed % m) * kMulSeed) % m;
}

// value(rank, index) as an index into value_bytes (1..modulus; prod: 1 or 2)
__device__ unsigned long long value_index(const Params &p, int rank, unsigned long long index) {
  if (p.prod)
    return (unsigned long long)rank == (index + p.seed) % (unsigned long long)p.nranks ? 2 : 1;
  unsigned long long m = p.modulus;
  return 1 + (base_residue(p, index) + ((unsigned long long)rank % m) * (kMulRank % m)) % m;
}

__device__ void put(unsigned char *dst, const unsigned char *src, unsigned size) {
  for (unsigned b = 0; b < size; b++)
    dst[b] = src[b];
}

__device__ int differs(const unsigned char *a, const unsigned char *b, unsigned size) {
  for (unsigned i = 0; i < size; i++)
    if (a[i] != b[i])
      return 1;
  return 0;
}

__global__ void fill_kernel(Params p, const unsigned char *values, unsigned char *out, size_t n) {
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
       k += (size_t)gridDim.x * blockDim.x)
    put(out + k * p.esize, values + value_index(p, p.rank, p.first + k) * p.esize, p.esize);
}

// bits: one element's bytes, little end first
__global__ void poison_kernel(unsigned long long bits, unsigned esize, unsigned char *out,
                              size_t n) {
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
       k += (size_t)gridDim.x * blockDim.x)
    for (unsigned b = 0; b < esize; b++)
      out[k * esize + b] = (unsigned char)(bits >> (8 * b));
}

// rank >= 0: against value(rank, .); rank < 0: against reduced(.)
__global__ void count_kernel(Params p, const unsigned char *values, const unsigned char *reduced,
                             const unsigned char *in, size_t n, unsigned long long *wrong) {
  unsigned long long mine = 0;
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
       k += (size_t)gridDim.x * blockDim.x) {
    unsigned long long index = p.first + k;
    const unsigned char *want = p.rank >= 0
                                    ? values + value_index(p, p.rank, index) * p.esize
                                    : reduced + (p.prod ? 0 : base_residue(p, index)) * p.esize;
    mine += differs(in + k * p.esize, want, p.esize);
  }
  if (mine)
    atomicAdd(wrong, mine);
}

int failed(const char *call, cudaError_t rc, char *why, size_t len) {
  snprintf(why, len, "%s: %s (%d)", call, cudaGetErrorString(rc), (int)rc);
  return -1;
}

Params params(const cb_pattern *p, int rank, uint64_t first) {
  Params q;
  q.modulus = p->modulus;
  q.seed = p->seed;
  q.first = first;
  q.rank = rank;
  q.nranks = p->nranks;
  q.prod = p->redop == CB_PROD;
  q.esize = (unsigned)cb_pattern_esize(p);
  return q;
}

// The pattern's byte tables, copied to the device for one call.
struct Tables {
  unsigned char *values = nullptr, *reduced = nullptr;
  ~Tables() {
    cudaFree(values);
    cudaFree(reduced);
  }
};

int upload(const cb_pattern *p, int need_reduced, Tables *t, char *why, size_t len) {
  size_t es = cb_pattern_esize(p), nv = (p->modulus + 1) * es, nr = p->modulus * es;
  cudaError_t rc = cudaMalloc(&t->values, nv);
  if (rc == cudaSuccess)
    rc = cudaMemcpy(t->values, p->value_bytes, nv, cudaMemcpyHostToDevice);
  if (rc == cudaSuccess && need_reduced)
    rc = cudaMalloc(&t->reduced, nr);
  if (rc == cudaSuccess && need_reduced)
    rc = cudaMemcpy(t->reduced, p->reduced_bytes, nr, cudaMemcpyHostToDevice);
  return rc == cudaSuccess ? 0 : failed("uploading the pattern tables", rc, why, len);
}

} // namespace

extern "C" int cb_gpu_pattern_fill(const cb_pattern *p, void *dev, int rank, uint64_t first,
                                   size_t n, char *why, size_t len) {
  cb_launch l = cb_launch_dims(n, kThreads, kMaxBlocks);
  if (!l.blocks)
    return 0;
  Tables t;
  if (upload(p, 0, &t, why, len))
    return -1;
  fill_kernel<<<l.blocks, l.threads>>>(params(p, rank, first), t.values,
                                       static_cast<unsigned char *>(dev), n);
  cudaError_t rc = cudaGetLastError();
  if (rc == cudaSuccess)
    rc = cudaDeviceSynchronize();
  return rc == cudaSuccess ? 0 : failed("fill_kernel", rc, why, len);
}

extern "C" int cb_gpu_pattern_count_wrong(const cb_pattern *p, const void *dev, int rank,
                                          uint64_t first, size_t n, size_t *wrong, char *why,
                                          size_t len) {
  *wrong = 0;
  cb_launch l = cb_launch_dims(n, kThreads, kMaxBlocks);
  if (!l.blocks)
    return 0;
  Tables t;
  if (upload(p, rank < 0, &t, why, len))
    return -1;
  unsigned long long *counter = nullptr, host = 0;
  cudaError_t rc = cudaMalloc(&counter, sizeof *counter);
  if (rc == cudaSuccess)
    rc = cudaMemset(counter, 0, sizeof *counter);
  if (rc == cudaSuccess) {
    count_kernel<<<l.blocks, l.threads>>>(params(p, rank, first), t.values, t.reduced,
                                          static_cast<const unsigned char *>(dev), n, counter);
    rc = cudaGetLastError();
  }
  if (rc == cudaSuccess)
    rc = cudaMemcpy(&host, counter, sizeof host, cudaMemcpyDeviceToHost);
  cudaFree(counter);
  if (rc != cudaSuccess)
    return failed("count_kernel", rc, why, len);
  *wrong = (size_t)host;
  return 0;
}

extern "C" int cb_gpu_pattern_poison(int dtype, void *dev, size_t n, char *why, size_t len) {
  cb_launch l = cb_launch_dims(n, kThreads, kMaxBlocks);
  if (!l.blocks)
    return 0;
  // the host's own poison bytes, so both paths write the same value
  unsigned char one[8] = {0};
  cb_pattern_poison(dtype, one, 1);
  unsigned long long bits = 0;
  for (unsigned b = 0; b < 8; b++)
    bits |= (unsigned long long)one[b] << (8 * b);
  poison_kernel<<<l.blocks, l.threads>>>(bits, (unsigned)cb_dtypes[dtype].size,
                                         static_cast<unsigned char *>(dev), n);
  cudaError_t rc = cudaGetLastError();
  if (rc == cudaSuccess)
    rc = cudaDeviceSynchronize();
  return rc == cudaSuccess ? 0 : failed("poison_kernel", rc, why, len);
}
