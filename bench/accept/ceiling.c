/* A check judged against its physical ceiling, the nominal bandwidth of the
 * tier its `ceiling` key names: what a fleet baseline cannot see (a fleet
 * degraded alike, say every node's PCIe a generation down, is its own normal)
 * and what no healthy figure can exceed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ceiling.h"

/* Over the ceiling by more than this is not measurement noise. */
#define CEILING_SLACK 1.05

void cb_ceiling_judge(const struct cb_accept_spec *t, const struct cb_check *c,
                      const struct cb_record *rec, char *name, size_t name_size,
                      struct cb_verdict *v) {
  const struct cb_tier *tier = &t->system.tiers[c->ceiling_tier];
  double ceiling = tier->bandwidth_Bps * 1e-9;
  memset(v, 0, sizeof *v);
  snprintf(name, name_size, "ceiling %s", c->name);
  v->name = name;
  v->line = c->line;
  v->unit = "GB/s";
  v->fail = c->ceiling_fraction * ceiling;
  v->warn = NAN;
  v->record = rec;
  v->measured = rec ? cb_check_figure(c, rec) : NAN;
  int n = snprintf(v->what, sizeof v->what, "%s against [tier %s]%s%s%s: %.4g GB/s per %s",
                   cb_metric_names[c->metric], tier->name, tier->kind[0] ? " (" : "", tier->kind,
                   tier->kind[0] ? ")" : "", ceiling,
                   tier->scope == CB_SCOPE_INTER ? "NIC" : "GPU or rank");
  char *tail = v->what + n;
  size_t left = sizeof v->what - n;
  if (isnan(v->measured)) {
    v->status = CB_FAIL;
    v->margin = NAN;
    snprintf(tail, left, "; not measured");
    return;
  }
  cb_verdict_record_interval(v, rec, 0);
  cb_verdict_judge(v, 0, CB_SETTLE_ENGINE);
  double share = v->measured / ceiling;
  if (v->status == CB_FAIL)
    snprintf(tail, left, "; measured %.3g of it, fails under %g", share, c->ceiling_fraction);
  else if (v->status == CB_INCONCLUSIVE)
    ; /* the judge said why */
  else if (share > CEILING_SLACK) {
    v->status = CB_WARN;
    snprintf(tail, left,
             "; measured %.3g of it: over the hardware's limit, so the figure or the ceiling "
             "is wrong, or the switch reduces (NVLS, SHARP)",
             share);
  } else
    snprintf(tail, left, "; measured %.3g of it (fails under %g)", share, c->ceiling_fraction);
}
