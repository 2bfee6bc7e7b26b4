/* Summary statistics of timing samples (stats.h says more). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int ascending(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void cb_sort_doubles(double *v, size_t n) {
  if (n > 1)
    qsort(v, n, sizeof *v, ascending);
}

double cb_median_sorted(const double *sorted, size_t n) {
  if (n == 0)
    return NAN;
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double cb_quantile_sorted(const double *sorted, size_t n, double q) {
  if (n == 0)
    return 0.0;
  double pos = q * (double)(n - 1);
  size_t lo = (size_t)floor(pos);
  size_t hi = lo + 1 < n ? lo + 1 : lo;
  double frac = pos - (double)lo;
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

void cb_stats_compute(double *samples, size_t n, struct cb_stats *out) {
  memset(out, 0, sizeof *out);
  if (n == 0)
    return;
  cb_sort_doubles(samples, n);
  out->n = n;
  out->min = samples[0];
  out->max = samples[n - 1];
  out->median = cb_quantile_sorted(samples, n, 0.5);
  out->p5 = cb_quantile_sorted(samples, n, 0.05);
  out->p95 = cb_quantile_sorted(samples, n, 0.95);
  out->p99 = cb_quantile_sorted(samples, n, 0.99);

  /* Welford: stable for long runs of nearly equal samples. */
  double mean = 0.0, m2 = 0.0;
  for (size_t i = 0; i < n; i++) {
    double delta = samples[i] - mean;
    mean += delta / (double)(i + 1);
    m2 += delta * (samples[i] - mean);
  }
  out->mean = mean;
  out->stddev = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0.0;

  /* The median's CI spans order statistics n/2 -+ 1.96*sqrt(n)/2
   * (1-based); with few samples it is the whole range. */
  double half = 1.96 * sqrt((double)n) / 2.0;
  double lo_rank = floor((double)n / 2.0 - half);
  double hi_rank = ceil((double)n / 2.0 + half + 1.0);
  size_t lo = lo_rank < 1.0 ? 0 : (size_t)lo_rank - 1;
  size_t hi = hi_rank > (double)n ? n - 1 : (size_t)hi_rank - 1;
  out->ci95 = (samples[hi] - samples[lo]) / 2.0;
  out->ci_lo = samples[lo], out->ci_hi = samples[hi];
}

void cb_run_mean_add(struct cb_run_mean *m, double seconds_per_run, long runs) {
  m->seconds += seconds_per_run * (double)runs;
  m->runs += runs;
}

double cb_run_mean(const struct cb_run_mean *m) {
  return m->runs > 0 ? m->seconds / (double)m->runs : 0.0;
}

/* The continued fraction of the regularized incomplete beta function
 * I_x(a, b) (Abramowitz and Stegun 26.5.8), by the modified Lentz method
 * (Press et al., Numerical Recipes, 3rd ed., 6.4 and 5.2). */
static double beta_fraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (fabs(d) < tiny ? tiny : d);
  double h = d;
  for (int m = 1; m <= 300; m++) {
    for (int odd = 0; odd < 2; odd++) {
      double aa = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                      : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
      d = 1 + aa * d;
      d = 1 / (fabs(d) < tiny ? tiny : d);
      c = 1 + aa / c;
      c = fabs(c) < tiny ? tiny : c;
      h *= d * c;
      if (odd && fabs(d * c - 1) < 1e-14)
        return h;
    }
  }
  return h;
}

static double incomplete_beta(double a, double b, double x) {
  if (x <= 0)
    return 0;
  if (x >= 1)
    return 1;
  double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
  /* the fraction converges fast on this side of the mean; the symmetry
   * I_x(a, b) = 1 - I_{1-x}(b, a) serves the other (A&S 26.5.2) */
  if (x < (a + 1) / (a + b + 2))
    return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double cb_t_cdf(double t, double df) {
  if (isnan(t) || !(df > 0))
    return NAN;
  if (isinf(t))
    return t > 0 ? 1 : 0;
  /* P(|T| > t) = I_{df / (df + t^2)}(df / 2, 1 / 2) (A&S 26.7.1 with 26.5.27) */
  double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t > 0 ? 1 - tail : tail;
}

double cb_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0))
    return NAN;
  double lo = -1e6, hi = 1e6; /* the CDF is monotone: bisect to double precision */
  for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
    double mid = 0.5 * (lo + hi);
    if (cb_t_cdf(mid, df) < p)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}
