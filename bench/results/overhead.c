/* Communication overhead of a training step, the one definition every mode prints and judges
 * (--tune, --predict, --report, --accept's [step]) (overhead.h says more). */
#include "overhead.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "verdict.h"

double cb_overhead_from_rho(double rho) {
  return rho > -1 ? rho / (1 + rho) : NAN;
}

/* An interval's end: at rho <= -1 (a step of no time) the map's limit. */
static double end_from_rho(double rho) {
  return rho > -1 ? rho / (1 + rho) : -INFINITY;
}

struct cb_overhead cb_overhead_from_rho_interval(double rho, double rho_lo, double rho_hi) {
  if (isnan(rho) || isnan(rho_lo) || isnan(rho_hi))
    return (struct cb_overhead){NAN, NAN, NAN, NAN, 0};
  double value = end_from_rho(rho), lo = end_from_rho(fmin(rho_lo, rho_hi)),
         hi = end_from_rho(fmax(rho_lo, rho_hi));
  struct cb_overhead o = {value, 0, lo > 0 ? lo : 0, hi, value < 0};
  if (o.noise)
    o.value = 0;
  o.ci95 = o.hi > o.lo ? (o.hi - o.lo) / 2 : 0;
  return o;
}

struct cb_overhead cb_overhead_from_rho_ci(double rho, double rho_ci95) {
  return cb_overhead_from_rho_interval(rho, rho - rho_ci95, rho + rho_ci95);
}

int cb_overhead_parse(const char *text, const char *what, double *out, struct cb_error *err) {
  char *end;
  double v = strtod(text, &end);
  int percent = end != text && *end == '%';
  if (percent)
    v /= 100, end++;
  if (end == text || *end || !(v > 0 && v < 1))
    return cb_fail(err, CB_USAGE,
                   "%s: '%s' is not a share of the step strictly between 0 and 100%% "
                   "(e.g. 20%% or 0.2)",
                   what, text);
  *out = v;
  return CB_OK;
}

int cb_overhead_within(double value, double target) {
  return value <= target; /* false for NaN */
}

int cb_overhead_judge(struct cb_overhead o, double target) {
  if (!(o.hi >= 0))
    return CB_INCONCLUSIVE; /* NaN, or every plausible step shorter than its compute */
  return cb_verdict_interval(o.lo, o.hi, target, 1);
}

const char *cb_overhead_verdict(struct cb_overhead o, double target, char *buf, unsigned len) {
  int status = cb_overhead_judge(o, target);
  if (isnan(o.hi))
    snprintf(buf, len, "INCONCLUSIVE (target %g%%: no overhead measured)", 100 * target);
  else if (o.hi < 0)
    snprintf(buf, len,
             "INCONCLUSIVE (target %g%%: the step measured shorter than its compute across the "
             "whole 95%% CI, which no real step is: a quieter machine would settle it)",
             100 * target);
  else
    snprintf(buf, len, "%s (target %g%%%s 95%% CI %.1f%% to %.1f%%%s)", cb_verdict_names[status],
             100 * target, status == CB_INCONCLUSIVE ? " inside the" : ",", 100 * o.lo, 100 * o.hi,
             status == CB_INCONCLUSIVE ? ": more rounds or a quieter machine would settle it" : "");
  return buf;
}

const char *cb_overhead_format(struct cb_overhead o, char *buf, unsigned len) {
  if (o.noise)
    snprintf(buf, len, "noise (the step measured shorter than its compute)");
  else
    snprintf(buf, len, "%.1f%%", 100 * o.value);
  return buf;
}
