/* Charts for --report: per op a data file of numbers only, and a gnuplot
 * script made of a generated header and the templates in reports/. Every
 * string from an input reaches the script through cb_gp_put_string, and
 * gnuplot.c runs gnuplot on it (execv, never through a shell). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/robust.h"
#include "config.h"
#include "escape.h"
#include "parts.h"

/* Point-to-point latency, and the model's collectives: their time chart
 * shows the latency term (alpha) the busbw chart hides at small sizes. */
int cb_rep_has_latency(const char *op) {
  return strcmp(op, "p2p_lat") == 0 || cb_mop_find(op) >= 0;
}

/* A latency test: its table shows no bandwidth, so neither does its report. */
int cb_rep_latency_only(const char *op) {
  return strcmp(op, "p2p_lat") == 0;
}

static int write_data(const struct cb_rep_data *d, int first, int n, const char *path,
                      struct cb_error *err) {
  FILE *f = cb_rep_fopen(path);
  if (!f)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  for (int i = first; i < first + n; i++) {
    if (i > first)
      fputs("\n\n", f); /* two blank lines: gnuplot's next 'index' */
    for (int p = 0; p < d->series[i].npts; p++) {
      const struct cb_record *pt = &d->series[i].pts[p];
      /* the busbw interval from the time's: t + ci is the low end, t - ci
       * the high one (none past 0: nan, no bar drawn) */
      double t = pt->time_us, ci = pt->ci95_us, lo = NAN, hi = NAN;
      if (t > 0 && ci >= 0)
        lo = pt->busbw_GBps * t / (t + ci), hi = ci < t ? pt->busbw_GBps * t / (t - ci) : NAN;
      fprintf(f, "%llu %.9g %.9g %.9g %d %.9g %.9g\n", (unsigned long long)pt->bytes, pt->time_us,
              pt->busbw_GBps, pt->algbw_GBps, pt->noisy, lo, hi);
    }
  }
  if (cb_rep_fclose(f) != 0)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  return CB_OK;
}

/* "a.jsonl: mpi host shm in-place", naming only what differs, cut to a
 * width the key can hold (gnuplot drops the whole key otherwise). */
#define TITLE_MAX 90
static void put_title(FILE *f, const struct cb_rep_data *d, const struct cb_rep_series *s,
                      const struct cb_rep_varies *v) {
  char t[TITLE_MAX + 1], file[96] = "";
  const struct cb_rep_run *run = &d->runs[s->file];
  if (d->nruns > 1 || v->file) /* the rank count is what compared files usually differ in */
    snprintf(file, sizeof file, "%s (%ld rank%s, %ld node%s)", cb_rep_base_name(run->path),
             run->nranks, run->nranks == 1 ? "" : "s", run->nnodes, run->nnodes == 1 ? "" : "s");
  snprintf(t, sizeof t, "%s%s%s %s %s%s%s%s%s%s", file, *file ? ": " : "", s->backend, s->mem,
           s->transport, v->dtype ? " " : "", v->dtype ? s->dtype : "", v->redop ? " " : "",
           v->redop ? s->redop : "",
           v->inplace ? (s->inplace ? " in-place" : " out-of-place") : "");
  size_t n = strlen(t);
  if (n == TITLE_MAX) /* cut: no half UTF-8 character at the end */
    while (n > 0 && ((unsigned char)t[n - 1] & 0x80))
      t[--n] = '\0';
  cb_gp_put_string(f, t);
}

/* Size tics at powers of two (every other one over wide ranges), labelled
 * in B, KiB, MiB: gnuplot's own %B prefixes read "ki" and pad oddly. */
static void put_xtics(FILE *f, const struct cb_rep_data *d, int first, int n) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = first; i < first + n; i++) {
    const struct cb_rep_series *s = &d->series[i];
    lo = s->pts[0].bytes < lo ? s->pts[0].bytes : lo;
    hi = s->pts[s->npts - 1].bytes > hi ? s->pts[s->npts - 1].bytes : hi;
  }
  int k0 = 0, k1 = 0;
  while (k0 < 63 && (1ULL << (k0 + 1)) <= lo)
    k0++;
  while (k1 < 63 && (1ULL << k1) < hi)
    k1++;
  int step = k1 - k0 > 10 ? 2 : 1;
  k0 += (k1 - k0) % step; /* so the largest size gets its label */
  fputs("set xtics (", f);
  for (int k = k0; k <= k1; k += step)
    fprintf(f, "%s'%llu %s' %llu", k > k0 ? ", " : "", 1ULL << (k % 10), unit[k / 10], 1ULL << k);
  /* a margin: on a log axis a tic exactly at the end is lost to rounding */
  fprintf(f, ")\nset xrange [%g:%g]\n", lo / 1.25, hi * 1.25);
}

/* OP_KIND.png and .svg from reports/KIND.gp. */
static int put_chart(FILE *f, const char *op, const char *kind, const char *title,
                     struct cb_error *err) {
  char stem[64], template_name[32];
  snprintf(stem, sizeof stem, "%s_%s", op, kind);
  snprintf(template_name, sizeof template_name, "%s.gp", kind);
  return cb_rep_put_chart(f, stem, template_name, title, err);
}

/* A point's busbw as one launch's figure: its median and CI half-width
 * (from the time's, relative; nan without one). */
static struct cb_dist bw_dist(const struct cb_record *r) {
  struct cb_dist d = {.n = 1, .median = r->busbw_GBps};
  d.ci95 = r->time_us > 0 ? r->busbw_GBps * r->ci95_us / r->time_us : NAN;
  return d;
}

/* OP_ratio.dat: for each later file's series with a match in the first
 * file, its busbw over the match's at the sizes both have (one block per
 * series, numbers only): bytes, ratio, its 95% CI's ends (nan: none) and
 * 1 when that CI leaves out 1. Writes the titles into the script. */
static int write_ratio(FILE *gp, const struct cb_rep_data *d, int first, int n,
                       const struct cb_rep_varies *v, const char *dir, const char *op,
                       struct cb_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s_ratio.dat", dir, op);
  FILE *f = cb_rep_fopen(path);
  if (!f)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  int blocks = 0;
  double lo = 0.5, hi = 2; /* the y range: every ratio, and 1 well inside */
  for (int i = first; i < first + n; i++) {
    int b = cb_rep_ratio_base(d, first, n, i);
    if (b < 0)
      continue;
    const struct cb_rep_series *s = &d->series[i], *base = &d->series[b];
    fprintf(f, "%s", blocks ? "\n\n" : "");
    for (int p = 0; p < s->npts; p++)
      for (int q = 0; q < base->npts; q++)
        if (base->pts[q].bytes == s->pts[p].bytes && base->pts[q].busbw_GBps > 0 &&
            s->pts[p].busbw_GBps > 0) {
          /* issue 57: the ratio's interval counts the spread between
           * launches, as --compare's does; 1 inside it is no change */
          struct cb_dist a = bw_dist(&base->pts[q]), b = bw_dist(&s->pts[p]);
          struct cb_ratio r = cb_ratio_launches(&a, &b, cb_launch_sigma(s->pts[p].bytes));
          int beyond = r.lo > 1 || r.hi < 1; /* false with no interval (nan) */
          lo = r.ratio / 1.5 < lo ? r.ratio / 1.5 : lo;
          hi = r.ratio * 1.5 > hi ? r.ratio * 1.5 : hi;
          fprintf(f, "%llu %.6g %.6g %.6g %d\n", (unsigned long long)s->pts[p].bytes, r.ratio, r.lo,
                  r.hi, beyond);
        }
    fprintf(gp, "ratio_titles[%d] = ", ++blocks);
    put_title(gp, d, s, v);
    fputc('\n', gp);
  }
  /* the bars are clipped there: a launch's wide interval must not flatten the others */
  fprintf(gp, "ratio_ymin = %.6g\nratio_ymax = %.6g\n", lo, hi);
  if (cb_rep_fclose(f) != 0)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  return CB_OK;
}

static int write_script(const struct cb_rep_data *d, int first, int n, const char *dir,
                        const char *path, struct cb_error *err) {
  const char *op = d->series[first].op; /* checked to be a plain word on input */
  FILE *f = cb_rep_fopen(path);
  if (!f)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  struct cb_rep_varies v;
  cb_rep_varies(d, first, n, &v);
  fprintf(f, "# Written by collbench --report; run 'gnuplot %s.gp' in this folder.\n", op);
  cb_rep_put_png_term(f);
  int nnoisy = 0; /* the charts mark these points as the table marks their rows */
  for (int i = first; i < first + n; i++)
    nnoisy += cb_rep_noisy(&d->series[i]);
  fprintf(f, "datafile = '%s.dat'\nnseries = %d\nnnoisy = %d\narray titles[%d]\n", op, n, nnoisy,
          n);
  for (int i = 0; i < n; i++) {
    fprintf(f, "titles[%d] = ", i + 1);
    put_title(f, d, &d->series[first + i], &v);
    fputc('\n', f);
  }
  put_xtics(f, d, first, n);
  double top = 0; /* busbw.gp's range: the points, not their widest bar */
  for (int i = first; i < first + n; i++)
    for (int p = 0; p < d->series[i].npts; p++)
      top = d->series[i].pts[p].busbw_GBps > top ? d->series[i].pts[p].busbw_GBps : top;
  if (top > 0)
    fprintf(f, "bw_ymax = %.6g\n", 1.3 * top);
  if (cb_rep_model_lines(f, d, first, n, dir, err)) {
    cb_rep_fclose(f);
    return err->status;
  }
  char title[128];
  int bw = !cb_rep_latency_only(op), rc = CB_OK;
  snprintf(title, sizeof title, "%s: bus bandwidth", op);
  if (bw)
    rc = put_chart(f, op, "busbw", title, err);
  if (!rc && bw) { /* what one rank's buffer sees: OSU's and perftest's bandwidth */
    snprintf(title, sizeof title, "%s: algorithm bandwidth", op);
    rc = put_chart(f, op, "algbw", title, err);
  }
  if (!rc && cb_rep_has_latency(op)) {
    snprintf(title, sizeof title, "%s: time per op", op);
    rc = put_chart(f, op, "latency", title, err);
  }
  if (!rc && bw && cb_rep_has_ratio(d, first, n)) {
    int nratio = 0;
    for (int i = first; i < first + n; i++)
      nratio += cb_rep_ratio_base(d, first, n, i) >= 0;
    fprintf(f, "\nratiofile = '%s_ratio.dat'\nnratio = %d\narray ratio_titles[%d]\n", op, nratio,
            nratio);
    rc = write_ratio(f, d, first, n, &v, dir, op, err);
    /* the first file's name comes from the command line: a quoted string */
    char ratio_title[160];
    snprintf(ratio_title, sizeof ratio_title, "%s: bus bandwidth relative to %s", op,
             cb_rep_base_name(d->runs[0].path));
    if (!rc)
      rc = put_chart(f, op, "ratio", ratio_title, err);
  }
  if (cb_rep_fclose(f) != 0 && !rc)
    rc =
        cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path, strerror(errno));
  return rc;
}

int cb_rep_plot(const struct cb_rep_data *d, const char *dir, struct cb_error *err) {
  char path[4096], script[64];
  for (int first = 0, n; first < d->nseries; first += n) {
    n = cb_rep_op_span(d, first);
    const char *op = d->series[first].op;
    snprintf(path, sizeof path, "%s/%s.dat", dir, op);
    if (write_data(d, first, n, path, err))
      return err->status;
    snprintf(script, sizeof script, "%s.gp", op);
    snprintf(path, sizeof path, "%s/%s", dir, script);
    if (write_script(d, first, n, dir, path, err) || cb_rep_run_gnuplot(dir, script, err))
      return err->status;
  }
  if (cb_rep_plot_capacity(d, dir, err) || cb_rep_plot_tuning(d, dir, err) ||
      cb_rep_plot_layouts(d, dir, err))
    return err->status;
  return cb_rep_plot_matrices(d, dir, err);
}
