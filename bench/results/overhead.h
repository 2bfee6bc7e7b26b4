/* Communication overhead of a training step, the one definition every
 * mode prints and judges (--tune, --predict, --report, --accept's [step]):
 * overhead = exposed communication / step time = (T_step - T_compute) /
 * T_step = rho / (1 + rho), rho = (T_step - T_compute) / T_compute.
 *
 * Both come from the same paired rounds (one round's compute-only step
 * and its full step): rho per round, its median and 95% interval, and the
 * overhead is that median and interval mapped through rho / (1 + rho),
 * which is increasing, so the two can never disagree. Medians of T_step
 * and T_compute taken apart cannot give it: they may come from different
 * rounds, and a busy moment in one phase's rounds made the step look
 * shorter than its compute. Pure functions, unit-tested. */
#ifndef CB_OVERHEAD_H
#define CB_OVERHEAD_H

#include "base/error.h"

#define CB_OVERHEAD_DEFAULT_TARGET 0.2 /* the planners' "keep it under 20%" */

struct cb_overhead {
  /* A fraction of the step, never below 0 (a step cannot be shorter than
   * its compute); NaN when unknown. */
  double value;
  double ci95;   /* (hi - lo) / 2, for outputs that carry one number */
  double lo, hi; /* the 95% interval; lo clipped at 0, hi as estimated */
  /* The median round's step was shorter than its compute: the estimate is
   * noise, and value is the physical floor 0, not a measurement. */
  int noise;
};

/* From the paired rho's median and the ends of its 95% interval. */
struct cb_overhead cb_overhead_from_rho_interval(double rho, double rho_lo, double rho_hi);

/* The same from a median and a symmetric half-width, as the --trials
 * summary line stores rho. */
struct cb_overhead cb_overhead_from_rho_ci(double rho, double rho_ci95);

/* rho / (1 + rho); NaN at rho <= -1 (a step of no time). */
double cb_overhead_from_rho(double rho);

/* "20%" or "0.2": a share strictly between 0 and 1; anything else is
 * CB_USAGE naming `what` and the text. */
int cb_overhead_parse(const char *text, const char *what, double *out, struct cb_error *err);

/* 1 when the overhead is within the target (value <= target), else 0;
 * NaN is never within. For predictions, which are points. */
int cb_overhead_within(double value, double target);

/* The three-way judgement of a measured overhead against the target
 * (bench/base/verdict.h's rule on [lo, hi]): CB_PASS, CB_FAIL or
 * CB_INCONCLUSIVE; also CB_INCONCLUSIVE when even hi is below 0 (every
 * plausible round had the step shorter than its compute: the measurement
 * contradicts itself). */
int cb_overhead_judge(struct cb_overhead o, double target);

/* The verdict for people: "PASS (target 20%, 95% CI 3.1% to 12.0%)",
 * "FAIL (...)", or "INCONCLUSIVE (target 20% inside the 95% CI 3.1% to
 * 51.0%: more rounds (--tune-reps) or a quieter machine would settle it)". */
const char *cb_overhead_verdict(struct cb_overhead o, double target, char *buf, unsigned len);

/* The overhead for people: "4.1%", or "noise (the step measured shorter
 * than its compute)" when o.noise. */
const char *cb_overhead_format(struct cb_overhead o, char *buf, unsigned len);

#endif
