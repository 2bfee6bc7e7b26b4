/* A burn-in drawn (--report on a --duration run, issue 42): per file, its
 * cases against the clock in charts of up to CASES_PER_CHART, those with
 * wrong results and the largest drift first (burninF_K.png/.svg from
 * reports/burnin.gp), and index.html's section: a row per case with what
 * its verdict read (drift.h), then the charts. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "escape.h"
#include "parts.h"

enum { CASES_PER_CHART = 8, MAX_CHARTS = 8 }; /* 64 cases drawn per file; the table has all */

struct ranked {
  const struct cb_burnin_series *s;
  struct cb_drift d;
};

static int by_concern(const void *a, const void *b) {
  const struct ranked *x = a, *y = b;
  if ((x->d.nwrong > 0) != (y->d.nwrong > 0))
    return y->d.nwrong > 0 ? 1 : -1;
  double cx = isnan(x->d.change) ? -1 : fabs(x->d.change);
  double cy = isnan(y->d.change) ? -1 : fabs(y->d.change);
  return (cy > cx) - (cy < cx);
}

/* The file's cases with their drift, most worrying first (NULL: none). */
static struct ranked *rank_cases(const struct cb_rep_burnin *b) {
  struct ranked *r = b->store.n ? calloc(b->store.n, sizeof *r) : NULL;
  for (int i = 0; r && i < b->store.n; i++) {
    r[i].s = &b->store.s[i];
    cb_burnin_drift(r[i].s->p, r[i].s->n, &r[i].d);
  }
  if (r)
    qsort(r, b->store.n, sizeof *r, by_concern);
  return r;
}

static int ncharts(const struct cb_rep_burnin *b) {
  int n = (b->store.n + CASES_PER_CHART - 1) / CASES_PER_CHART;
  return n > MAX_CHARTS ? MAX_CHARTS : n;
}

/* The clock's unit for a span: seconds, minutes or hours. */
static double unit_of(double span_s, const char **name) {
  if (span_s < 180)
    return *name = "s", 1;
  if (span_s < 3 * 3600)
    return *name = "min", 60;
  return *name = "h", 3600;
}

static double pct(double us, double mean) {
  return 100 * (us / mean - 1);
}

/* The spacing past which two passes have downtime between them (a burn-in
 * stopped and resumed): 3 times the median spacing, and at least 60 s
 * more (a slow pass is not downtime). */
static double gap_of(const struct cb_burnin_series *s) {
  if (s->n < 3)
    return INFINITY;
  double *dt = malloc((size_t)(s->n - 1) * sizeof *dt);
  if (!dt)
    return INFINITY;
  for (int k = 1; k < s->n; k++)
    dt[k - 1] = s->p[k].t - s->p[k - 1].t;
  cb_sort_doubles(dt, (size_t)(s->n - 1));
  double med = cb_quantile_sorted(dt, (size_t)(s->n - 1), 0.5);
  free(dt);
  return 3 * med + 60;
}

/* burninF_K.dat: one block per case; the titles into the script. */
static int write_chart(FILE *gp, const struct ranked *r, int n, double unit, const char *dir,
                       const char *stem, struct cb_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.dat", dir, stem);
  FILE *f = cb_rep_fopen(path);
  if (!f)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  int nwrong = 0;
  fprintf(gp, "datafile = '%s.dat'\nnseries = %d\narray titles[%d]\n", stem, n, n);
  for (int i = 0; i < n; i++) {
    const struct cb_burnin_series *s = r[i].s;
    const struct cb_drift *d = &r[i].d;
    double m = d->mean_us, gap = gap_of(s);
    fprintf(f, "%s", i ? "\n\n" : "");
    for (int k = 0; k < s->n && m > 0; k++) {
      const struct cb_burnin_point *p = &s->p[k];
      double ci = isnan(p->ci95_us) ? 0 : p->ci95_us;
      double fit = d->fit_a + d->fit_b * p->t;
      if (k > 0 && p->t - s->p[k - 1].t > gap) /* downtime (a resume): a gap, not a line */
        fputc('\n', f);
      /* the step the verdict reads: its two ends' means, over their passes */
      double first = k < d->nfirst ? pct(d->first_mean_us, m) : NAN;
      double last = d->nlast && k >= s->n - d->nlast ? pct(d->last_mean_us, m) : NAN;
      fprintf(f, "%.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g\n", p->t / unit, pct(p->time_us, m),
              pct(p->time_us - ci, m), pct(p->time_us + ci, m), isnan(fit) ? NAN : pct(fit, m),
              p->wrong > 0 ? pct(p->time_us, m) : NAN, first, last);
      nwrong += p->wrong > 0;
    }
    char title[192];
    if (isnan(d->change))
      snprintf(title, sizeof title, "%s", s->name + strlen("burn-in "));
    else
      snprintf(title, sizeof title, "%s: trend %+.1f%%", s->name + strlen("burn-in "),
               100 * d->change);
    fprintf(gp, "titles[%d] = ", i + 1);
    cb_gp_put_string(gp, title);
    fputc('\n', gp);
  }
  fprintf(gp, "nwrong = %d\n", nwrong);
  if (cb_rep_fclose(f) != 0)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  return CB_OK;
}

int cb_rep_plot_burnin(const struct cb_rep_data *d, const char *dir, struct cb_error *err) {
  for (int file = 0; d->burnin && file < d->nruns; file++) {
    const struct cb_rep_burnin *b = &d->burnin[file];
    if (!b->store.n)
      continue;
    struct ranked *r = rank_cases(b);
    if (!r)
      return cb_fail(err, CB_RUNTIME, "--report: out of memory for the burn-in's charts");
    char path[4096], stem[48];
    snprintf(stem, sizeof stem, "burnin%d", file + 1);
    snprintf(path, sizeof path, "%s/%s.gp", dir, stem);
    FILE *gp = cb_rep_fopen(path);
    if (!gp) {
      free(r);
      return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                     strerror(errno));
    }
    fprintf(gp, "# Written by collbench --report; run 'gnuplot %s.gp' in this folder.\n", stem);
    cb_rep_put_png_term(gp);
    double span = 0;
    for (int i = 0; i < b->store.n; i++)
      span = r[i].d.span_s > span ? r[i].d.span_s : span;
    const char *uname;
    double unit = unit_of(span, &uname);
    fprintf(gp, "xunit = '%s'\n", uname);
    int rc = CB_OK;
    for (int k = 0; k < ncharts(b) && !rc; k++) {
      int n = b->store.n - k * CASES_PER_CHART;
      n = n > CASES_PER_CHART ? CASES_PER_CHART : n;
      char chart[64], title[512];
      snprintf(chart, sizeof chart, "%s_%d", stem, k + 1);
      char part[32] = "";
      if (ncharts(b) > 1)
        snprintf(part, sizeof part, " (%d of %d)", k + 1, ncharts(b));
      snprintf(title, sizeof title, "%s: burn-in, %d intervals%s", d->runs[file].path,
               b->last_interval, part);
      rc = write_chart(gp, r + k * CASES_PER_CHART, n, unit, dir, chart, err);
      if (!rc)
        rc = cb_rep_put_chart(gp, chart, "burnin.gp", title, err);
    }
    free(r);
    if (cb_rep_fclose(gp) != 0 && !rc)
      rc = cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
    snprintf(path, sizeof path, "%s.gp", stem);
    if (!rc)
      rc = cb_rep_run_gnuplot(dir, path, err);
    if (rc)
      return rc;
  }
  return CB_OK;
}

void cb_rep_burnin_html(FILE *f, const struct cb_rep_data *d) {
  int any = 0;
  for (int file = 0; d->burnin && file < d->nruns; file++) {
    const struct cb_rep_burnin *b = &d->burnin[file];
    struct ranked *r = b->store.n ? rank_cases(b) : NULL;
    if (!r)
      continue;
    if (!any++)
      fputs("<h2>Burn-in</h2>\n<p>Each case of a <code>--duration</code> run as a series over its "
            "intervals, most worrying first (wrong results, then the largest drift). Trend: the "
            "least-squares line's change over the run relative to the mean time, with its 95% "
            "interval; step: the last third (from 2 hours on, the last hour) against the first. "
            "The verdicts above judge them against the drift limit. A timeout ends a burn-in "
            "(exit 3): its charts stop where it stopped.</p>\n",
            f);
    fputs("<h3>", f);
    cb_html_put(f, d->runs[file].path);
    fprintf(f,
            ": %d intervals, %d cases</h3>\n<table>\n<tr><th>case</th><th>intervals</th>"
            "<th>trend (95%% CI)</th><th>step (95%% CI)</th><th>slowest interval</th>"
            "<th>wrong</th></tr>\n",
            b->last_interval, b->store.n);
    for (int i = 0; i < b->store.n; i++) {
      const struct cb_drift *x = &r[i].d;
      fputs("<tr><td>", f);
      cb_html_put(f, r[i].s->name + strlen("burn-in "));
      fprintf(f, "</td><td class=n>%d</td>", x->n);
      if (isnan(x->change))
        fputs("<td class=n>too few</td>", f);
      else
        fprintf(f, "<td class=n>%+.1f%% (%+.1f to %+.1f)</td>", 100 * x->change, 100 * x->lo,
                100 * x->hi);
      if (isnan(x->step))
        fputs("<td class=n>-</td>", f);
      else
        fprintf(f, "<td class=n>%s %+.1f%% (%+.1f to %+.1f)</td>", x->by_hour ? "hour" : "third",
                100 * x->step, 100 * x->step_lo, 100 * x->step_hi);
      fprintf(f, "<td class=n>%d: %.4g us (mean %.4g)</td><td class=n>", x->worst_interval,
              x->worst_us, x->mean_us);
      if (x->nwrong)
        fprintf(f, "%ld in %d interval%s", x->wrong, x->nwrong, x->nwrong == 1 ? "" : "s");
      else
        fputs("0", f);
      fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    free(r);
    if (b->store.n > MAX_CHARTS * CASES_PER_CHART)
      fprintf(f, "<p>The first %d cases are drawn; the table has all %d.</p>\n",
              MAX_CHARTS * CASES_PER_CHART, b->store.n);
    for (int k = 0; k < ncharts(b); k++)
      fprintf(f,
              "<p><a href=\"burnin%d_%d.svg\"><img src=\"burnin%d_%d.png\" alt=\"burn-in time "
              "series %d\"></a></p>\n",
              file + 1, k + 1, file + 1, k + 1, k + 1);
  }
}
