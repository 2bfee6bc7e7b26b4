/* Planning's answer: up to how many GPUs does a training step keep its
 * communication overhead within the target? */
#include <math.h>

#include "model.h"
#include "results/overhead.h"

/* The predicted overhead at n GPUs, or NaN when it cannot be predicted. */
static double overhead_at(const struct cb_system *s, long n, double compute_s, double grad_bytes,
                          double bucket_bytes, const struct cb_step_opts *opt) {
  struct cb_step_result r;
  if (cb_model_step(s, (int)n, compute_s, grad_bytes, bucket_bytes, opt, &r))
    return NAN;
  return cb_overhead_from_rho(r.rho);
}

int cb_model_max_gpus(const struct cb_system *allreduce, double compute_s, double grad_bytes,
                      double bucket_bytes, double target, const struct cb_step_opts *opt,
                      struct cb_scale *out) {
  *out = (struct cb_scale){0, 0, NAN};
  double o = overhead_at(allreduce, 1, compute_s, grad_bytes, bucket_bytes, opt);
  if (isnan(o))
    return -1;
  if (!cb_overhead_within(o, target)) { /* not even one GPU (a target below 0) */
    out->next = o;
    return 0;
  }
  long lo = 1, hi = 2; /* within at lo; hi is tried next */
  double o_hi = NAN;
  for (; hi <= CB_MODEL_MAX_GPUS; lo = hi, hi *= 2) {
    o_hi = overhead_at(allreduce, hi, compute_s, grad_bytes, bucket_bytes, opt);
    if (isnan(o_hi))
      return -1;
    if (!cb_overhead_within(o_hi, target))
      break;
  }
  if (hi > CB_MODEL_MAX_GPUS) {
    *out = (struct cb_scale){lo, 1, NAN};
    return 0;
  }
  while (hi - lo > 1) { /* within at lo, not at hi */
    long mid = lo + (hi - lo) / 2;
    double o_mid = overhead_at(allreduce, mid, compute_s, grad_bytes, bucket_bytes, opt);
    if (cb_overhead_within(o_mid, target))
      lo = mid;
    else
      hi = mid, o_hi = o_mid;
  }
  *out = (struct cb_scale){lo, 0, o_hi};
  return 0;
}
