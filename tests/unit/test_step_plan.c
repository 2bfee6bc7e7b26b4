/* What the step kernels' shapes imply, without running them: the FLOP
 * count against every GEMM the kernels issue, listed here one by one, and
 * the GPU step's device arena (aligned, disjoint, sized by dtype). */
#include <stdint.h>
#include <string.h>

#include "kernels/transformer.h"
#include "tap.h"

/* The GEMMs of one layer as (m, n, k, how many): forward then backward,
 * in the order kernels/host.c and kernels/gpu_step.c issue them. */
static double listed_flops(const struct cb_model *m) {
  double t = (double)(m->seq * m->batch), h = (double)m->hidden, s = (double)m->seq;
  double hd = h / (double)m->heads, heads = (double)(m->heads * m->batch);
  const double gemms[][4] = {
      {t, 3 * h, h, 1},  {s, s, hd, heads}, {s, hd, s, heads}, {t, h, h, 1},      {t, 4 * h, h, 1},
      {t, h, 4 * h, 1},  {4 * h, h, t, 1},  {t, 4 * h, h, 1},  {h, 4 * h, t, 1},  {t, h, 4 * h, 1},
      {h, h, t, 1},      {t, h, h, 1},      {s, s, hd, heads}, {s, hd, s, heads}, {s, hd, s, heads},
      {s, hd, s, heads}, {h, 3 * h, t, 1},  {t, h, 3 * h, 1},
  };
  double f = 0;
  for (size_t i = 0; i < sizeof gemms / sizeof gemms[0]; i++)
    f += 2 * gemms[i][0] * gemms[i][1] * gemms[i][2] * gemms[i][3];
  return f * (double)m->layers;
}

static void check_layout(const struct cb_model *m) {
  struct cb_gpu_layout l;
  cb_model_gpu_layout(m, &l);
  uint64_t e = cb_model_dtype_size(m), t = (uint64_t)(m->seq * m->batch);
  uint64_t h = (uint64_t)m->hidden, end = 0;
  int aligned = 1, disjoint = 1;
  for (int i = 0; i < CB_GB_N; i++) {
    aligned &= l.at[i] % CB_GPU_ALIGN == 0;
    disjoint &= l.at[i] >= end;
    end = l.at[i] + l.size[i];
  }
  uint64_t layer_end = 0;
  for (int i = 0; i < CB_GL_N; i++) {
    aligned &= l.layer_at[i] % CB_GPU_ALIGN == 0;
    disjoint &= l.layer_at[i] >= layer_end;
    layer_end = l.layer_at[i] + (i + 1 < CB_GL_N ? l.layer_at[i + 1] - l.layer_at[i] : 0);
  }
  aligned &= l.layer_bytes % CB_GPU_ALIGN == 0;
  ok(aligned && disjoint && end <= l.total && l.total - end < CB_GPU_ALIGN,
     "%s %s: %d buffers aligned to %d bytes, disjoint, filling %.3f GiB", m->name,
     cb_model_dtype_names[m->dtype], CB_GB_N + CB_GL_N, CB_GPU_ALIGN, (double)l.total / (1 << 30));
  ok(l.size[CB_GB_WEIGHTS] == cb_model_params(m) * e &&
         l.size[CB_GB_GRADS] == cb_model_grad_bytes(m),
     "%s %s: weights and gradients %zu elements of %d bytes each", m->name,
     cb_model_dtype_names[m->dtype], cb_model_params(m), (int)e);
  /* what backward keeps per layer: 16 t*h values (x, two norms, qkv,
   * attention out, residual, MLP up and GELU), the probabilities, and four
   * float row statistics of t each */
  uint64_t probs = (uint64_t)(m->batch * m->heads) * (uint64_t)m->seq * (uint64_t)m->seq;
  uint64_t kept = (16 * t * h + probs) * e + 4 * t * 4;
  ok(l.layer_bytes >= kept && l.layer_bytes < kept + CB_GL_N * CB_GPU_ALIGN &&
         l.size[CB_GB_LAYERS] == l.layer_bytes * (uint64_t)m->layers,
     "%s %s: one layer's activations %llu bytes (%llu before alignment)", m->name,
     cb_model_dtype_names[m->dtype], (unsigned long long)l.layer_bytes, (unsigned long long)kept);
}

int main(void) {
  const char *names[] = {"tiny", "gpt2-124m", "gpt-1.3b", "llama-7b"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    struct cb_model m;
    struct cb_error err = {0};
    ok(cb_model_preset(names[i], &m, &err) == CB_OK, "preset %s", names[i]);
    double want = listed_flops(&m), got = cb_model_step_flops(&m);
    is_double(got, want, 1e-12 * want, "%s: %.4g FLOPs per step, the sum of its GEMMs", names[i],
              got);
    check_layout(&m);
  }
  /* a custom shape with batch > 1, heads != 1 and a different dtype */
  struct cb_model m = {"odd", 96, 3, 6, 40, 3, CB_MODEL_FP16, 1, 1, 1, 0};
  is_double(cb_model_step_flops(&m), listed_flops(&m), 1e-6, "odd shape: FLOPs per step");
  check_layout(&m);

  /* the same shape in float needs about twice the bf16 arena */
  struct cb_model f, b;
  struct cb_error err = {0};
  cb_model_preset("gpt2-124m", &f, &err);
  b = f;
  b.dtype = CB_MODEL_BF16;
  struct cb_gpu_layout lf, lb;
  cb_model_gpu_layout(&f, &lf);
  cb_model_gpu_layout(&b, &lb);
  ok(lf.total - CB_GPU_WORKSPACE_BYTES > 19 * (lb.total - CB_GPU_WORKSPACE_BYTES) / 10 &&
         lf.total - CB_GPU_WORKSPACE_BYTES <= 2 * (lb.total - CB_GPU_WORKSPACE_BYTES),
     "gpt2-124m: float arena %.2f GiB, bf16 %.2f GiB", (double)lf.total / (1 << 30),
     (double)lb.total / (1 << 30));
  done_testing();
  return exit_status();
}
