/* Summary statistics: quantiles by linear interpolation, Welford mean and
 * sample stddev, and the median's distribution-free 95% CI. */
#include <math.h>
#include <stdlib.h>

#include "base/stats.h"
#include "results/record.h"
#include "runtime/settings.h"
#include "tap.h"

#define TOL 1e-12

/* Reverses the data so the tests also prove cb_stats_compute sorts. */
static void reverse(double *x, size_t n) {
  for (size_t i = 0; i < n / 2; i++) {
    double t = x[i];
    x[i] = x[n - 1 - i];
    x[n - 1 - i] = t;
  }
}

static void test_odd(void) {
  double x[] = {5, 3, 1, 4, 2};
  struct cb_stats s;
  cb_stats_compute(x, 5, &s);
  is_long((long)s.n, 5, "odd: n");
  is_double(s.median, 3, TOL, "odd: median is the middle value");
  is_double(s.min, 1, TOL, "odd: min");
  is_double(s.max, 5, TOL, "odd: max");
  is_double(s.mean, 3, TOL, "odd: mean");
  is_double(s.stddev, sqrt(2.5), TOL, "odd: sample stddev (n-1)");
  /* p5 sits at position 0.05*(n-1) = 0.2 between x[0] and x[1] */
  is_double(s.p5, 1.2, TOL, "odd: p5 interpolates");
  is_double(s.p95, 4.8, TOL, "odd: p95 interpolates");
  ok(x[0] == 1 && x[4] == 5, "odd: samples sorted in place");
}

static void test_even(void) {
  double x[] = {9, 2, 5, 4, 4, 7, 4, 5};
  struct cb_stats s;
  cb_stats_compute(x, 8, &s);
  is_double(s.median, 4.5, TOL, "even: median averages the middle two");
  is_double(s.min, 2, TOL, "even: min");
  is_double(s.max, 9, TOL, "even: max");
  is_double(s.mean, 5, TOL, "even: mean");
  is_double(s.stddev, sqrt(32.0 / 7.0), TOL, "even: sample stddev");
  is_double(s.p5, 2 + 2 * 0.35, TOL, "even: p5 at position 0.35");
  is_double(s.p95, 7 + 2 * 0.65, TOL, "even: p95 at position 6.65");
}

static void test_tiny(void) {
  double one = 42.5;
  struct cb_stats s;
  cb_stats_compute(&one, 1, &s);
  ok(s.n == 1 && s.median == 42.5 && s.min == 42.5 && s.max == 42.5 && s.p5 == 42.5 &&
         s.p95 == 42.5 && s.mean == 42.5,
     "n=1: every location statistic is the sample");
  is_double(s.stddev, 0, 0, "n=1: stddev 0, not NaN");
  is_double(s.ci95, 0, 0, "n=1: ci95 0");

  struct cb_stats z = {.n = 7, .median = 1, .ci95 = 1};
  cb_stats_compute(NULL, 0, &z);
  ok(z.n == 0 && z.median == 0 && z.min == 0 && z.max == 0 && z.p5 == 0 && z.p95 == 0 &&
         z.mean == 0 && z.stddev == 0 && z.ci95 == 0,
     "n=0: all zeros");
  is_double(cb_quantile_sorted(NULL, 0, 0.5), 0, 0, "quantile of nothing is 0");

  double d[] = {1, 2, 3, 4};
  is_double(cb_quantile_sorted(d, 4, 0), 1, 0, "quantile q=0 is the minimum");
  is_double(cb_quantile_sorted(d, 4, 1), 4, 0, "quantile q=1 is the maximum");
  is_double(cb_quantile_sorted(d, 4, 0.5), 2.5, TOL, "quantile q=0.5 of 1..4");
  is_double(cb_median_sorted(d, 4), 2.5, 0, "median of 1..4: the mean of the middle two");
  is_double(cb_median_sorted(d, 3), 2, 0, "median of 1..3: the middle one");
  ok(isnan(cb_median_sorted(NULL, 0)), "median of nothing: NaN, not a figure");
  double u[] = {3, -1, 2, 2, 0.5};
  cb_sort_doubles(u, 5);
  ok(u[0] == -1 && u[1] == 0.5 && u[2] == 2 && u[3] == 2 && u[4] == 3,
     "sort: ascending, ties kept");
  /* qsort's array is declared nonnull: under scripts/sanitize-check.sh, UBSan
   * stops here if an empty sort still calls it */
  cb_sort_doubles(NULL, 0);
  ok(1, "sort of nothing: no qsort on NULL");
}

/* The anchors' mean is total time over iterations: batches weigh by their
 * size. Two batches, 1 run at 10 s and 9 runs at 1 s: 19 s / 10 runs =
 * 1.9 s, where the mean of the two per-run samples would say 5.5 s. */
static void test_run_mean(void) {
  struct cb_run_mean m = {0, 0};
  is_double(cb_run_mean(&m), 0, 0, "run mean of nothing is 0, not NaN");
  cb_run_mean_add(&m, 10.0, 1);
  cb_run_mean_add(&m, 1.0, 9);
  is_long(m.runs, 10, "run mean counts runs, not batches");
  is_double(cb_run_mean(&m), 1.9, TOL, "unequal batches: total / runs = 19 / 10");
  double per_sample[] = {10.0, 1.0};
  struct cb_stats s;
  cb_stats_compute(per_sample, 2, &s);
  ok(fabs(s.mean - cb_run_mean(&m)) > 3, "the per-sample mean (%g) is not the anchors' (%g)",
     s.mean, cb_run_mean(&m));
  struct cb_run_mean same = {0, 0};
  for (int i = 0; i < 5; i++)
    cb_run_mean_add(&same, 2.0 + i, 4);
  is_double(cb_run_mean(&same), 4.0, TOL, "equal batches: the plain mean of the samples");
}

/* p99 by the same interpolation as the other quantiles. */
static void test_p99(void) {
  double x[1000];
  for (int i = 0; i < 1000; i++)
    x[i] = 999 - i; /* 0..999, reversed */
  struct cb_stats s;
  cb_stats_compute(x, 1000, &s);
  is_double(s.p99, 0.99 * 999, 1e-9, "0..999: p99 at position 989.01");
  ok(s.p95 < s.p99 && s.p99 < s.max, "p95 < p99 < max");
  double y[] = {1, 2, 3, 100};
  cb_stats_compute(y, 4, &s);
  is_double(s.p99, 3 + 97 * 0.97, 1e-9, "4 samples: p99 interpolates toward the outlier");
}

/* --stat chooses time_us, and algbw and busbw follow it. */
static void test_choose(void) {
  struct cb_record r = {.time_us_median = 10, .time_us_mean = 20, .time_us_min = 5};
  static const struct {
    int stat;
    const char *name;
    double time;
  } want[] = {{CB_STAT_MEDIAN, "median", 10}, {CB_STAT_MEAN, "mean", 20}, {CB_STAT_MIN, "min", 5}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    cb_record_choose(&r, want[i].stat, 1000000, 1.5); /* 1 MB, busbw factor of 4 ranks */
    is_str(r.stat, want[i].name, "--stat %s names itself", want[i].name);
    is_double(r.time_us, want[i].time, 0, "--stat %s: time_us is the %s", want[i].name,
              want[i].name);
    is_double(r.algbw_GBps, 1e6 / (want[i].time * 1e-6) / 1e9, 1e-9,
              "--stat %s: algbw = bytes / that time", want[i].name);
    is_double(r.busbw_GBps, 1.5 * r.algbw_GBps, 1e-9, "--stat %s: busbw follows", want[i].name);
  }
  is_long(cb_stat_find("mean"), CB_STAT_MEAN, "cb_stat_find mean");
  is_long(cb_stat_find("average"), -1, "cb_stat_find: no such statistic");
  r.time_us_mean = 0;
  cb_record_choose(&r, CB_STAT_MEAN, 1000000, 1.5);
  ok(r.algbw_GBps == 0 && r.busbw_GBps == 0, "a zero time gives zero bandwidth, not infinity");
}

/* 1..100: the CI of the median spans order statistics
 * floor(n/2 - 1.96*sqrt(n)/2) and ceil(n/2 + 1.96*sqrt(n)/2 + 1), 1-based. */
static void test_hundred(void) {
  double x[100];
  for (int i = 0; i < 100; i++)
    x[i] = i + 1;
  reverse(x, 100);
  struct cb_stats s;
  cb_stats_compute(x, 100, &s);
  double half = 1.96 * sqrt(100.0) / 2.0; /* 9.8 */
  long lo = (long)floor(50 - half), hi = (long)ceil(50 + half + 1);
  is_long(lo, 40, "1..100: lower CI rank is 40");
  is_long(hi, 61, "1..100: upper CI rank is 61");
  /* with x[i] = i + 1 the k-th order statistic is k itself */
  is_double(s.ci95, (61.0 - 40.0) / 2.0, TOL, "1..100: ci95 = (x(61) - x(40)) / 2 = 10.5");
  is_double(s.median, 50.5, TOL, "1..100: median");
  is_double(s.p5, 5.95, 1e-9, "1..100: p5");
  is_double(s.p95, 95.05, 1e-9, "1..100: p95");
  is_double(s.mean, 50.5, TOL, "1..100: mean");
  is_double(s.stddev, sqrt(100.0 * 101.0 / 12.0), 1e-9, "1..100: stddev");
  ok(s.median - s.ci95 >= s.min && s.median + s.ci95 <= s.max, "1..100: CI inside the data");
}

/* Evenly spaced quantiles of one distribution (exponential, skewed like
 * timings): more samples must give a narrower CI of the same median. */
static void test_ci_shrinks(void) {
  static double x[100000];
  size_t sizes[] = {10, 30, 100, 1000, 10000, 100000};
  double prev = INFINITY;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    for (size_t i = 0; i < n; i++)
      x[i] = 10.0 - 2.0 * log(1.0 - ((double)i + 0.5) / (double)n);
    reverse(x, n);
    struct cb_stats s;
    cb_stats_compute(x, n, &s);
    ok(s.ci95 > 0 && s.ci95 < prev, "CI shrinks: n=%zu ci95=%g < %g", n, s.ci95, prev);
    prev = s.ci95;
  }
  /* n=10: the CI ranks are 1 and n, so the CI is the whole range */
  double t[10];
  for (int i = 0; i < 10; i++)
    t[i] = i * i;
  struct cb_stats s;
  cb_stats_compute(t, 10, &s);
  is_double(s.ci95, (81.0 - 0.0) / 2.0, TOL, "n=10: CI clamps to the whole range");
  /* large n: the CI approaches 1.96*sqrt(n)/n ranks around the median */
  ok(prev < 0.02, "n=100000: ci95 %g is small", prev);
}

/* Student's t against printed tables (Abramowitz and Stegun, table 26.10;
 * NIST/SEMATECH e-Handbook 1.3.6.7.2): two-sided 95% and one-sided 99%
 * points, and the Cauchy case (df 1) in closed form. */
static void test_t_distribution(void) {
  static const struct {
    double df, p, t;
  } table[] = {{1, 0.975, 12.706}, {2, 0.975, 4.303}, {4, 0.975, 2.776}, {10, 0.975, 2.228},
               {30, 0.975, 2.042}, {4, 0.99, 3.747},  {40, 0.99, 2.423}, {120, 0.95, 1.658}};
  int bad = 0;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    double q = cb_t_quantile(table[i].p, table[i].df);
    if (fabs(q - table[i].t) > 0.0006 ||
        fabs(cb_t_cdf(table[i].t, table[i].df) - table[i].p) > 2e-4)
      bad++, diag("df %g p %g: table %g, got %.5f", table[i].df, table[i].p, table[i].t, q);
  }
  ok(bad == 0, "t quantiles and CDF match the printed table (8 points)");
  double t = -2.5; /* df 1: P(T <= t) = 1/2 + atan(t)/pi */
  ok(fabs(cb_t_cdf(t, 1) - (0.5 + atan(t) / M_PI)) < 1e-10, "df 1 is Cauchy's CDF");
  ok(cb_t_cdf(0, 7) == 0.5 && fabs(cb_t_cdf(1.3, 5) + cb_t_cdf(-1.3, 5) - 1) < 1e-12,
     "symmetric about 0");
  ok(isnan(cb_t_quantile(0, 3)) && isnan(cb_t_quantile(1, 3)) && isnan(cb_t_cdf(1, 0)) &&
         isnan(cb_t_cdf(NAN, 3)) && cb_t_cdf(INFINITY, 3) == 1,
     "p at 0 or 1, df 0 and NaN give NaN; +inf gives 1");
}

int main(void) {
  test_odd();
  test_even();
  test_tiny();
  test_hundred();
  test_ci_shrinks();
  test_run_mean();
  test_p99();
  test_choose();
  test_t_distribution();
  done_testing();
  return exit_status();
}
