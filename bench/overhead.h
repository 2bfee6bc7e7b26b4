/* Communication overhead of a training step, the one definition every
 * mode prints and judges (--tune, --predict, --report, --accept's [step]):
 * overhead = exposed communication / step time = (T_step - T_compute) /
 * T_step. Pure functions, unit-tested against hand-computed cases. */
#ifndef CB_OVERHEAD_H
#define CB_OVERHEAD_H

#include "error.h"

#define CB_OVERHEAD_DEFAULT_TARGET 0.2 /* the planners' "keep it under 20%" */

struct cb_overhead {
  double value; /* a fraction of the step; NaN when T_step is not positive */
  double ci95;  /* half-width, propagated from the two times' half-widths */
};

/* From medians and their 95% CI half-widths (any one time unit). The CI
 * is first-order propagation of independent errors:
 * d/dT_compute = -1/T_step, d/dT_step = T_compute/T_step^2. */
struct cb_overhead cb_overhead_of(double t_step, double t_step_ci, double t_compute,
                                  double t_compute_ci);

/* The same from rho = exposed / compute (the model's ratio): rho / (1 + rho). */
double cb_overhead_from_rho(double rho);

/* "20%" or "0.2": a share strictly between 0 and 1; anything else is
 * CB_USAGE naming `what` and the text. */
int cb_overhead_parse(const char *text, const char *what, double *out, struct cb_error *err);

/* 1 when the overhead is within the target (value <= target), else 0;
 * NaN is never within. */
int cb_overhead_within(double value, double target);

/* The verdict for people: "PASS (target 20%)", "FAIL (target 20%)", with
 * ", the target inside the 95% CI" when |value - target| <= ci95. */
const char *cb_overhead_verdict(struct cb_overhead o, double target, char *buf, unsigned len);

#endif
