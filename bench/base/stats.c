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
