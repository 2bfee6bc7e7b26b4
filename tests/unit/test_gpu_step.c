/* The cuBLAS step kernel on a GPU: it starts from the host kernel's
 * weights, so in float its gradients equal the host's; in bf16 and fp16
 * they point the same way. Gradients arrive in ready order, the FLOP count
 * is the GEMMs', and a model too large for the GPU is refused with a usage
 * error. Without cuBLAS or a GPU every check is a visible skip. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "kernels/compute.h"
#include "runtime/gpu.h"
#include "tap.h"
#if CB_HAVE_CUBLAS
#include <cuda_runtime_api.h>
#endif

#define NTESTS 11 /* with a GPU: 1 + 3 per dtype + 1 */

#if CB_HAVE_CUBLAS
struct order {
  int next, wrong;
};

static int on_ready(void *user, int tensor, struct cb_error *err) {
  (void)err;
  struct order *o = user;
  o->wrong += tensor != o->next++;
  return CB_OK;
}

/* bf16 is float's top half; fp16 decoded by hand (no CUDA host headers). */
static float to_float(const unsigned char *p, int dtype) {
  uint16_t v;
  memcpy(&v, p, 2);
  if (dtype == CB_MODEL_BF16) {
    uint32_t bits = (uint32_t)v << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
  }
  int sign = v >> 15, ex = (v >> 10) & 31, man = v & 1023;
  float mag = ex == 0    ? ldexpf((float)man, -24)
              : ex == 31 ? (man ? NAN : INFINITY)
                         : ldexpf((float)(man | 1024), ex - 25);
  return sign ? -mag : mag;
}

/* One GPU step of m; its gradients as floats (malloc'd), NULL on failure. */
static float *gpu_grads(const struct cb_compute *k, const struct cb_model *m, double *flops,
                        struct order *o, struct cb_error *err) {
  void *ctx = NULL;
  if (k->init(m, 1, &ctx, err) != CB_OK)
    return NULL;
  struct cb_step_hooks hooks = {on_ready, NULL, o};
  size_t n = cb_model_params(m), es = cb_model_dtype_size(m);
  unsigned char *raw = malloc(n * es);
  float *g = malloc(n * sizeof *g);
  int good = raw && g && k->grad_dtype(ctx) == m->dtype && k->stream(ctx) && !k->params &&
             !k->loss && k->step(ctx, &hooks, err) == CB_OK &&
             cudaMemcpy(raw, k->grads(ctx), n * es, cudaMemcpyDeviceToHost) == cudaSuccess;
  *flops = k->flops(ctx);
  k->finalize(ctx);
  for (size_t i = 0; good && i < n; i++)
    g[i] = m->dtype == CB_MODEL_FLOAT ? ((float *)raw)[i] : to_float(raw + i * es, m->dtype);
  free(raw);
  if (!good) {
    free(g);
    return NULL;
  }
  return g;
}

static void run(const struct cb_compute *k) {
  ok(cudaSetDevice(0) == cudaSuccess, "GPU 0 selected (the caller binds it, not init)");
  struct cb_model m = {"check", 64, 2, 4, 32, 2, CB_MODEL_FLOAT, 1, 1, 1, 0};
  const char *why;
  const struct cb_compute *host = cb_compute_host(&why);
  float *want = NULL;
  void *hctx = NULL;
  struct cb_error err = {0};
  if (host && host->init(&m, 1, &hctx, &err) == CB_OK && host->step(hctx, NULL, &err) == CB_OK)
    want = host->grads(hctx);
  size_t n = cb_model_params(&m);
  const char *dnames[] = {"float", "bf16", "fp16"};
  for (int d = 0; d < CB_MODEL_NDTYPES; d++) {
    m.dtype = d;
    struct order o = {0, 0};
    double flops = 0;
    struct cb_error e = {0};
    float *g = gpu_grads(k, &m, &flops, &o, &e);
    ok(g && o.next == m.layers * CB_T_PER_LAYER && o.wrong == 0,
       "%s: a step hands every gradient over once, in ready order%s%s", dnames[d], g ? "" : ": ",
       g ? "" : e.msg);
    ok(flops == cb_model_step_flops(&m), "%s: FLOPs counted %.0f, predicted %.0f", dnames[d], flops,
       cb_model_step_flops(&m));
    if (!g || !want) {
      printf("ok %d # SKIP %s\n", tap_run + 1, !g ? "no GPU gradients" : "no host kernel");
      tap_run++;
      free(g);
      continue;
    }
    /* float: equal to rounding; half types: the same direction */
    double dot = 0, gg = 0, ww = 0, worst = 0, scale = 0;
    int finite = 1;
    for (size_t i = 0; i < n; i++) {
      finite &= isfinite(g[i]);
      dot += (double)g[i] * want[i], gg += (double)g[i] * g[i], ww += (double)want[i] * want[i];
      worst = fmax(worst, fabs((double)g[i] - want[i]));
      scale = fmax(scale, fabs(want[i]));
    }
    double cosine = dot / sqrt(gg * ww + 1e-300);
    if (d == CB_MODEL_FLOAT)
      ok(finite && worst <= 1e-3 * scale,
         "float: gradients equal the host kernel's (worst difference %.3g of largest %.3g)", worst,
         scale);
    else /* fp16 looser: without loss scaling the deep gradients go subnormal */
      ok(finite && cosine > (d == CB_MODEL_BF16 ? 0.98 : 0.9),
         "%s: gradients follow the host kernel's (cosine %.5f)", dnames[d], cosine);
    free(g);
  }
  if (hctx)
    host->finalize(hctx);

  struct cb_model big;
  cb_model_preset("llama-7b", &big, &err);
  big.batch = 64; /* about 2.3 TiB of activations */
  void *ctx = NULL;
  struct cb_error e = {0};
  int rc = k->init(&big, 1, &ctx, &e);
  ok(rc == CB_USAGE && strstr(e.msg, "llama-7b") && strstr(e.msg, "GiB"),
     "a model too large for the GPU is a usage error naming it: %s", e.msg);
  if (rc == CB_OK)
    k->finalize(ctx);
}
#endif

int main(void) {
  plan(NTESTS);
  const char *why = NULL;
  char reason[256];
  const struct cb_compute *k = cb_compute_gpu(&why);
  if (k && cb_gpu_count(reason, sizeof reason) == 0)
    why = reason;
  if (!k || why) {
    for (int i = 1; i <= NTESTS; i++)
      printf("ok %d # SKIP %s\n", i, why);
    return 0;
  }
#if CB_HAVE_CUBLAS
  run(k);
#endif
  return exit_status();
}
