/* Summary statistics of timing samples. */
#ifndef CB_STATS_H
#define CB_STATS_H

#include <stddef.h>

struct cb_stats {
  size_t n;
  double median, min, max, p5, p95, mean, stddev;
  /* Half-width of a distribution-free 95% confidence interval of the
   * median (order statistics, normal approximation of the binomial). */
  double ci95;
};

/* Sorts `samples` in place and fills `out`. n == 0 gives all zeros. */
void cb_stats_compute(double *samples, size_t n, struct cb_stats *out);

/* Linear-interpolated quantile q in [0,1] of sorted data. */
double cb_quantile_sorted(const double *sorted, size_t n, double q);

#endif
