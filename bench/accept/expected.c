/* The model's figure behind "80% model" levels (expected.h). */
#include "expected.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/stats.h"
#include "model/groups.h"
#include "model/nccl_predict.h"
#include "ops/op.h"
#include "runtime/memory.h"

int cb_check_uses_model(const struct cb_check *c) {
  for (int k = 0; k < 2; k++) {
    const struct cb_threshold *th = k ? &c->warn : &c->fail;
    if (th->set && (th->reference == CB_REF_MODEL || th->reference == CB_REF_HEALTHY))
      return 1;
  }
  return 0;
}

void cb_expected_scale(const struct cb_accept_spec *t, int *ranks, int *nodes) {
  *nodes = t->system.nodes > 0 ? t->system.nodes : 1;
  *ranks = *nodes * (t->system.ranks_per_node > 0 ? t->system.ranks_per_node : 1);
}

/* Time and bus bandwidth (seconds, bytes/s) into the check's metric, in
 * the verdict's unit. */
static double in_unit(const struct cb_check *c, double time_s, double busbw_Bps) {
  if (c->metric == CB_METRIC_TIME)
    return time_s * 1e6;
  return (c->metric == CB_METRIC_BUSBW ? busbw_Bps : (double)c->bytes / time_s) * 1e-9;
}

static int from_nccl(const struct cb_accept_spec *t, const struct cb_check *c, int mop, int ranks,
                     int per_node, struct cb_expected *e, char *why, size_t len) {
  struct cb_nccl_expectation x;
  if (cb_nccl_expect(&t->system, mop, c->dtype, ranks, per_node, (double)c->bytes, &x, why, len))
    return -1;
  e->value = in_unit(c, x.choice.time_s, x.choice.busbw_Bps);
  snprintf(e->newer, sizeof e->newer, "%s", x.newer ? x.newer : "");
  snprintf(e->pick, sizeof e->pick, "%s/%s", cb_nc_algo_names[x.choice.algo],
           cb_nc_proto_names[x.choice.proto]);
  snprintf(e->source, sizeof e->source, "NCCL's cost model (v2.28.9-1, uncalibrated)");
  if (isnan(x.ratio_lo)) {
    snprintf(e->band, sizeof e->band, "%s: no published figure, its error is unknown", x.band.name);
    return 0;
  }
  /* the band is of measured / predicted time; a bandwidth goes the other way */
  int is_time = c->metric == CB_METRIC_TIME;
  e->lo = is_time ? e->value * x.ratio_lo : e->value / x.ratio_hi;
  e->hi = is_time ? e->value * x.ratio_hi : e->value / x.ratio_lo;
  e->center = x.band.center, e->scale = x.band.scale, e->df = x.band.df;
  char versions[96];
  snprintf(e->band, sizeof e->band,
           "where %.0f%% of healthy systems measure: %s, %d published figures (%s; the model "
           "follows 2.28.9; bench/model/PLANNING.md)",
           100 * CB_NC_COVERAGE, x.band.name, x.band.figures,
           cb_nc_band_versions(&x.band, versions, sizeof versions));
  /* each level's false alarms: a healthy system's busbw under the level's
   * fraction of the model's (a time level at m times the model's: 1/m) */
  const struct cb_threshold *th[2] = {&c->fail, &c->warn};
  double *alarm[2] = {&e->alarm_fail, &e->alarm_warn};
  for (int k = 0; k < 2; k++) {
    if (!th[k]->set || th[k]->reference == CB_REF_MEMBW || th[k]->reference == CB_REF_PAIRBW)
      continue;
    double level = cb_level_value(c, th[k], (double[CB_NREFS]){0}, e);
    *alarm[k] = cb_nc_band_below(&x.band, is_time ? e->value / level : level / e->value);
  }
  snprintf(e->beyond, sizeof e->beyond, "%s", x.beyond);
  return 0;
}

static int from_tiers(const struct cb_accept_spec *t, const struct cb_check *c, int mop, int ranks,
                      int per_node, struct cb_expected *e, char *why, size_t len) {
  if (t->system.gpus_per_node > 0) {
    snprintf(why, len,
             "on a GPU system the model describes NCCL (backend = nccl); the file's tiers are "
             "the GPUs' links, not the path of backend %s with %s memory",
             c->backend_name, cb_mem_names[c->mem]);
    return -1;
  }
  struct cb_fit_groups none = {0};
  struct cb_system s = {.ranks_per_node = per_node};
  char from[CB_NTIERS][200] = {"", ""};
  cb_fit_system(&none, &t->system, mop, &s, from);
  struct cb_prediction p;
  if (ranks < 2) {
    snprintf(why, len, "one rank has no one to communicate with");
    return -1;
  }
  int algo = cb_model_best(mop, &s, ranks, (double)c->bytes, &p);
  if (algo < 0) {
    snprintf(why, len,
             "the file's tiers do not describe %d ranks on %d node%s (an %s tier with bandwidth "
             "and latency is needed)",
             ranks, (ranks + per_node - 1) / per_node, ranks > per_node ? "s" : "",
             ranks > per_node ? "inter-node" : "intra-node");
    return -1;
  }
  e->value = in_unit(c, p.time_s, p.busbw_Bps);
  snprintf(e->pick, sizeof e->pick, "%s", cb_algo_names[algo]);
  snprintf(e->source, sizeof e->source, "the alpha-beta model on the file's tiers");
  snprintf(e->band, sizeof e->band,
           "none: the tiers' figures are nominal, no measurement states the model's error on "
           "them (--validate on runs of this system does)");
  return 0;
}

int cb_expected_of(const struct cb_accept_spec *t, const struct cb_check *c, int ranks, int nodes,
                   struct cb_expected *e, char *why, size_t len) {
  memset(e, 0, sizeof *e);
  e->lo = e->hi = e->alarm_fail = e->alarm_warn = e->center = e->scale = e->df = NAN;
  e->ranks = ranks, e->nodes = nodes > 0 ? nodes : 1;
  int per_node = (ranks + e->nodes - 1) / e->nodes;
  int mop = cb_mop_find(cb_ops[c->op]->name), rc = -1;
  snprintf(why, len, "its answer is not a finite figure");
  if (mop < 0)
    snprintf(why, len, "the model has no %s (its ops: the collectives)", cb_ops[c->op]->name);
  else if (strcmp(c->backend_name, "nccl") == 0)
    rc = from_nccl(t, c, mop, ranks, per_node, e, why, len);
  else
    rc = from_tiers(t, c, mop, ranks, per_node, e, why, len);
  if (rc == 0 && isnan(e->center))
    for (int k = 0; k < 2; k++) /* a share of healthy systems needs a band */
      if ((k ? &c->warn : &c->fail)->set &&
          (k ? &c->warn : &c->fail)->reference == CB_REF_HEALTHY) {
        snprintf(why, len,
                 "no published figure gives its error (%s), so no share of healthy "
                 "systems can be placed",
                 e->band);
        return -1;
      }
  return rc == 0 && isfinite(e->value) && e->value > 0 ? 0 : -1;
}

int cb_expected_for(const struct cb_accept_spec *t, const struct cb_check *c, int ranks, int nodes,
                    struct cb_expected *e, struct cb_error *err) {
  char why[320];
  if (cb_expected_of(t, c, ranks, nodes, e, why, sizeof why) == 0)
    return CB_OK;
  const struct cb_threshold *th =
      c->fail.reference == CB_REF_MODEL || c->fail.reference == CB_REF_HEALTHY ? &c->fail
                                                                               : &c->warn;
  return cb_fail(err, CB_USAGE,
                 "%s:%d: [check %s] %s: a model level, but the model cannot say what %d rank%s "
                 "on %d node%s should measure here: %s; give an absolute level instead",
                 t->system.path, th->line, c->name, th == &c->fail ? "fail" : "warn", ranks,
                 ranks == 1 ? "" : "s", e->nodes, e->nodes == 1 ? "" : "s", why);
}

double cb_level_value(const struct cb_check *c, const struct cb_threshold *th, const double *refs,
                      const struct cb_expected *e) {
  if (!th->set)
    return NAN;
  double scale = c->metric == CB_METRIC_TIME ? 1e6 : 1e-9; /* base units to us or GB/s */
  if (th->reference == CB_REF_MODEL)
    return e ? th->value * e->value : NAN;
  if (th->reference == CB_REF_HEALTHY) { /* the band's quantile: a busbw fraction of the model's */
    if (!e || isnan(e->center))
      return NAN;
    double fraction = exp(e->center + e->scale * cb_t_quantile(th->value, e->df));
    return c->metric == CB_METRIC_TIME ? e->value / fraction : e->value * fraction;
  }
  return cb_threshold_value(th, refs) * scale;
}
