/* Robust statistics for fleet baselines (--baseline, --compare) (robust.h says more). */
#include "robust.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void cb_dist_compute(double *v, int n, double ci95_one, struct cb_dist *d) {
  memset(d, 0, sizeof *d);
  if (n <= 0)
    return;
  cb_sort_doubles(v, (size_t)n);
  d->n = n;
  d->median = cb_quantile_sorted(v, (size_t)n, 0.5);
  d->p5 = cb_quantile_sorted(v, (size_t)n, 0.05);
  d->p10 = cb_quantile_sorted(v, (size_t)n, 0.10);
  d->p90 = cb_quantile_sorted(v, (size_t)n, 0.90);
  d->p95 = cb_quantile_sorted(v, (size_t)n, 0.95);
  d->min = v[0];
  d->max = v[n - 1];
  double *dev = malloc((size_t)n * sizeof *dev);
  if (!dev)
    return;
  for (int i = 0; i < n; i++)
    dev[i] = fabs(v[i] - d->median);
  cb_sort_doubles(dev, (size_t)n);
  d->mad = cb_quantile_sorted(dev, (size_t)n, 0.5);
  free(dev);
  /* the median's standard error is sqrt(pi/2) sigma / sqrt(n) for a normal sample */
  d->ci95 = n >= 2 ? 1.96 * 1.2533 * 1.4826 * d->mad / sqrt((double)n) : ci95_one;
}

double cb_dist_sigma(const struct cb_dist *d, double floor_rel) {
  double s = 1.4826 * d->mad, floor = floor_rel * fabs(d->median);
  return s > floor ? s : floor;
}

double cb_robust_z(const struct cb_dist *d, double x, int higher_better, double floor_rel) {
  double s = cb_dist_sigma(d, floor_rel);
  if (!(s > 0))
    return x == d->median ? 0 : (x - d->median > 0) == !!higher_better ? INFINITY : -INFINITY;
  double z = (x - d->median) / s;
  return higher_better ? z : -z;
}

struct cb_ratio cb_ratio_ci(double old_v, double old_ci95, double new_v, double new_ci95) {
  struct cb_ratio r = {new_v / old_v, NAN, NAN};
  double a = old_ci95 / 1.96 / old_v, b = new_ci95 / 1.96 / new_v;
  double se = sqrt(a * a + b * b);
  r.lo = r.ratio * exp(-1.96 * se);
  r.hi = r.ratio * exp(1.96 * se);
  return r;
}

/* Between launches on real hardware, the GPU visits' (tests/measured-2026.md,
 * "Second GPU visit"; bench/backends/GPUS.md): 10 launches of each tool on
 * an H100, interleaved. At 64 and 256 MiB each tool's launches spanned
 * 1.00x to 1.10x (max/min): ln 1.10 / 3.08, the expected range of 10
 * normal draws in sigmas, is 0.031. Below 1 MiB plain launches (5-10 us)
 * spanned 1.6x to 6x, the quietest 1.6x: ln 1.6 / 3.08 = 0.15 (with CUDA
 * graphs 6%: a machine whose small calls are that steady gives
 * --launch-spread). Between 1 and 32 MiB nothing was measured: the
 * geometric mean of the two, 0.07. This development VM needs 0.70-0.87
 * (measured-2026.md, "--compare between launches"): its tests say so. */
static const struct {
  uint64_t upto; /* bytes, inclusive */
  double sigma;
} launch_spread[] = {
    {1 << 20, 0.15},
    {32 << 20, 0.07},
    {UINT64_MAX, 0.031},
};

double cb_launch_sigma(uint64_t bytes) {
  size_t i = 0;
  while (bytes > launch_spread[i].upto)
    i++;
  return launch_spread[i].sigma;
}

/* One side's relative standard error of its median (see the header). */
static double side_se(const struct cb_dist *d, double sigma) {
  double own = d->ci95 / 1.96 / d->median;
  if (d->n < 2)
    return sqrt(own * own + sigma * sigma);           /* NAN stays NAN: no interval */
  double least = 1.2533 * sigma / sqrt((double)d->n); /* the median's share of it */
  return own > least ? own : least;
}

struct cb_ratio cb_ratio_launches(const struct cb_dist *old_d, const struct cb_dist *new_d,
                                  double sigma) {
  /* cb_ratio_ci's delta method, on each side's widened half-width */
  double a = side_se(old_d, sigma), b = side_se(new_d, sigma);
  return cb_ratio_ci(old_d->median, 1.96 * a * old_d->median, new_d->median,
                     1.96 * b * new_d->median);
}
