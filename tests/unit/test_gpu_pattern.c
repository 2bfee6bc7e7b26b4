/* GPU fill and check (kernels/gpu_pattern.cu) against the host pattern: the
 * launch arithmetic everywhere; with a GPU, bit-identical fills and exact
 * wrong counts for every dtype and reduction. Without one: visible skips. */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/pattern.h"
#include "kernels/gpu_pattern.h"
#include "runtime/gpu.h"
#include "tap.h"

#define GPU_CASES (CB_NDTYPES * 3)

int main(void) {
  plan(5 + GPU_CASES);
  struct cb_launch l = cb_launch_dims(0, 256, 4096);
  ok(l.blocks == 0, "no elements: no launch");
  l = cb_launch_dims(1, 256, 4096);
  ok(l.blocks == 1 && l.threads == 256, "1 element: one block of 256");
  l = cb_launch_dims(257, 256, 4096);
  is_long(l.blocks, 2, "257 elements: 2 blocks");
  l = cb_launch_dims((size_t)1 << 40, 256, 4096);
  is_long(l.blocks, 4096, "2^40 elements: capped at 4096 blocks (grid-stride)");
  l = cb_launch_dims(10, 0, 0);
  ok(l.threads == 1 && l.blocks == 1, "zero limits are made safe, not a division by zero");

  char why[256];
  if (cb_gpu_count(why, sizeof why) == 0) {
    for (int i = 0; i < GPU_CASES; i++)
      printf("ok %d # SKIP %s\n", 6 + i, why);
    return 0;
  }
  const int redops[3] = {CB_SUM, CB_PROD, CB_MAX};
  const size_t n = 300007; /* past several moduli, not a multiple of a block */
  const uint64_t first = 12345;
  for (int d = 0; d < CB_NDTYPES; d++)
    for (int r = 0; r < 3; r++) {
      struct cb_pattern p;
      struct cb_error err = {0};
      int rank = 3, nranks = 5;
      size_t es = cb_dtypes[d].size, wrong_v = 0, wrong_r = 0, wrong_bad = 0;
      unsigned char *host = malloc(n * es), *back = malloc(n * es);
      void *dev = NULL;
      int good = cb_pattern_init(&p, d, redops[r], nranks, 2, &err) == 0 && host && back &&
                 cudaMalloc(&dev, n * es) == cudaSuccess;
      good = good && cb_gpu_pattern_fill(&p, dev, rank, first, n, why, sizeof why) == 0 &&
             cudaMemcpy(back, dev, n * es, cudaMemcpyDeviceToHost) == cudaSuccess;
      cb_pattern_fill(&p, host, rank, first, n);
      good = good && memcmp(host, back, n * es) == 0;
      good = good &&
             cb_gpu_pattern_count_wrong(&p, dev, rank, first, n, &wrong_v, why, sizeof why) == 0 &&
             wrong_v == 0;
      /* the reduced values on the host, uploaded: GPU and host counts agree */
      for (size_t k = 0; k < n; k++)
        cb_dtypes[d].store(host, k, cb_pattern_reduced(&p, first + k));
      cb_pattern_poison(d, host + 17 * es, 5); /* five known-wrong elements */
      good = good && cudaMemcpy(dev, host, n * es, cudaMemcpyHostToDevice) == cudaSuccess &&
             cb_gpu_pattern_count_wrong(&p, dev, -1, first, n, &wrong_r, why, sizeof why) == 0;
      wrong_bad = cb_pattern_count_wrong_reduced(&p, host, first, n);
      ok(good && wrong_r == wrong_bad && wrong_bad == 5,
         "%s %s: GPU fill equals the host's bit for bit, GPU counts %zu wrong of 5 (host %zu)%s%s",
         cb_dtypes[d].name, cb_redop_name(redops[r]), wrong_r, wrong_bad, good ? "" : ": ",
         good ? "" : why);
      cudaFree(dev);
      free(host);
      free(back);
      cb_pattern_free(&p);
    }
  return exit_status();
}
