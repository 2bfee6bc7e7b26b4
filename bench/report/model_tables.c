/* The report's model section: what --fit FIRST --validate OTHERS prints,
 * as HTML tables, so the prediction error stands next to the charts. */
#include <math.h>
#include <stdlib.h>

#include "../model/groups.h"
#include "base/units.h"
#include "escape.h"
#include "parts.h"

static void text(FILE *f, const char *tag, const char *s) {
  fprintf(f, "<%s>", tag);
  cb_html_put(f, s);
  fprintf(f, "</%s>", tag);
}

/* The rendezvous wait where the fit kept it (bench/model/PLANNING.md, "Capacity
 * planning"): gamma as a multiple of beta and the message sizes it spans
 * (rndv up to queue), gamma itself in the title; "-" without. Short, so
 * that the table still fits a laptop's window. */
static void wait_cell(FILE *f, const struct cb_link *l) {
  char rndv[32], queue[32];
  if (!(l->gamma > 0)) {
    fputs("<td>-</td>", f);
    return;
  }
  cb_format_size((uint64_t)l->rndv, rndv, sizeof rndv);
  cb_format_size((uint64_t)l->queue, queue, sizeof queue);
  fprintf(f, "<td title=\"gamma %.3g s/B on every message of %s or more, queued behind up to %s\">",
          l->gamma, rndv, queue);
  if (l->beta > 0)
    fprintf(f, "%.2f beta, ", l->gamma / l->beta);
  fprintf(f, "%s-%s</td>", rndv, queue);
}

static void fits_table(FILE *f, const struct cb_rep_data *d, const struct cb_fit_groups *gs) {
  fputs("<h2>Model: alpha-beta fit</h2>\n<p>Fitted from ", f);
  for (int file = 0; file < cb_rep_nfit(d); file++) {
    fputs(file ? " and " : "", f);
    cb_html_put(f, d->runs[file].path);
  }
  fputs(
      " through the cost shape of the algorithm each result recorded (ring where none is); see "
      "bench/model/PLANNING.md.</p>\n"
      "<table>\n<tr><th>op</th><th>tier</th><th>backend</th><th>memory</th><th>transport</th>"
      "<th>placement</th><th>algorithm</th><th>points</th><th>alpha (us)</th><th>1/beta "
      "(GB/s)</th><th>R^2</th>"
      "<th>median residual</th><th>max residual</th><th title=\"rendezvous wait: gamma as a "
      "multiple of beta, on messages from rndv, queued behind up to queue bytes\">wait</th></tr>\n",
      f);
  for (int i = 0; i < gs->n; i++) {
    const struct cb_fit_group *g = &gs->g[i];
    if (!g->fitted)
      continue;
    fputs("<tr>", f);
    text(f, "td", cb_mop_names[g->op]), text(f, "td", cb_tier_kind_names[g->tier]);
    text(f, "td", g->backend), text(f, "td", g->mem), text(f, "td", g->transport);
    text(f, "td", g->inplace ? "in-place" : "out-of-place");
    char ab[48];
    text(f, "td", cb_fit_group_label(g, ab, sizeof ab));
    fprintf(f,
            "<td class=n>%d</td><td class=n>%.3f</td><td class=n>%.3f</td><td class=n>%.4f</td>"
            "<td class=n>%.1f%%</td><td class=n>%.1f%%</td>",
            g->fit.npoints, g->fit.link.alpha * 1e6,
            g->fit.link.beta > 0 ? 1e-9 / g->fit.link.beta : INFINITY, g->fit.r2,
            100 * g->fit.median_rel, 100 * g->fit.max_rel);
    wait_cell(f, &g->fit.link);
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* Median and max |predicted / measured - 1| of op over the files
 * [first, last); returns the number of points. */
static int errors(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int op, int first,
                  int last, double *median, double *max) {
  int n = 0, cap = 0;
  for (int i = 0; i < d->nseries; i++)
    cap += d->series[i].npts;
  double *e = malloc((cap ? cap : 1) * sizeof *e);
  for (int i = 0; i < d->nseries; i++) {
    const struct cb_rep_series *s = &d->series[i];
    if (s->file < first || s->file >= last || cb_mop_find(s->op) != op)
      continue;
    for (int k = 0; k < s->npts; k++) {
      const struct cb_record *r = &s->pts[k];
      const struct cb_fit_group *g = cb_fit_groups_match(gs, s, r);
      if (g && r->nranks > 1 && r->time_us > 0)
        e[n++] = cb_fit_group_time(g, r) * 1e6 / r->time_us - 1;
    }
  }
  if (n) {
    *median = cb_err_median_abs(e, n);
    *max = e[n - 1];
  }
  free(e);
  return n;
}

int cb_rep_held_out(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int op,
                    double *median, double *max) {
  return errors(d, gs, op, cb_rep_nfit(d), d->nruns, median, max);
}

/* One row per held-out file and op: its points predicted from the fit; a
 * sentence instead of a table with no rows (held-out files of other ops, or
 * of a matrix only). */
static void validation_table(FILE *f, const struct cb_rep_data *d, const struct cb_fit_groups *gs) {
  fputs("<h2>Model: prediction error</h2>\n", f);
  int rows = 0;
  for (int file = cb_rep_nfit(d); file < d->nruns; file++)
    for (int op = 0; op < CB_NMOPS; op++) {
      double med, max;
      rows += errors(d, gs, op, file, file + 1, &med, &max) > 0;
    }
  if (!rows) {
    fputs("<p>No held-out file has measurements of a fitted op: the model's error beyond the "
          "fitted points is unknown.</p>\n",
          f);
    return;
  }
  fputs("<p>Each held-out file's measurements predicted from "
        "the fit above at their own rank and node counts; error = predicted / measured "
        "&minus; 1.</p>\n<table>\n<tr><th>file</th><th>op</th><th>points</th>"
        "<th>median |error|</th><th>max |error|</th></tr>\n",
        f);
  for (int file = cb_rep_nfit(d); file < d->nruns; file++)
    for (int op = 0; op < CB_NMOPS; op++) {
      double med, max;
      int n = errors(d, gs, op, file, file + 1, &med, &max);
      if (n) {
        fputs("<tr>", f);
        text(f, "td", d->runs[file].path), text(f, "td", cb_mop_names[op]);
        fprintf(f, "<td class=n>%d</td><td class=n>%.1f%%</td><td class=n>%.1f%%</td></tr>\n", n,
                100 * med, 100 * max);
      }
    }
  fputs("</table>\n", f);
}

/* The held-out files' error per op and size (the same rows as
 * --validate's "per op and size" table). */
static void size_table(FILE *f, const struct cb_rep_data *d, const struct cb_fit_groups *gs) {
  int n = 0, cap = 0;
  for (int i = 0; i < d->nseries; i++)
    cap += d->series[i].npts;
  struct cb_err_point *e = malloc((cap ? cap : 1) * sizeof *e);
  for (int i = 0; i < d->nseries; i++) {
    const struct cb_rep_series *s = &d->series[i];
    int op = cb_mop_find(s->op);
    if (s->file < cb_rep_nfit(d) || op < 0)
      continue;
    for (int k = 0; k < s->npts; k++) {
      const struct cb_record *r = &s->pts[k];
      const struct cb_fit_group *g = cb_fit_groups_match(gs, s, r);
      if (g && r->nranks > 1 && r->time_us > 0)
        e[n++] =
            (struct cb_err_point){op, r->bytes, cb_fit_group_time(g, r) * 1e6 / r->time_us - 1};
    }
  }
  struct cb_err_row *rows = malloc((n ? n : 1) * sizeof *rows);
  int nrows = cb_err_rows(e, n, rows);
  char sz[32];
  if (nrows)
    fputs("<h3>Held-out error per op and size</h3>\n<table>\n<tr><th>op</th><th>size</th>"
          "<th>points</th><th>median error</th><th>median |error|</th><th>max |error|</th></tr>\n",
          f);
  for (int i = 0; i < nrows; i++) {
    fputs("<tr>", f);
    text(f, "td", cb_mop_names[rows[i].op]);
    text(f, "td", cb_format_size(rows[i].bytes, sz, sizeof sz));
    fprintf(f,
            "<td class=n>%d</td><td class=n>%+.1f%%</td><td class=n>%.1f%%</td>"
            "<td class=n>%.1f%%</td></tr>\n",
            rows[i].points, 100 * rows[i].median, 100 * rows[i].median_abs, 100 * rows[i].max_abs);
  }
  if (nrows)
    fputs("</table>\n", f);
  free(rows);
  free(e);
}

void cb_rep_model_html(FILE *f, const struct cb_rep_data *d) {
  struct cb_fit_groups gs;
  cb_rep_fit(d, &gs);
  int fitted = 0;
  for (int i = 0; i < gs.n; i++)
    fitted += gs.g[i].fitted;
  if (fitted) {
    fits_table(f, d, &gs);
    if (d->nruns > cb_rep_nfit(d)) {
      validation_table(f, d, &gs);
      size_table(f, d, &gs);
    }
  }
  cb_fit_groups_free(&gs);
}
