/* The all-pairs matrix in --report: per input file with pair lines, a
 * bandwidth and a latency heatmap (sending rank x receiving rank), the
 * hosts of the ranks, and the acceptance verdicts that did not pass.
 * Hostnames go to index.html only, escaped; the gnuplot side sees rank
 * numbers and measured values. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../units.h"
#include "escape.h"
#include "report.h"

/* One file's matrix: N x N cells, row = sending rank, NAN = not measured. */
struct grid {
  long n;
  double *bw, *lat;
  const char **host; /* per rank, from the pair lines (NULL: none) */
  uint64_t bw_bytes, lat_bytes;
};

int cb_rep_has_matrix(const struct cb_rep_data *d, int file) {
  for (int i = 0; i < d->npairs; i++)
    if (d->pairs[i].file == file)
      return 1;
  return 0;
}

static void grid_free(struct grid *g) {
  free(g->bw), free(g->lat), free(g->host);
}

/* The file's round lines; a later line for the same cell replaces an
 * earlier one. */
static void grid_of(const struct cb_rep_data *d, int file, struct grid *g) {
  memset(g, 0, sizeof *g);
  for (int i = 0; i < d->npairs; i++) {
    const struct cb_rep_pair *p = &d->pairs[i];
    if (p->file == file)
      g->n = p->src >= g->n ? p->src + 1 : p->dst >= g->n ? p->dst + 1 : g->n;
  }
  g->bw = malloc(g->n * g->n * sizeof *g->bw);
  g->lat = malloc(g->n * g->n * sizeof *g->lat);
  g->host = calloc(g->n, sizeof *g->host);
  for (long c = 0; c < g->n * g->n; c++)
    g->bw[c] = g->lat[c] = NAN;
  for (int i = 0; i < d->npairs; i++) {
    const struct cb_rep_pair *p = &d->pairs[i];
    if (p->file != file)
      continue;
    long c = p->src * g->n + p->dst;
    if (!isnan(p->bw_GBps))
      g->bw[c] = p->bw_GBps, g->bw_bytes = p->bytes;
    if (!isnan(p->lat_us))
      g->lat[c] = p->lat_us, g->lat_bytes = p->bytes;
    g->host[p->src] = p->src_host, g->host[p->dst] = p->dst_host;
  }
}

/* Blocks of "dst src value" rows, one blank line between sending ranks
 * (gnuplot's grid for 'with image'), two between blocks. */
static void put_block(FILE *f, const struct grid *g, const double *v) {
  for (long s = 0; s < g->n; s++) {
    for (long r = 0; r < g->n; r++)
      fprintf(f, "%ld %ld %.6g\n", r, s, v[s * g->n + r]); /* NAN prints as nan */
    fputc('\n', f);
  }
}

/* The colour scale: bandwidth from 0 to the best pair; latency from the
 * best pair to twice that (the acceptance rule's default bound) or the
 * worst, so a uniform matrix reads green rather than all one extreme. */
static void put_cbrange(FILE *f, const struct grid *g, const double *v, int is_latency) {
  double lo = INFINITY, hi = 0;
  for (long c = 0; c < g->n * g->n; c++)
    if (!isnan(v[c]))
      lo = fmin(lo, v[c]), hi = fmax(hi, v[c]);
  if (hi <= 0) /* nothing measured: any range draws an empty chart */
    lo = 0, hi = 1;
  else if (is_latency)
    hi = fmax(hi, 2 * lo);
  else
    lo = 0;
  fprintf(f, "cb_low = %.6g\ncb_high = %.6g\n", lo, hi);
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static int plot_file(const struct cb_rep_data *d, int file, const char *dir, struct cb_error *err) {
  struct grid g;
  grid_of(d, file, &g);
  char path[4096], script[64], stem[64], title[256];
  snprintf(path, sizeof path, "%s/matrix%d.dat", dir, file + 1);
  FILE *f = fopen(path, "w");
  int rc = CB_OK;
  if (!f)
    rc = cb_fail(err, CB_USAGE, "--out: cannot write '%s': %s", path, strerror(errno));
  if (!rc) {
    put_block(f, &g, g.bw);
    fputc('\n', f);
    put_block(f, &g, g.lat);
    if (fclose(f) != 0)
      rc = cb_fail(err, CB_USAGE, "--out: cannot write '%s'", path);
  }
  snprintf(script, sizeof script, "matrix%d.gp", file + 1);
  snprintf(path, sizeof path, "%s/%s", dir, script);
  if (!rc && !(f = fopen(path, "w")))
    rc = cb_fail(err, CB_USAGE, "--out: cannot write '%s': %s", path, strerror(errno));
  if (!rc) {
    fprintf(f, "# Written by collbench --report; run 'gnuplot %s' in this folder.\n", script);
    cb_rep_put_png_term(f);
    fprintf(f, "matrixfile = 'matrix%d.dat'\nnranks = %ld\n", file + 1, g.n);
    /* the file name comes from the command line; it reaches the script
     * only as a quoted string */
    const char *name = base_name(d->runs[file].path);
    char size[32];
    fputs("\nblock = 0\nvalue_label = 'GB/s'\nhigh_is_good = 1\n", f);
    put_cbrange(f, &g, g.bw, 0);
    snprintf(title, sizeof title, "%s: bandwidth from sending to receiving rank, %s messages", name,
             cb_format_size(g.bw_bytes, size, sizeof size));
    snprintf(stem, sizeof stem, "matrix%d_bw", file + 1);
    rc = cb_rep_put_chart(f, stem, "matrix.gp", title, err);
    fputs("\nblock = 1\nvalue_label = 'us'\nhigh_is_good = 0\n", f);
    put_cbrange(f, &g, g.lat, 1);
    snprintf(title, sizeof title, "%s: latency (half the round trip), %s messages", name,
             cb_format_size(g.lat_bytes, size, sizeof size));
    snprintf(stem, sizeof stem, "matrix%d_lat", file + 1);
    if (!rc)
      rc = cb_rep_put_chart(f, stem, "matrix.gp", title, err);
    if (fclose(f) != 0 && !rc)
      rc = cb_fail(err, CB_USAGE, "--out: cannot write '%s'", path);
  }
  if (!rc)
    rc = cb_rep_run_gnuplot(dir, script, err);
  grid_free(&g);
  return rc;
}

int cb_rep_plot_matrices(const struct cb_rep_data *d, const char *dir, struct cb_error *err) {
  for (int file = 0; file < d->nruns; file++)
    if (cb_rep_has_matrix(d, file) && plot_file(d, file, dir, err))
      return err->status;
  return CB_OK;
}

static void chart(FILE *f, int file, const char *kind, const char *alt) {
  fprintf(f, "<p><a href=\"matrix%d_%s.svg\"><img src=\"matrix%d_%s.png\" alt=\"%s\"></a></p>\n",
          file + 1, kind, file + 1, kind, alt);
}

static void hosts_table(FILE *f, const struct grid *g) {
  fputs("<table>\n<tr><th>rank</th><th>host</th></tr>\n", f);
  for (long r = 0; r < g->n; r++) {
    fprintf(f, "<tr><td class=n>%ld</td><td>", r);
    cb_html_put(f, g->host[r] ? g->host[r] : "");
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* FAIL and WARN in full; PASS only counted. */
static void verdicts_table(FILE *f, const struct cb_rep_data *d) {
  int bad = 0;
  for (int i = 0; i < d->nverdicts; i++)
    bad += strcmp(d->verdicts[i].status, "PASS") != 0;
  fprintf(f, "<h2>Verdicts</h2>\n<p>%d verdict%s", d->nverdicts, d->nverdicts == 1 ? "" : "s");
  if (!bad) {
    fputs(", all PASS.</p>\n", f);
    return;
  }
  fprintf(f, "; %d FAIL or WARN:</p>\n", bad);
  fputs("<table>\n<tr><th>file</th><th>check</th><th>status</th><th>measured</th><th>unit</th>"
        "<th>what</th></tr>\n",
        f);
  for (int i = 0; i < d->nverdicts; i++) {
    const struct cb_rep_verdict *v = &d->verdicts[i];
    if (strcmp(v->status, "PASS") == 0)
      continue;
    const char *cells[] = {d->runs[v->file].path, v->check, v->status};
    fputs("<tr>", f);
    for (int c = 0; c < 3; c++) {
      fputs("<td>", f);
      cb_html_put(f, cells[c]);
      fputs("</td>", f);
    }
    if (isnan(v->measured))
      fputs("<td></td>", f);
    else
      fprintf(f, "<td class=n>%.4g</td>", v->measured);
    fputs("<td>", f);
    cb_html_put(f, v->unit);
    fputs("</td><td>", f);
    cb_html_put(f, v->what);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
}

void cb_rep_matrix_html(FILE *f, const struct cb_rep_data *d) {
  if (d->nverdicts)
    verdicts_table(f, d);
  for (int file = 0; file < d->nruns; file++) {
    if (!cb_rep_has_matrix(d, file))
      continue;
    struct grid g;
    grid_of(d, file, &g);
    fputs("<h2>All-pairs matrix: ", f);
    cb_html_put(f, d->runs[file].path);
    fputs("</h2>\n<p>Row: the sending rank; column: the receiving rank. Measured in rounds in "
          "which every rank sends to one other at once (see README.md, &ldquo;Accepting a new "
          "cluster&rdquo;); retests of suspect links alone are not drawn.</p>\n",
          f);
    chart(f, file, "bw", "all-pairs bandwidth heatmap");
    chart(f, file, "lat", "all-pairs latency heatmap");
    hosts_table(f, &g);
    grid_free(&g);
  }
}
