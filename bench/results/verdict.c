/* Verdicts: PASS, WARN, FAIL or INCONCLUSIVE of a figure's interval against its levels
 * (verdict.h says more). */
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const cb_verdict_names[] = {"PASS", "WARN", "FAIL", "INCONCLUSIVE"};

int cb_verdict_severity(int status) {
  static const int severity[4] = {
      [CB_PASS] = 0, [CB_WARN] = 1, [CB_INCONCLUSIVE] = 2, [CB_FAIL] = 3};
  return status >= 0 && status < 4 ? severity[status] : severity[CB_INCONCLUSIVE];
}

void cb_verdict_name_not_passed(char *names, size_t len, const struct cb_verdict *v) {
  size_t n = strlen(names);
  if ((v->status == CB_FAIL || v->status == CB_INCONCLUSIVE) && n + 4 < len)
    snprintf(names + n, len - n, "%s%s %s", n ? ", " : "",
             v->status == CB_FAIL ? "FAIL" : "INCONCLUSIVE", v->name ? v->name : "?");
}

int cb_verdict_interval(double lo, double hi, double level, int lower_is_better) {
  if (isnan(lo) || isnan(hi) || isnan(level))
    return CB_INCONCLUSIVE;
  if (lo > hi) {
    double t = lo;
    lo = hi, hi = t;
  }
  /* good side: <= level for times, >= level for bandwidths */
  if (lower_is_better ? hi <= level : lo >= level)
    return CB_PASS;
  if (lower_is_better ? lo > level : hi < level)
    return CB_FAIL;
  return CB_INCONCLUSIVE;
}

void cb_verdict_set_interval(struct cb_verdict *v, double lo, double hi) {
  v->interval = 1;
  v->lo = lo < hi ? lo : hi;
  v->hi = lo < hi ? hi : lo;
}

void cb_verdict_record_interval(struct cb_verdict *v, const struct cb_record *rec, int is_time) {
  double t = rec->time_us, ci = rec->ci95_us;
  if (!(ci > 0) || !(t > 0))
    return;
  /* The order statistics the interval comes from are samples, so its low
   * end is never under the fastest sample: t - ci is clamped there (a noisy
   * row once reached time 0, an unbounded bandwidth, and a check 1000x
   * under its ceiling read INCONCLUSIVE) */
  double lo = t - ci;
  if (rec->time_us_min > 0 && lo < rec->time_us_min)
    lo = rec->time_us_min < t ? rec->time_us_min : t;
  if (is_time) {
    cb_verdict_set_interval(v, lo, t + ci);
    return;
  }
  /* bandwidth = k / time: the slow end from t + ci, the fast end from lo */
  double k = v->measured * t;
  cb_verdict_set_interval(v, k / (t + ci), lo > 0 ? k / lo : INFINITY);
}

void cb_verdict_judge(struct cb_verdict *v, int lower_is_better, const char *settle) {
  double sign = lower_is_better ? -1 : 1;
  double lo = v->interval ? v->lo : v->measured, hi = v->interval ? v->hi : v->measured;
  v->margin = sign * (v->measured - v->fail) / v->fail;
  v->status = cb_verdict_interval(lo, hi, v->fail, lower_is_better);
  if (v->status == CB_PASS && !isnan(v->warn) &&
      cb_verdict_interval(lo, hi, v->warn, lower_is_better) != CB_PASS)
    v->status = CB_WARN;
  if (v->status == CB_INCONCLUSIVE && !isnan(v->measured)) {
    size_t n = strlen(v->what);
    snprintf(v->what + n, sizeof v->what - n,
             ": INCONCLUSIVE, the 95%% interval %.4g to %.4g %s contains the fail level %.4g%s%s",
             lo, hi, v->unit ? v->unit : "", v->fail, settle ? ": " : "", settle ? settle : "");
  }
}

void cb_causes_append(struct cb_causes *out, const struct cb_causes *in) {
  for (int i = 0; in && i < in->n && out->n < CB_MAX_CAUSES; i++)
    out->c[out->n++] = in->c[i];
}

double cb_cost_step_growth(const struct cb_cost *c) {
  return c && !c->why[0] && c->step_s[0] > 0 ? c->step_s[1] / c->step_s[0] - 1 : NAN;
}

const char *cb_cost_text(const struct cb_cost *c, char *buf, size_t len) {
  if (c->why[0])
    snprintf(buf, len, "not priced: %s", c->why);
  else
    snprintf(buf, len, "at %d GPUs %s step %+.1f%% (overhead %.1f%% -> %.1f%%)", c->gpus,
             c->workload, 100 * cb_cost_step_growth(c), 100 * c->overhead[0], 100 * c->overhead[1]);
  return buf;
}
