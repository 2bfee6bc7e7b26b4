/* --accept FILE --dry-run (dry_run.h). */
#include "dry_run.h"

#include <math.h>
#include <string.h>

#include "base/units.h"
#include "cost.h"
#include "expected.h"
#include "ops/op.h"
#include "runtime/memory.h"

/* One level: its figure and where it comes from. */
static void put_level(FILE *out, const char *key, const struct cb_check *c,
                      const struct cb_threshold *th, const struct cb_expected *e,
                      const char *unit) {
  if (!th->set)
    return;
  double v = cb_level_value(c, th, (double[CB_NREFS]){0}, e);
  fprintf(out, "    %s: ", key);
  if (th->reference == CB_REF_NONE)
    fprintf(out, "%.5g %s\n", v, unit);
  else if (th->reference == CB_REF_MODEL)
    fprintf(out, "%g%% model = %.5g %s\n", th->value * 100, v, unit);
  else if (th->reference == CB_REF_HEALTHY)
    fprintf(out, "%g%% healthy = %.5g %s (%.3g of the model's figure)\n", th->value * 100, v, unit,
            v / e->value);
  else if (th->reference == CB_REF_MEMBW)
    fprintf(out, "%g%% membw: of the hosts' memory copy bandwidth, measured at the run's start\n",
            th->value * 100);
  else
    fprintf(out, "%g%% pairbw: of the [matrix]'s median pair bandwidth, measured in the run\n",
            th->value * 100);
  /* a level healthy systems can fall past: say how often, here, not after a run */
  double alarm = !e ? NAN : strcmp(key, "fail") == 0 ? e->alarm_fail : e->alarm_warn;
  if (!isnan(alarm))
    fprintf(out,
            "      false alarms: %s of healthy systems measure %s it (the band's "
            "distribution)\n",
            cb_chance_text(alarm, (char[32]){0}, 32),
            c->metric == CB_METRIC_TIME ? "over" : "under");
}

static void put_expected(FILE *out, const struct cb_expected *e, const char *unit) {
  fprintf(out, "    model: %.5g %s from %s, pick %s", e->value, unit, e->source, e->pick);
  if (!isnan(e->lo))
    fprintf(out, "; band [%.5g, %.5g] %s: %s\n", e->lo, e->hi, unit, e->band);
  else
    fprintf(out, "; band %s\n", e->band);
  if (e->beyond[0])
    fprintf(out, "    EXTRAPOLATED: %s: the band's error may not hold here\n", e->beyond);
  if (e->newer[0])
    fprintf(out, "    follows NCCL v2.28.9-1; %s\n", e->newer);
}

/* What a figure just at a level would cost the step at scale: the fail
 * level's, and the warn level's (issue 74: a planner sets both). */
static void put_cost(FILE *out, const struct cb_accept_spec *t, const struct cb_check *c,
                     const struct cb_threshold *th, int status, const struct cb_expected *e,
                     const struct cb_pricing *p, int ranks, int nodes, const char *unit) {
  double level = cb_level_value(c, th, (double[CB_NREFS]){0}, e);
  if (!th->set || th->reference == CB_REF_MEMBW || th->reference == CB_REF_PAIRBW || isnan(level))
    return; /* a level known only at run time */
  struct cb_verdict v = {.status = status, .measured = level};
  struct cb_cost cost;
  char text[320];
  if (cb_cost_price(p, t, c, &v, e, ranks, nodes, &cost) == 0)
    fprintf(out, "    a %s at %.5g %s costs: %s\n", cb_verdict_names[status], level, unit,
            cb_cost_text(&cost, text, sizeof text));
}

int cb_accept_dry_run(const struct cb_accept_spec *t, int ranks, int nodes, FILE *out,
                      struct cb_error *err) {
  if (ranks <= 0)
    cb_expected_scale(t, &ranks, &nodes);
  static struct cb_expected expected[CB_ACCEPT_MAX_CHECKS];
  for (int i = 0; i < t->nchecks; i++) /* a level without an answer refuses the file, first */
    if (cb_check_uses_model(&t->checks[i]) &&
        cb_expected_for(t, &t->checks[i], ranks, nodes, &expected[i], err))
      return err->status;
  fprintf(out, "# acceptance plan: %s (%s): nothing measured (--dry-run)\n", t->system.path,
          t->system.name);
  struct cb_pricing pricing;
  int priced = cb_pricing_of(t, NULL, ranks, &pricing) == 0;
  if (priced)
    fprintf(out, "# defects priced at %d GPUs: the %s step, compute %.4g s (%s)\n", pricing.gpus,
            pricing.step->model.name, pricing.compute_s, pricing.compute_from);
  else if (t->nsteps)
    fprintf(out,
            "# defects priced at %d GPUs with the %s step's T_compute as the run measures it "
            "([step %s] has no compute_time)\n",
            cb_pricing_scale(t, ranks), t->steps[0].model.name, t->steps[0].name);
  if (cb_accept_spec_uses(t, CB_REF_MODEL) || cb_accept_spec_uses(t, CB_REF_HEALTHY))
    fprintf(out,
            "# model levels at %d rank%s on %d node%s (the file's [system] nodes = %d%s, "
            "ranks_per_node = %d); a run computes them again at its own scale\n",
            ranks, ranks == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s",
            t->system.nodes ? t->system.nodes : 1, t->system.nodes ? "" : ", not stated",
            t->system.ranks_per_node);
  for (int i = 0; i < t->nchecks; i++) {
    const struct cb_check *c = &t->checks[i];
    const char *unit = c->metric == CB_METRIC_TIME ? "us" : "GB/s";
    const struct cb_expected *ep = cb_check_uses_model(c) ? &expected[i] : NULL;
    char size[32];
    fprintf(out, "  [check %s] (line %d): %s %s %s %s %s %s\n", c->name, c->line,
            cb_ops[c->op]->name, c->backend_name, cb_mem_names[c->mem],
            cb_format_size(c->bytes, size, sizeof size), cb_metric_names[c->metric],
            c->inplace ? "in-place" : "out-of-place");
    for (int k = 0; k < c->noptions; k++) /* over the command line's */
      fprintf(out, "%s%s = %s%s", k ? ", " : "    options: ", c->options[k].key,
              c->options[k].value, k + 1 == c->noptions ? "\n" : "");
    put_level(out, "fail", c, &c->fail, ep, unit);
    put_level(out, "warn", c, &c->warn, ep, unit);
    if (ep)
      put_expected(out, ep, unit);
    if (priced) { /* what a figure just at each level would cost the step at scale */
      put_cost(out, t, c, &c->fail, CB_FAIL, ep, &pricing, ranks, nodes, unit);
      put_cost(out, t, c, &c->warn, CB_WARN, ep, &pricing, ranks, nodes, unit);
    }
    if (c->ceiling[0])
      fprintf(out, "    ceiling: tier '%s', %.5g GB/s: FAIL under %g of it, WARN over 1.05 of it\n",
              c->ceiling, t->system.tiers[c->ceiling_tier].bandwidth_Bps * 1e-9,
              c->ceiling_fraction);
  }
  for (int i = 0; i < t->nsteps; i++)
    fprintf(out,
            "  [step %s] (line %d): the reference training step's communication overhead at "
            "most %g%%\n",
            t->steps[i].name, t->steps[i].line, t->steps[i].limit * 100);
  if (t->matrix.set) {
    char size[32];
    fprintf(out,
            "  [matrix]: every pair at %s; a pair under %g of the median bandwidth or over %gx "
            "the best latency is retested, and named if it stays slow\n",
            cb_format_size(t->matrix.bytes, size, sizeof size), t->matrix.bw_fraction,
            t->matrix.lat_factor);
  }
  if (t->baseline.set)
    fprintf(out, "  [baseline]: each check judged against %s too (robust z under -%g fails)\n",
            t->baseline.file, t->baseline.k);
  return CB_OK;
}
