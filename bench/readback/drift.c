/* Burn-in series and their judgement (drift.h; bench/burnin runs them, --report draws them). */
#include "drift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"

double cb_t95(int df) {
  /* t(0.975, df), df 1..30 (any statistics table); beyond, the normal's
   * 1.96 plus the first term of the expansion in 1/df */
  static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1)
    return NAN;
  return df <= 30 ? t[df - 1] : 1.96 + 2.4 / df;
}

static void key_of(const struct cb_record *r, char *key, size_t len) {
  /* what a result line carries (the root is one per run: not in the lines) */
  snprintf(key, len, "%s|%s|%s|%s|%s|%s|%d|%llu|%d", r->op, r->backend, r->mem, r->transport,
           r->dtype, r->redop, r->inplace, (unsigned long long)r->bytes, r->nranks);
}

int cb_burnin_add(struct cb_burnin_store *b, const struct cb_record *r, double t) {
  char key[192];
  key_of(r, key, sizeof key);
  struct cb_burnin_series *s = NULL;
  for (int i = b->n - 1; i >= 0 && !s; i--) /* a pass meets its cases in order: recent first */
    if (strcmp(b->s[i].key, key) == 0)
      s = &b->s[i];
  if (!s) {
    if (b->n == b->cap) {
      int cap = b->cap ? 2 * b->cap : 16;
      void *p = realloc(b->s, (size_t)cap * sizeof *b->s);
      if (!p)
        return -1;
      b->s = p, b->cap = cap;
    }
    s = &b->s[b->n++];
    memset(s, 0, sizeof *s);
    snprintf(s->key, sizeof s->key, "%s", key);
    char size[32];
    snprintf(s->name, sizeof s->name, "burn-in %s %s %s %s%s", r->op, r->backend, r->mem,
             cb_format_size(r->bytes, size, sizeof size), r->inplace ? " in-place" : "");
    s->first = *r;
  }
  if (s->n > 0 && s->p[s->n - 1].interval == r->interval && r->interval > 0) {
    /* measured again in the same interval (acceptance re-measures an
     * unsettled check): the last stands for it, wrong values kept */
    struct cb_burnin_point *q = &s->p[s->n - 1];
    long wrong = q->wrong > r->wrong ? q->wrong : r->wrong;
    *q = (struct cb_burnin_point){r->interval, t, r->time_us, wrong, r->ci95_us, q->again + 1};
    return 0;
  }
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    void *p = realloc(s->p, (size_t)cap * sizeof *s->p);
    if (!p)
      return -1;
    s->p = p, s->cap = cap;
  }
  s->p[s->n++] = (struct cb_burnin_point){r->interval, t, r->time_us, r->wrong, r->ci95_us, 0};
  return 0;
}

void cb_burnin_free(struct cb_burnin_store *b) {
  for (int i = 0; i < b->n; i++)
    free(b->s[i].p);
  free(b->s);
  memset(b, 0, sizeof *b);
}

/* Mean and variance of k times from p. */
static void mean_var(const struct cb_burnin_point *p, int k, double *m, double *v) {
  double s = 0, ss = 0;
  for (int i = 0; i < k; i++)
    s += p[i].time_us;
  *m = s / k;
  for (int i = 0; i < k; i++)
    ss += (p[i].time_us - *m) * (p[i].time_us - *m);
  *v = k > 1 ? ss / (k - 1) : 0;
}

/* The last hour's mean against the first hour's, for a run of 2 hours or
 * more with at least 2 passes in each; else the last third's against the
 * first third's (Welch's interval either way). */
static void step_of(const struct cb_burnin_point *p, int n, struct cb_drift *d) {
  int kf = n / 3, kl = n / 3;
  if (n > 0 && p[n - 1].t - p[0].t >= 2 * CB_DRIFT_HOUR) {
    int f = 0, l = 0;
    while (f < n && p[f].t <= p[0].t + CB_DRIFT_HOUR)
      f++;
    while (l < n && p[n - 1 - l].t >= p[n - 1].t - CB_DRIFT_HOUR)
      l++;
    if (f >= 2 && l >= 2)
      kf = f, kl = l, d->by_hour = 1;
  }
  if (kf < 2 || kl < 2)
    return;
  double mf, vf, ml, vl;
  mean_var(p, kf, &mf, &vf);
  mean_var(p + n - kl, kl, &ml, &vl);
  if (mf <= 0)
    return;
  double a = vf / kf, b = vl / kl, se = sqrt(a + b);
  /* Welch-Satterthwaite degrees of freedom; equal zero variances: exact */
  int df = a + b > 0 ? (int)floor((a + b) * (a + b) / (a * a / (kf - 1) + b * b / (kl - 1))) : 1000;
  double half = cb_t95(df < 1 ? 1 : df) * se;
  d->nfirst = kf, d->nlast = kl, d->first_mean_us = mf, d->last_mean_us = ml;
  d->step = (ml - mf) / mf;
  d->step_lo = (ml - mf - half) / mf;
  d->step_hi = (ml - mf + half) / mf;
}

void cb_burnin_drift(const struct cb_burnin_point *p, int n, struct cb_drift *d) {
  memset(d, 0, sizeof *d);
  d->n = n;
  d->change = d->lo = d->hi = NAN;
  d->step = d->step_lo = d->step_hi = NAN;
  d->fit_a = d->fit_b = NAN;
  step_of(p, n, d);
  double sx = 0, sy = 0;
  for (int i = 0; i < n; i++) {
    sx += p[i].t, sy += p[i].time_us;
    if (p[i].time_us > d->worst_us)
      d->worst_us = p[i].time_us, d->worst_interval = p[i].interval;
    if (p[i].again > 0 && d->nagain++ < 8)
      d->again_intervals[d->nagain - 1] = p[i].interval;
    if (p[i].wrong > 0) {
      d->wrong += p[i].wrong;
      if (d->nwrong < 8)
        d->wrong_intervals[d->nwrong] = p[i].interval;
      d->nwrong++;
    }
  }
  if (n == 0)
    return;
  double mx = sx / n, my = sy / n;
  d->mean_us = my;
  d->span_s = p[n - 1].t - p[0].t;
  if (n < 3 || my <= 0)
    return;
  double sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++)
    sxx += (p[i].t - mx) * (p[i].t - mx), sxy += (p[i].t - mx) * (p[i].time_us - my);
  if (sxx <= 0)
    return;
  double slope = sxy / sxx, sse = 0;
  d->fit_b = slope, d->fit_a = my - slope * mx;
  for (int i = 0; i < n; i++) {
    double e = p[i].time_us - (my + slope * (p[i].t - mx));
    sse += e * e;
  }
  double se = sqrt(sse / (n - 2) / sxx), half = cb_t95(n - 2) * se;
  double scale = d->span_s / my; /* slope (us per s) -> change over the run, relative */
  d->change = slope * scale;
  d->lo = (slope - half) * scale;
  d->hi = (slope + half) * scale;
}

void cb_burnin_verdict(const struct cb_burnin_series *s, double limit, struct cb_verdict *v) {
  struct cb_drift d;
  cb_burnin_drift(s->p, s->n, &d);
  memset(v, 0, sizeof *v);
  v->name = s->name;
  v->unit = "%";
  v->warn = NAN;
  v->fail = 100 * limit;
  v->measured = 100 * d.change;
  v->record = &s->first;
  char worst[160], again[64] = "";
  for (int i = 0; i < d.nagain && i < 8; i++)
    snprintf(again + strlen(again), sizeof again - strlen(again), "%s%d", i ? "," : "",
             d.again_intervals[i]);
  snprintf(worst, sizeof worst, "slowest interval %d at %.4g us (mean %.4g us)%s%s%s",
           d.worst_interval, d.worst_us, d.mean_us, d.nagain ? "; measured again in interval" : "",
           d.nagain ? (d.nagain > 1 ? "s " : " ") : "", again);
  if (d.nwrong > 0) {
    v->status = CB_FAIL;
    v->margin = NAN;
    char list[64] = "";
    for (int i = 0; i < d.nwrong && i < 8; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? "," : "",
               d.wrong_intervals[i]);
    snprintf(v->what, sizeof v->what, "%ld wrong elements in interval%s %s%s of %d: never noise",
             d.wrong, d.nwrong == 1 ? "" : "s", list, d.nwrong > 8 ? ",..." : "", d.n);
    return;
  }
  if (d.n < 3 || isnan(d.change)) {
    v->status = CB_INCONCLUSIVE;
    v->margin = NAN;
    snprintf(v->what, sizeof v->what, "%d interval%s: too few for a trend (3 needed); %s", d.n,
             d.n == 1 ? "" : "s", worst);
    return;
  }
  /* two readings of the same series, each three-way: the worse decides */
  int trend = cb_verdict_interval(d.lo, d.hi, limit, 1);
  int step = isnan(d.step) ? -1 : cb_verdict_interval(d.step_lo, d.step_hi, limit, 1);
  int use_step = step == CB_FAIL || (step == CB_INCONCLUSIVE && trend == CB_PASS);
  char stepped[128] = "";
  if (!isnan(d.step))
    snprintf(stepped, sizeof stepped, "; last %s %+.1f%% on the first (%+.1f%% to %+.1f%%)",
             d.by_hour ? "hour" : "third", 100 * d.step, 100 * d.step_lo, 100 * d.step_hi);
  if (use_step) {
    v->measured = 100 * d.step;
    cb_verdict_set_interval(v, 100 * d.step_lo, 100 * d.step_hi);
  } else
    cb_verdict_set_interval(v, 100 * d.lo, 100 * d.hi);
  char hourly[48] = ""; /* the slope, for runs long enough to read it so */
  if (d.span_s >= 600)
    snprintf(hourly, sizeof hourly, ", %+.2g%% an hour", 100 * d.change * 3600 / d.span_s);
  snprintf(v->what, sizeof v->what,
           "trend %+.1f%% over %d intervals, %.0f s%s (95%% CI %+.1f%% to %+.1f%%)%s; %s",
           100 * d.change, d.n, d.span_s, hourly, 100 * d.lo, 100 * d.hi, stepped, worst);
  cb_verdict_judge(v, 1, "a longer burn-in, or a quieter machine");
  v->margin = NAN; /* a headroom over a limit on a change reads as nothing useful */
}
