/* Each defect priced in step time (cost.h). */
#include "cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/dtype.h"
#include "expected.h"
#include "model/defect.h"

int cb_pricing_scale(const struct cb_accept_spec *t, int ranks) {
  if (t->system.scale > 0)
    return t->system.scale;
  return t->system.nodes > 0
             ? t->system.nodes * (t->system.ranks_per_node > 0 ? t->system.ranks_per_node : 1)
             : ranks;
}

int cb_pricing_of(const struct cb_accept_spec *t, const double *measured_compute_s, int ranks,
                  struct cb_pricing *p) {
  memset(p, 0, sizeof *p);
  if (t->nsteps == 0)
    return -1;
  const struct cb_step_check *s = &t->steps[0];
  p->step = s;
  p->gpus = cb_pricing_scale(t, ranks);
  p->per_node = t->system.ranks_per_node > 0 ? t->system.ranks_per_node : 1;
  p->grad_bytes = (double)cb_model_grad_bytes(&s->model);
  p->bucket_bytes = fmin(s->bucket_bytes > 0 ? (double)s->bucket_bytes : 25.0 * (1 << 20),
                         p->grad_bytes); /* DDP's default, capped as the step is */
  static const int dtypes[CB_MODEL_NDTYPES] = {CB_FLOAT, CB_BFLOAT16, CB_HALF};
  p->dtype = dtypes[s->model.dtype];
  if (s->compute_s > 0) {
    p->compute_s = s->compute_s;
    snprintf(p->compute_from, sizeof p->compute_from, "[step %s] compute_time", s->name);
  } else if (measured_compute_s && measured_compute_s[0] > 0) {
    p->compute_s = measured_compute_s[0];
    snprintf(p->compute_from, sizeof p->compute_from, "[step %s]'s T_compute measured here",
             s->name);
  }
  return p->compute_s > 0 ? 0 : -1;
}

int cb_cost_price(const struct cb_pricing *p, const struct cb_accept_spec *t,
                  const struct cb_check *c, const struct cb_verdict *v, const struct cb_expected *e,
                  int ranks, int nodes, struct cb_cost *out) {
  if ((v->status != CB_FAIL && v->status != CB_WARN) || c->metric == CB_METRIC_TIME)
    return -1;
  memset(out, 0, sizeof *out);
  out->gpus = p->gpus;
  snprintf(out->workload, sizeof out->workload, "%s", p->step->model.name);
  out->factor = out->step_s[0] = out->step_s[1] = out->overhead[0] = out->overhead[1] = NAN;
  struct cb_expected own;
  char why[320];
  if (!e && cb_expected_of(t, c, ranks, nodes, &own, why, sizeof why) == 0)
    e = &own;
  if (!e) {
    snprintf(out->why, sizeof out->why, "the model has no figure for this check: %.150s", why);
    return 0;
  }
  if (isnan(v->measured)) {
    snprintf(out->why, sizeof out->why, "nothing measured");
    return 0;
  }
  out->factor = v->measured / e->value;
  struct cb_defect_step d;
  if (cb_defect_price(&t->system, p->per_node, nodes > 1, out->factor, p->gpus, p->dtype,
                      p->compute_s, p->grad_bytes, p->bucket_bytes, &d, out->why, sizeof out->why))
    return 0;
  memcpy(out->step_s, d.step_s, sizeof d.step_s);
  memcpy(out->overhead, d.overhead, sizeof d.overhead);
  return 0;
}
