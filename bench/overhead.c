#include "overhead.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct cb_overhead cb_overhead_of(double t_step, double t_step_ci, double t_compute,
                                  double t_compute_ci) {
  if (!(t_step > 0))
    return (struct cb_overhead){NAN, NAN};
  double by_compute = t_compute_ci / t_step, by_step = t_compute * t_step_ci / (t_step * t_step);
  return (struct cb_overhead){(t_step - t_compute) / t_step, hypot(by_compute, by_step)};
}

double cb_overhead_from_rho(double rho) {
  return rho > -1 ? rho / (1 + rho) : NAN;
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

const char *cb_overhead_verdict(struct cb_overhead o, double target, char *buf, unsigned len) {
  snprintf(buf, len, "%s (target %g%%%s)", cb_overhead_within(o.value, target) ? "PASS" : "FAIL",
           100 * target, fabs(o.value - target) <= o.ci95 ? ", the target inside the 95% CI" : "");
  return buf;
}
