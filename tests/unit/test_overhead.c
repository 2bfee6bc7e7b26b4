/* The overhead definition (bench/overhead.c) and the planner's largest
 * scale (bench/model/scale.c) against hand-computed cases. */
#include <math.h>
#include <string.h>

#include "model/model.h"
#include "overhead.h"
#include "tap.h"

static void test_definition(void) {
  struct cb_overhead o = cb_overhead_of(10, 0, 8, 0);
  is_double(o.value, 0.2, 1e-12, "T_step 10, T_compute 8: overhead 2/10 = 20%%");
  is_double(o.ci95, 0, 1e-12, "no spread, no interval");
  /* d/dc = -1/s = -0.1, d/ds = c/s^2 = 0.08: sqrt((0.1*0.5)^2 + (0.08*1)^2) */
  o = cb_overhead_of(10, 1, 8, 0.5);
  is_double(o.ci95, sqrt(0.05 * 0.05 + 0.08 * 0.08), 1e-12,
            "CI from CIs 1 (step) and 0.5 (compute): sqrt(0.05^2 + 0.08^2)");
  is_double(cb_overhead_of(8, 0, 10, 0).value, -0.25, 1e-12,
            "a step faster than its compute (noise) is negative, not clipped");
  ok(isnan(cb_overhead_of(0, 0, 1, 0).value), "T_step 0: no overhead (NaN)");
  is_double(cb_overhead_of(1, 0, 1, 0).value, 0, 1e-12, "all hidden: 0");
  /* rho = (s - c) / c = 0.25 is the same step */
  is_double(cb_overhead_from_rho(0.25), 0.2, 1e-12, "rho 0.25 -> overhead 0.2");
  is_double(cb_overhead_from_rho(1), 0.5, 1e-12, "rho 1 (as much exposed as computed) -> 50%%");
  ok(isnan(cb_overhead_from_rho(-1)), "rho -1 has no step: NaN");
  ok(cb_overhead_within(0.2, 0.2) && !cb_overhead_within(0.2001, 0.2) &&
         !cb_overhead_within(NAN, 0.2),
     "within: at the target yes, above no, NaN never");
  char buf[96];
  cb_overhead_verdict((struct cb_overhead){0.1, 0.01}, 0.2, buf, sizeof buf);
  ok(strcmp(buf, "PASS (target 20%)") == 0, "verdict: '%s'", buf);
  cb_overhead_verdict((struct cb_overhead){0.25, 0.1}, 0.2, buf, sizeof buf);
  ok(strcmp(buf, "FAIL (target 20%, the target inside the 95% CI)") == 0, "verdict: '%s'", buf);
}

static void test_parse(void) {
  static const struct {
    const char *text;
    double want; /* 0: refused */
  } cases[] = {{"20%", 0.2}, {"0.2", 0.2}, {"5.5%", 0.055}, {"99%", 0.99}, {"0%", 0},
               {"100%", 0},  {"20", 0},    {"1", 0},        {"-5%", 0},    {"abc", 0},
               {"", 0},      {"20%x", 0},  {"%", 0},        {"nan", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct cb_error err = {0};
    double v = -1;
    int rc = cb_overhead_parse(cases[i].text, "--max-overhead", &v, &err);
    if (cases[i].want > 0)
      ok(rc == CB_OK && fabs(v - cases[i].want) < 1e-12, "'%s' -> %g", cases[i].text, v);
    else
      ok(rc == CB_USAGE && strstr(err.msg, "--max-overhead") && strstr(err.msg, cases[i].text) &&
             v == -1,
         "'%s' refused, naming it: %s", cases[i].text, err.msg);
  }
}

static void test_scale(void) {
  struct cb_scale sc;
  /* One node, latency only (alpha 10 ms, beta 0), one bucket, compute 1 s:
   * the last bucket is all exposed, tree costs 2 ceil(log2 n) alpha and
   * ring 2(n-1) alpha, so exposed = 0.02 ceil(log2 n) for n >= 2. Within
   * 20% means exposed <= 0.25 s: ceil(log2 n) <= 12, n <= 4096. */
  struct cb_system alpha = {1 << 30, {{1, 10e-3, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}}};
  ok(cb_model_max_gpus(&alpha, 1.0, 1e6, 1e6, 0.2, NULL, &sc) == 0, "alpha case predicts");
  is_long(sc.gpus, 4096, "alpha case: 4096 GPUs (ceil(log2 n) <= 12)");
  ok(!sc.capped, "alpha case: a limit, not the search's end");
  is_double(sc.next, 0.26 / 1.26, 1e-12, "alpha case: 4097 GPUs give 0.26 / 1.26");
  /* Bandwidth only (beta 0.3 us/B), 1 MB of gradients in two 0.5 MB
   * buckets, compute 1 s: bucket 1 ready at 0.5 s takes t = 0.3 (n-1)/n s
   * (ring beats tree's 0.3 s) and is done before bucket 2 is ready at 1 s,
   * which is all exposed: overhead t / (1 + t) <= 21% means t <= 0.21/0.79,
   * (n-1)/n <= 0.886: n <= 8 (n = 9 gives 0.2667 / 1.2667 = 21.05%). */
  struct cb_system beta = {1 << 30, {{1, 0, 0.3e-6, 0, 0, 0}, {0, 0, 0, 0, 0, 0}}};
  ok(cb_model_max_gpus(&beta, 1.0, 1e6, 0.5e6, 0.21, NULL, &sc) == 0, "beta case predicts");
  is_long(sc.gpus, 8, "beta case, two buckets: 8 GPUs");
  is_double(sc.next, (0.3 * 8 / 9) / (1 + 0.3 * 8 / 9), 1e-12, "beta case: 9 GPUs over the target");
  /* with one 1 MB bucket nothing hides: t = 0.6 (n-1)/n <= 0.2658 -> n = 1 */
  ok(cb_model_max_gpus(&beta, 1.0, 1e6, 1e6, 0.21, NULL, &sc) == 0 && sc.gpus == 1,
     "beta case, one bucket: only 1 GPU (got %ld)", sc.gpus);
  /* so little to move that no count reaches the target */
  struct cb_system fast = {1 << 30, {{1, 0, 1e-15, 0, 0, 0}, {0, 0, 0, 0, 0, 0}}};
  ok(cb_model_max_gpus(&fast, 1.0, 1e6, 1e6, 0.2, NULL, &sc) == 0 && sc.capped &&
         sc.gpus == CB_MODEL_MAX_GPUS,
     "within everywhere: capped at the search's end");
  struct cb_system unknown = {8, {{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}}};
  ok(cb_model_max_gpus(&unknown, 1.0, 1e6, 1e6, 0.2, NULL, &sc) == -1, "no tiers: no answer");
}

int main(void) {
  test_definition();
  test_parse();
  test_scale();
  done_testing();
  return exit_status();
}
