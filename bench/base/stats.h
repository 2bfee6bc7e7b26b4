/* Summary statistics of timing samples. */
#ifndef CB_STATS_H
#define CB_STATS_H

#include <stddef.h>

struct cb_stats {
  size_t n;
  double median, min, max, p5, p95, p99, mean, stddev; /* mean: per sample */
  /* Half-width of a distribution-free 95% confidence interval of the
   * median (order statistics, normal approximation of the binomial). */
  double ci95;
  double ci_lo, ci_hi; /* the interval's ends themselves (order statistics) */
};

/* Sorts `samples` in place and fills `out`. n == 0 gives all zeros. */
void cb_stats_compute(double *samples, size_t n, struct cb_stats *out);

/* Sorts v ascending, in place (a NaN lands anywhere). */
void cb_sort_doubles(double *v, size_t n);

/* The median of sorted data: the middle value, or the mean of the two
 * middle ones; NaN when n == 0. */
double cb_median_sorted(const double *sorted, size_t n);

/* Linear-interpolated quantile q in [0,1] of sorted data. */
double cb_quantile_sorted(const double *sorted, size_t n, double q);

/* The anchors' mean (nccl-tests, OSU, IMB): total timed seconds over the
 * runs timed. Batches of different sizes weigh by their runs, which the
 * mean of per-sample times does not do. Add each timed batch as it comes. */
struct cb_run_mean {
  double seconds; /* total timed */
  long runs;      /* runs in it */
};
void cb_run_mean_add(struct cb_run_mean *m, double seconds_per_run, long runs);
/* Seconds per run; 0 when nothing was added. */
double cb_run_mean(const struct cb_run_mean *m);

/* Student's t distribution with df degrees of freedom (the prediction
 * intervals of bench/model/nccl_band.c): P(T <= t), and the t with
 * P(T <= t) = p. NaN for a NaN t, a p outside (0, 1) or df <= 0. */
double cb_t_cdf(double t, double df);
double cb_t_quantile(double p, double df);

#endif
