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
