/* The overhead definition (bench/results/overhead.c), its verdict, the paired
 * rounds it comes from (tuner/overlap.c) and the planner's largest scale
 * (bench/model/scale.c) against hand-computed cases. */
#include <math.h>
#include <string.h>

#include "model/model.h"
#include "results/overhead.h"
#include "results/verdict.h"
#include "tap.h"
#include "tuner/overlap.h"

static void test_definition(void) {
  struct cb_overhead o = cb_overhead_from_rho_interval(0.25, 0.25, 0.25);
  is_double(o.value, 0.2, 1e-12, "rho 0.25: overhead 0.25 / 1.25 = 20%%");
  is_double(o.ci95, 0, 1e-12, "no spread, no interval");
  /* rho 0.25 in [0.1, 0.5]: overhead in [0.1/1.1, 0.5/1.5], the same map */
  o = cb_overhead_from_rho_interval(0.25, 0.1, 0.5);
  ok(fabs(o.lo - 0.1 / 1.1) < 1e-12 && fabs(o.hi - 0.5 / 1.5) < 1e-12 && !o.noise,
     "the interval's ends mapped through rho / (1 + rho): %g to %g", o.lo, o.hi);
  o = cb_overhead_from_rho_ci(0.25, 0.15);
  ok(fabs(o.lo - 0.1 / 1.1) < 1e-12 && fabs(o.hi - 0.4 / 1.4) < 1e-12,
     "from a median and a half-width (the --trials summary)");
  /* a median round whose step was shorter than its compute: noise, not -25% */
  o = cb_overhead_from_rho_interval(-0.2, -0.5, 0.1);
  ok(o.noise && o.value == 0 && o.lo == 0 && fabs(o.hi - 0.1 / 1.1) < 1e-12,
     "median rho -0.2: noise, value 0 (the floor), interval 0 to 9.1%%");
  o = cb_overhead_from_rho_interval(0.1, -1.5, 0.2);
  ok(!o.noise && o.lo == 0 && fabs(o.value - 0.1 / 1.1) < 1e-12,
     "an interval reaching rho -1 (a step of no time) is clipped at 0");
  ok(isnan(cb_overhead_from_rho_interval(NAN, 0, 0).value), "no rho: NaN");
  is_double(cb_overhead_from_rho(0.25), 0.2, 1e-12, "rho 0.25 -> overhead 0.2");
  is_double(cb_overhead_from_rho(1), 0.5, 1e-12, "rho 1 (as much exposed as computed) -> 50%%");
  ok(isnan(cb_overhead_from_rho(-1)), "rho -1 has no step: NaN");
  ok(cb_overhead_within(0.2, 0.2) && !cb_overhead_within(0.2001, 0.2) &&
         !cb_overhead_within(NAN, 0.2),
     "within: at the target yes, above no, NaN never");
}

/* The three verdict states of the 20% rule, and the impossible one. */
static void test_verdict(void) {
  char buf[256];
  struct cb_overhead pass = cb_overhead_from_rho_interval(0.05, 0.02, 0.2);   /* 2% to 16.7% */
  struct cb_overhead fail = cb_overhead_from_rho_interval(0.5, 0.3, 0.8);     /* 23% to 44% */
  struct cb_overhead open = cb_overhead_from_rho_interval(0.04, -0.97, 1.06); /* the issue's */
  struct cb_overhead weird = cb_overhead_from_rho_interval(-0.3, -0.4, -0.1);
  is_long(cb_overhead_judge(pass, 0.2), CB_PASS, "2%% to 16.7%% against 20%%: PASS");
  is_long(cb_overhead_judge(fail, 0.2), CB_FAIL, "23%% to 44%% against 20%%: FAIL");
  is_long(cb_overhead_judge(open, 0.2), CB_INCONCLUSIVE,
          "0%% to 51%% against 20%%: INCONCLUSIVE (was PASS: 4.1%% +- 77%%)");
  is_long(cb_overhead_judge(weird, 0.2), CB_INCONCLUSIVE,
          "every plausible step shorter than its compute: INCONCLUSIVE, not PASS");
  cb_overhead_verdict(pass, 0.2, buf, sizeof buf);
  ok(strcmp(buf, "PASS (target 20%, 95% CI 2.0% to 16.7%)") == 0, "verdict: '%s'", buf);
  cb_overhead_verdict(open, 0.2, buf, sizeof buf);
  ok(strstr(buf, "INCONCLUSIVE (target 20% inside the 95% CI 0.0% to 51.5%: more rounds") == buf,
     "verdict: '%s'", buf);
  cb_overhead_verdict(weird, 0.2, buf, sizeof buf);
  ok(strstr(buf, "INCONCLUSIVE") && strstr(buf, "shorter than its compute"), "verdict: '%s'", buf);
  cb_overhead_format(weird, buf, sizeof buf);
  ok(strstr(buf, "noise") != NULL, "a negative estimate is printed as noise: '%s'", buf);
}

/* Paired rounds: rounds 4 and 5 ran their compute phase in a busy moment
 * (30) and their step in a quiet one (12), rounds 1-3 the other way round
 * or quietly. The medians taken apart (T_step 12, T_compute 30) say the
 * step is 60% shorter than its compute, an overhead of -150%; each round's
 * own pair says rho 0.1, 0.1, 0.033, -0.6, -0.6: median 0.033, overhead
 * 3.2%, and rho and overhead agree. */
static void test_paired(void) {
  enum { R = 5 };
  double samples[CB_NPHASES * R] = {0};
  const double c[R] = {10, 10, 30, 30, 30}, s[R] = {11, 11, 31, 12, 12};
  for (int k = 0; k < R; k++) {
    samples[CB_PHASE_COMPUTE * R + k] = c[k];
    samples[CB_PHASE_COMM * R + k] = 5;
    samples[CB_PHASE_STEP * R + k] = s[k];
  }
  double old = (12.0 - 30.0) / 12.0; /* what the medians taken apart gave */
  ok(old < 0, "the old estimate from unpaired medians is negative: %.0f%%", 100 * old);
  struct cb_overlap_result r;
  cb_overlap_summarize(samples, R, 1e9, &r);
  ok(r.overhead.value >= 0 && !r.overhead.noise, "the paired overhead is not negative: %.1f%%",
     100 * r.overhead.value);
  is_double(r.overhead.value, r.rho.median / (1 + r.rho.median), 1e-12,
            "overhead = rho / (1 + rho) of the paired rho (%g)", r.rho.median);
  is_double(r.rho.median, 1.0 / 30, 1e-12, "rho: the median round's own (31 - 30) / 30");
  is_double(r.exposed.median, 1, 1e-12, "exposed: the median round's own T_step - T_compute");
  ok(r.overhead.lo == 0 && fabs(r.overhead.hi - 0.1 / 1.1) < 1e-12,
     "its interval from the rounds' rho, clipped at 0: 0 to %.1f%%", 100 * r.overhead.hi);
  /* the median round itself impossible: reported as noise */
  const double s2[R] = {9, 9, 25, 40, 40};
  for (int k = 0; k < R; k++)
    samples[CB_PHASE_STEP * R + k] = s2[k];
  cb_overlap_summarize(samples, R, 1e9, &r);
  ok(r.overhead.noise && r.overhead.value == 0 && r.rho.median < 0,
     "a median round with the step shorter than its compute: noise, value 0 (rho %g)",
     r.rho.median);
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
  test_verdict();
  test_paired();
  test_parse();
  test_scale();
  done_testing();
  return exit_status();
}
