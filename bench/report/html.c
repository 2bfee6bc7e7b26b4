/* DIR/index.html for --report: static, no script, no external resource;
 * every string from an input goes through cb_html_put. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../model/groups.h"
#include "escape.h"
#include "parts.h"

/* A file path: it may break after each '/', so a long temporary path wraps
 * in its column instead of widening the table past the window. */
static void path_cell(FILE *f, const char *s) {
  fputs("<td>", f);
  char part[2] = "";
  for (; s && *s; s++) {
    part[0] = *s;
    cb_html_put(f, part);
    if (*s == '/')
      fputs("<wbr>", f);
  }
  fputs("</td>", f);
}

static void size_cell(FILE *f, unsigned long long b) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && b >= 1024 && b % 1024 == 0)
    b /= 1024, u++;
  fprintf(f, "<td class=n>%llu %s</td>", b, unit[u]);
}

static void runs_table(FILE *f, const struct cb_rep_data *d) {
  fputs("<h2>Runs</h2>\n<table>\n<tr><th>file</th><th>start time</th><th>command line</th>"
        "<th>hosts</th><th>ranks</th><th>nodes</th><th>MPI library</th><th>collbench</th>"
        "<th>git commit</th></tr>\n",
        f);
  for (int i = 0; i < d->nruns; i++) {
    const struct cb_rep_run *r = &d->runs[i];
    fputs("<tr>", f);
    path_cell(f, r->path), cb_html_cell(f, r->start_time), cb_html_cell(f, r->command_line);
    cb_html_cell(f, r->hostnames);
    fprintf(f, "<td class=n>%ld</td><td class=n>%ld</td>", r->nranks, r->nnodes);
    cb_html_cell(f, r->mpi_library), cb_html_cell(f, r->version), cb_html_cell(f, r->git_commit);
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

static void figures_table(FILE *f, const struct cb_rep_data *d) {
  fputs("<h2>Key figures</h2>\n<table>\n<tr><th>op</th><th>file</th><th>backend</th>"
        "<th>memory</th><th>transport</th><th>dtype</th><th>redop</th><th>placement</th>"
        "<th title=\"sizes measured, and how many of them noisy (the table's ~): a noisy "
        "point is never a peak here\">sizes</th>"
        "<th>peak busbw (GB/s)</th><th>at size</th>"
        "<th>peak at large sizes (GB/s)</th><th>at size</th><th>smallest time (us)</th>"
        "<th>at size</th></tr>\n",
        f);
  for (int i = 0; i < d->nseries; i++) {
    const struct cb_rep_series *s = &d->series[i];
    /* The overall peak is often where the buffers fit a cache; beside it,
     * the peak among the large sizes (within 8x of the largest, the top
     * three doublings), where the data streams from memory or the link. */
    int peak = -1, fast = -1, big = -1;
    uint64_t largest = 0;
    for (int p = 0; p < s->npts; p++)
      largest = s->pts[p].bytes > largest ? s->pts[p].bytes : largest;
    /* issue 57: a noisy point (a spike at twice its neighbours) is never a
     * key figure; a series with nothing else is shown, marked ~ */
    int all_noisy = cb_rep_noisy(s) == s->npts;
    for (int p = 0; p < s->npts; p++) {
      if (s->pts[p].noisy && !all_noisy)
        continue;
      if (peak < 0 || s->pts[p].busbw_GBps > s->pts[peak].busbw_GBps)
        peak = p;
      if (fast < 0 || s->pts[p].time_us < s->pts[fast].time_us)
        fast = p;
      if (s->pts[p].bytes * 8 > largest &&
          (big < 0 || s->pts[p].busbw_GBps > s->pts[big].busbw_GBps))
        big = p;
    }
    const char *mark = all_noisy ? "~" : "";
    fputs("<tr>", f);
    cb_html_cell(f, s->op), path_cell(f, d->runs[s->file].path);
    cb_html_cell(f, s->backend), cb_html_cell(f, s->mem);
    cb_html_cell(f, s->transport), cb_html_cell(f, s->dtype), cb_html_cell(f, s->redop);
    cb_html_cell(f, s->inplace ? "in-place" : "out-of-place");
    int noisy = cb_rep_noisy(s); /* in the sizes cell: a column more would not fit 1280 px */
    if (noisy) /* two lines: one more column would not fit 1280 px (tests/browser.t) */
      fprintf(f, "<td class=n>%d<br>%d noisy</td>", s->npts, noisy);
    else
      fprintf(f, "<td class=n>%d</td>", s->npts);
    if (cb_rep_latency_only(s->op)) /* a latency test: no bandwidth, as in its table */
      fputs("<td>-</td><td>-</td><td>-</td><td>-</td>", f);
    else {
      fprintf(f, "<td class=n>%.3f%s</td>", s->pts[peak].busbw_GBps, mark);
      size_cell(f, s->pts[peak].bytes);
      if (big >= 0) {
        fprintf(f, "<td class=n>%.3f%s</td>", s->pts[big].busbw_GBps, mark);
        size_cell(f, s->pts[big].bytes);
      } else { /* every large size was noisy */
        fputs("<td>-</td><td>-</td>", f);
      }
    }
    fprintf(f, "<td class=n>%.3f%s</td>", s->pts[fast].time_us, mark);
    size_cell(f, s->pts[fast].bytes);
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* The held-out error next to every chart the model draws: without it a
 * prediction reads as a measurement. */
static void model_error(FILE *f, const struct cb_rep_data *d, int op) {
  struct cb_fit_groups gs;
  double med, max;
  cb_rep_fit(d, &gs);
  int n = cb_rep_held_out(d, &gs, op, &med, &max);
  if (n)
    fprintf(f,
            "<strong>Model error on held-out data (the held-out files' %d points): median "
            "|error| %.1f%%, max %.1f%%.</strong>",
            n, 100 * med, 100 * max);
  else
    fputs(
        "<strong>No held-out data: the model's error beyond the fitted points is unknown.</strong>",
        f);
  cb_fit_groups_free(&gs);
}

/* Op names were checked to be plain words, so they are safe in file names;
 * they are escaped anyway, as everything else from an input is. */
static void chart(FILE *f, const char *op, const char *kind) {
  fputs("<p><a href=\"", f);
  cb_html_put(f, op);
  fprintf(f, "_%s.svg\"><img src=\"", kind);
  cb_html_put(f, op);
  fprintf(f, "_%s.png\" alt=\"", kind);
  cb_html_put(f, op);
  fprintf(f, " %s chart\"></a></p>\n", kind);
}

int cb_rep_html(const struct cb_rep_data *d, const char *dir, struct cb_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/index.html", dir);
  FILE *f = cb_rep_fopen(path);
  if (!f)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  fputs("<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
        "<title>collbench report</title>\n<style>\n"
        "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}\n"
        "td,th{border:1px solid #bbb;padding:2px 6px}td.n{text-align:right;white-space:nowrap}\n"
        "td{overflow-wrap:break-word}img{max-width:100%}\n</style>\n</head>\n<body>\n"
        "<h1>collbench report</h1>\n",
        f);
  /* What a reader asks first: did it pass, what are the figures, what do
   * they look like; how they were modelled and where they came from last. */
  cb_rep_verdicts_html(f, d);
  cb_rep_burnin_html(f, d); /* a burn-in's series over time, what its verdicts read */
  cb_rep_fleet_html(f, d);  /* the points and nodes against a baseline, outliers first */
  cb_rep_matrix_html(f, d);
  if (d->nseries) {
    figures_table(f, d);
    fputs("<p>Charts per op below; click a chart for its SVG.</p>\n", f);
  }
  for (int first = 0, n; first < d->nseries; first += n) {
    n = cb_rep_op_span(d, first);
    const char *op = d->series[first].op;
    fputs("<h2>", f);
    cb_html_put(f, op);
    fputs("</h2>\n", f);
    int bw = !cb_rep_latency_only(op);
    if (bw)
      chart(f, op, "busbw");
    if (bw)
      chart(f, op, "algbw");
    if (cb_rep_has_latency(op))
      chart(f, op, "latency");
    if (bw && cb_rep_has_ratio(d, first, n))
      chart(f, op, "ratio");
    int cap = cb_mop_find(op) >= 0 ? cb_rep_capacity(d, cb_mop_find(op)) : 0;
    if (cap < 0)
      fputs("<p>Capacity planning: no chart. The model predicts no cluster size past "
            "the one measured (the inter-node tier is unknown: measure 2 or more nodes, or give "
            "--topology with an inter-node tier), and one cluster size is a column of points, "
            "not a chart against cluster size; <code>--predict</code> gives the figures. ",
            f);
    if (cap < 0) {
      model_error(f, d, cb_mop_find(op));
      fputs("</p>\n", f);
    }
    if (cap > 0) {
      fputs("<p>Capacity planning: the model's busbw on larger clusters at 1 MiB and 256 MiB, "
            "from the fit; measured points where the inputs have those sizes. ",
            f);
      model_error(f, d, cb_mop_find(op));
      fputs("</p>\n", f);
      chart(f, op, "capacity");
    }
  }
  cb_rep_model_html(f, d);
  cb_rep_tuning_html(f, d);
  cb_rep_layouts_html(f, d);
  runs_table(f, d);
  fputs("</body>\n</html>\n", f);
  if (cb_rep_fclose(f) != 0)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  return CB_OK;
}
