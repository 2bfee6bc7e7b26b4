/* The host step kernel: backward computes the true gradient of its loss
 * (central differences on a small model, every tensor kind of every
 * layer), gradients arrive in ready order, and the FLOP count is the GEMMs'. */
#include <math.h>
#include <stdlib.h>

#include "kernels/compute.h"
#include "tap.h"

struct order {
  int next, wrong;
};

static int on_ready(void *user, int tensor, struct cb_error *err) {
  (void)err;
  struct order *o = user;
  o->wrong += tensor != o->next++;
  return CB_OK;
}

static double loss_at(const struct cb_compute *k, void *ctx) {
  struct cb_error err = {0};
  k->step(ctx, NULL, &err);
  return k->loss(ctx);
}

int main(void) {
  const char *why;
  const struct cb_compute *k = cb_compute_host(&why);
  struct cb_model m = {"check", 16, 2, 2, 6, 2, CB_MODEL_FLOAT, 1, 1, 1, 0};
  void *ctx;
  struct cb_error err = {0};
  ok(k && k->init(&m, 1, &ctx, &err) == CB_OK, "the host kernel starts");

  struct order o = {0, 0};
  struct cb_step_hooks hooks = {on_ready, NULL, &o};
  ok(k->step(ctx, &hooks, &err) == CB_OK, "one step");
  ok(o.next == 2 * CB_T_PER_LAYER && o.wrong == 0,
     "every tensor handed over once, in ready order (last layer first)");
  long t = m.seq * m.batch, h = m.hidden, s = m.seq;
  /* per layer: qkv, out, up, down forward (24 t h^2) and twice that
   * backward; attention 4 s^2 h per sequence forward, twice backward */
  double want = m.layers * (3.0 * 24 * t * h * h + 3.0 * 4 * s * s * h * m.batch);
  ok(fabs(k->flops(ctx) - want) < 1e-6 * want, "FLOPs per step: %.0f (want %.0f)", k->flops(ctx),
     want);
  ok(fabs(k->flops(ctx) - cb_model_step_flops(&m)) < 1e-6 * want,
     "the host kernel counts what cb_model_step_flops predicts (the GPU step's count too)");

  /* Gradient check on a few elements of each tensor kind of each layer.
   * Float forward passes: central differences with a step of 1e-2. */
  size_t per_layer = cb_model_layer_params(&m), off = 0;
  float *w = k->params(ctx), *g = k->grads(ctx);
  float *saved = malloc(per_layer * (size_t)m.layers * sizeof *saved);
  for (size_t i = 0; i < per_layer * (size_t)m.layers; i++)
    saved[i] = g[i];
  int checked = 0, bad = 0;
  double worst = 0;
  for (int layer = 0; layer < m.layers; layer++)
    for (int kind = 0; kind < CB_T_PER_LAYER; kind++) {
      size_t n = cb_model_tensor_elems(&m, kind);
      for (size_t j = 0; j < n; j += n / 3 + 1) {
        size_t i = off + j;
        float keep = w[i], e = 1e-2f;
        w[i] = keep + e;
        double up = loss_at(k, ctx);
        w[i] = keep - e;
        double down = loss_at(k, ctx);
        w[i] = keep;
        double num = (up - down) / (2.0 * e), ana = saved[i];
        double rel = fabs(num - ana) / fmax(fabs(num) + fabs(ana), 1e-4);
        worst = fmax(worst, rel);
        bad += rel > 0.05;
        checked++;
        if (rel > 0.05)
          diag("%s of ready-layer %d, element %zu: numeric %.6g, backward %.6g",
               cb_tensor_names[kind], layer, j, num, ana);
      }
      off += n;
    }
  ok(bad == 0, "backward matches central differences on %d weights (worst relative %.3g)", checked,
     worst);
  free(saved);
  k->finalize(ctx);
  done_testing();
  return exit_status();
}
