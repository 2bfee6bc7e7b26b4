/* Robust statistics for fleet baselines (--baseline, --compare): the
 * median and MAD resist the one bad node a fleet sample holds, where a mean
 * and standard deviation would follow it. Pure functions, unit-tested. */
#ifndef CB_ROBUST_H
#define CB_ROBUST_H

#include <stddef.h>
#include <stdint.h>

/* A sample's distribution: n, median, MAD (raw, not scaled), quantiles. */
struct cb_dist {
  int n;
  double median, mad, p5, p10, p90, p95, min, max;
  /* Half-width of the 95% CI of the median: from the MAD when n >= 2,
   * else what the single measurement said of itself (0: unknown). */
  double ci95;
};

/* Sorts v in place and fills d (n == 0: all zeros). ci95_one is the
 * measurement's own CI half-width, used when n == 1. */
void cb_dist_compute(double *v, int n, double ci95_one, struct cb_dist *d);

/* The spread a z-score divides by: 1.4826 x MAD (the standard deviation of
 * a normal sample with that MAD), but never under `floor_rel` of the median,
 * so a fleet of identical figures does not make every jitter an outlier. */
double cb_dist_sigma(const struct cb_dist *d, double floor_rel);

/* Robust z-score of x, signed so that negative is worse: higher_better
 * for bandwidths, not for times. */
double cb_robust_z(const struct cb_dist *d, double x, int higher_better, double floor_rel);

/* The ratio new/old of two medians with a 95% CI from their CI
 * half-widths (delta method on the logarithm). */
struct cb_ratio {
  double ratio, lo, hi;
};
struct cb_ratio cb_ratio_ci(double old_v, double old_ci95, double new_v, double new_ci95);

/* The spread between launches of one command that a launch's own interval
 * cannot see (bench/engine/FIGURES.md, "The interval is of one launch"): a
 * relative standard deviation (of the log) by message size, measured
 * between launches on an H100 (robust.c says how); a noisier machine
 * measures its own (scripts/compare-falsealarms.sh) and gives it. */
double cb_launch_sigma(uint64_t bytes);

/* The ratio new/old of two figures, each a cb_dist of n launches, with a
 * 95% CI that counts `sigma`, the spread between launches (relative, of the
 * log; cb_launch_sigma by size): a side of one launch adds it to its own
 * interval; a side of several has that spread in its MAD, never taken
 * under sigma's share for n launches (a few launches may agree by chance).
 * NAN bounds when a one-launch side has no interval of its own. */
struct cb_ratio cb_ratio_launches(const struct cb_dist *old_d, const struct cb_dist *new_d,
                                  double sigma);

/* Defaults of the verdict rule (topologies/ACCEPTANCE.md, "Baselines"). */
#define CB_BASELINE_K 5.0            /* z under -K fails */
#define CB_BASELINE_MIN_N 5          /* fewer runs: cannot judge */
#define CB_BASELINE_FLOOR 0.02       /* spread floor: 2% of the median */
#define CB_BASELINE_SHARE_FLOOR 0.10 /* a node's share of its run: 10% */
#define CB_BASELINE_REPEAT 1         /* re-measures of a suspect before it fails */
#define CB_COMPARE_MIN_RATIO 1.1     /* --compare: slower means CI above 10% slower */

#endif
