/* The all-pairs matrix in --report: per input file with pair lines, a
 * bandwidth and a latency heatmap (sending rank x receiving rank), the
 * hosts of the ranks, and the acceptance verdicts that did not pass.
 * Hostnames go to index.html only, escaped; the gnuplot side sees rank
 * numbers and measured values. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "escape.h"
#include "parts.h"

/* One file's matrix: N x N cells, row = sending rank, NAN = not measured. */
struct grid {
  long n;
  double *bw, *lat;
  const char **host; /* per rank, from the pair lines (NULL: none) */
  /* per cell: 1 bandwidth, 2 latency measured again alone (the MPI
   * matrix's retests); the cell then holds the retests' mean */
  unsigned char *retested;
  int nretested;
  uint64_t bw_bytes, lat_bytes;
  int has_bw, has_lat;
  long sparse_n, sparse_lines; /* not drawn: ranks named, pair lines that name them */
};

/* A heatmap is drawn up to this many ranks whatever it holds; past it only
 * when its pair lines fill one cell in 16 (a --matrix run stopped after a
 * sixteenth of its rounds still draws), so a file of a few lines naming
 * rank 4095 cannot make a 4096 x 4096 chart (451 MB of .dat, GBs of SVG). */
#define DENSE_ANY_RANKS 64
#define DENSE_FILL 16

int cb_rep_has_matrix(const struct cb_rep_data *d, int file) {
  for (int i = 0; i < d->npairs; i++)
    if (d->pairs[i].file == file)
      return 1;
  return 0;
}

/* The matrix names of a file's pair lines, in order of appearance ("" is
 * the MPI all-pairs matrix); returns how many. */
#define MAX_MATRICES 16
static int matrix_names(const struct cb_rep_data *d, int file, const char **names) {
  int n = 0;
  for (int i = 0; i < d->npairs; i++) {
    const struct cb_rep_pair *p = &d->pairs[i];
    int k = 0;
    while (p->file == file && k < n && strcmp(names[k], p->matrix) != 0)
      k++;
    if (p->file == file && k == n && n < MAX_MATRICES)
      names[n++] = p->matrix;
  }
  return n;
}

/* What a copy matrix measured, for titles; others are named as they are. */
static const char *copy_what(const char *name) {
  static const char *const known[][2] = {
      {"copy_ce", "copy-engine copies (cudaMemcpy)"},
      {"copy_ce_bidir", "copy-engine copies, both directions at once"},
      {"copy_sm", "SM copy-kernel copies"},
      {"copy_sm_bidir", "SM copy-kernel copies, both directions at once"},
      {"copy_h2d", "copies from host memory to each GPU"},
      {"copy_d2h", "copies from each GPU to host memory"},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(name, known[i][0]) == 0)
      return known[i][1];
  return name;
}

static void grid_free(struct grid *g) {
  free(g->bw), free(g->lat), free(g->host), free(g->retested);
}

/* The retests of the MPI matrix's suspects at its sizes: each retested
 * cell takes the mean of its retests and is marked (issue 57: a pair its
 * own retests cleared was painted red by its round figure). */
static int apply_retests(const struct cb_rep_data *d, int file, struct grid *g) {
  long cells = g->n * g->n;
  double *sum = calloc(2 * (size_t)cells, sizeof *sum);
  int *cnt = calloc(2 * (size_t)cells, sizeof *cnt);
  g->retested = calloc((size_t)cells, 1);
  if (!sum || !cnt || !g->retested) {
    free(sum), free(cnt);
    return -1;
  }
  for (int i = 0; i < d->nretests; i++) {
    const struct cb_rep_retest *t = &d->retests[i];
    if (t->file != file || t->src < 0 || t->dst < 0 || t->src >= g->n || t->dst >= g->n)
      continue;
    long c = t->src * g->n + t->dst;
    if (!isnan(t->bw_GBps) && t->bytes == g->bw_bytes)
      sum[c] += t->bw_GBps, cnt[c]++;
    if (!isnan(t->lat_us) && t->bytes == g->lat_bytes)
      sum[cells + c] += t->lat_us, cnt[cells + c]++;
  }
  for (long c = 0; c < cells; c++) {
    if (cnt[c])
      g->bw[c] = sum[c] / cnt[c], g->retested[c] |= 1;
    if (cnt[cells + c])
      g->lat[c] = sum[cells + c] / cnt[cells + c], g->retested[c] |= 2;
    g->nretested += g->retested[c] != 0;
  }
  free(sum), free(cnt);
  return 0;
}

static int in_grid(const struct cb_rep_pair *p, int file, const char *matrix) {
  return p->file == file && strcmp(p->matrix, matrix) == 0 && p->src >= 0 && p->dst >= 0;
}

/* The file's round lines of one matrix between ranks or GPUs (host rows
 * of copy matrices are a table instead); a later line for the same cell
 * replaces an earlier one. */
static int grid_of(const struct cb_rep_data *d, int file, const char *matrix, struct grid *g) {
  memset(g, 0, sizeof *g);
  /* the grid spans the largest rank on either side: a truncated --matrix
   * output can name a receiver larger than every sender (ranks were
   * checked to be 0 to CB_REP_MAX_MATRIX_RANKS - 1 on input) */
  for (int i = 0; i < d->npairs; i++) {
    const struct cb_rep_pair *p = &d->pairs[i];
    if (!in_grid(p, file, matrix))
      continue;
    if (p->src >= g->n)
      g->n = p->src + 1;
    if (p->dst >= g->n)
      g->n = p->dst + 1;
    g->sparse_lines++;
  }
  if (g->n > DENSE_ANY_RANKS && g->sparse_lines * DENSE_FILL < g->n * g->n) {
    g->sparse_n = g->n;
    g->n = 0; /* nothing drawn, nothing allocated */
    return 0;
  }
  g->sparse_lines = 0;
  long cells = g->n > 0 ? g->n * g->n : 1;
  g->bw = malloc(cells * sizeof *g->bw);
  g->lat = malloc(cells * sizeof *g->lat);
  g->host = calloc(g->n ? g->n : 1, sizeof *g->host);
  if (!g->bw || !g->lat || !g->host) { /* 4096 ranks take 256 MiB */
    grid_free(g);
    memset(g, 0, sizeof *g);
    return -1;
  }
  for (long c = 0; c < g->n * g->n; c++)
    g->bw[c] = g->lat[c] = NAN;
  for (int i = 0; i < d->npairs; i++) {
    const struct cb_rep_pair *p = &d->pairs[i];
    if (!in_grid(p, file, matrix))
      continue;
    long c = p->src * g->n + p->dst;
    if (!isnan(p->bw_GBps))
      g->bw[c] = p->bw_GBps, g->bw_bytes = p->bytes, g->has_bw = 1;
    if (!isnan(p->lat_us))
      g->lat[c] = p->lat_us, g->lat_bytes = p->bytes, g->has_lat = 1;
    g->host[p->src] = p->src_host, g->host[p->dst] = p->dst_host;
  }
  if (!*matrix && apply_retests(d, file, g)) {
    grid_free(g);
    memset(g, 0, sizeof *g);
    return -1;
  }
  return 0;
}

/* "matrix2" for the MPI matrix of the second file, "matrix2_copy_ce" for
 * a copy matrix (names were checked to be plain words on input). */
static void stem_of(int file, const char *matrix, char *buf, size_t len) {
  snprintf(buf, len, "matrix%d%s%s", file + 1, *matrix ? "_" : "", matrix);
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

static int put_retests(const struct grid *g, const char *dir, const char *base,
                       struct cb_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s_retests.dat", dir, base);
  FILE *f = cb_rep_fopen(path);
  if (!f)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  for (long c = 0; c < g->n * g->n; c++)
    if (g->retested[c])
      fprintf(f, "%ld %ld %d %d\n", c % g->n, c / g->n, g->retested[c] & 1,
              (g->retested[c] & 2) >> 1);
  if (cb_rep_fclose(f) != 0)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  return CB_OK;
}

static int plot_matrix(const struct cb_rep_data *d, int file, const char *matrix, const char *dir,
                       struct cb_error *err) {
  struct grid g;
  if (grid_of(d, file, matrix, &g))
    return cb_fail(err, CB_RUNTIME, "--report: no memory for the matrix of '%s'",
                   d->runs[file].path);
  if (g.sparse_n)
    fprintf(stderr,
            "collbench: --report: '%s' names rank %ld in %ld pair lines: too few to draw a "
            "%ld x %ld heatmap (one cell in %d needed past %d ranks); none drawn\n",
            d->runs[file].path, g.sparse_n - 1, g.sparse_lines, g.sparse_n, g.sparse_n, DENSE_FILL,
            DENSE_ANY_RANKS);
  if (g.n == 0) { /* only host rows: a table in index.html */
    grid_free(&g);
    return CB_OK;
  }
  char path[4096], script[96], base[64], stem[96], title[256];
  stem_of(file, matrix, base, sizeof base);
  snprintf(path, sizeof path, "%s/%s.dat", dir, base);
  FILE *f = cb_rep_fopen(path);
  int rc = CB_OK;
  if (!f)
    rc =
        cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path, strerror(errno));
  if (!rc) {
    put_block(f, &g, g.bw);
    fputc('\n', f);
    put_block(f, &g, g.lat);
    if (cb_rep_fclose(f) != 0)
      rc = cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  }
  if (!rc && g.nretested) /* "dst src bw? lat?": the cells measured again alone */
    rc = put_retests(&g, dir, base, err);
  snprintf(script, sizeof script, "%s.gp", base);
  snprintf(path, sizeof path, "%s/%s", dir, script);
  if (!rc && !(f = cb_rep_fopen(path)))
    rc =
        cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path, strerror(errno));
  if (!rc) {
    fprintf(f, "# Written by collbench --report; run 'gnuplot %s' in this folder.\n", script);
    cb_rep_put_png_term(f);
    /* the name even when empty: gnuplot reads names in empty loops */
    fprintf(f,
            "matrixfile = '%s.dat'\nnranks = %ld\nnretested = %d\nretestfile = '%s_retests.dat'\n",
            base, g.n, g.nretested, base);
    fprintf(f, "x_label = '%s'\ny_label = '%s'\n", *matrix ? "destination GPU" : "receiving rank",
            *matrix ? "source GPU" : "sending rank");
    /* the file name comes from the command line; it reaches the script
     * only as a quoted string */
    const char *name = cb_rep_base_name(d->runs[file].path);
    char size[32];
    if (g.has_bw) {
      fputs("\nblock = 0\nvalue_label = 'GB/s'\nhigh_is_good = 1\n", f);
      put_cbrange(f, &g, g.bw, 0);
      if (*matrix)
        snprintf(title, sizeof title, "%s: %s: bandwidth from source to destination GPU, %s", name,
                 copy_what(matrix), cb_format_size(g.bw_bytes, size, sizeof size));
      else
        snprintf(title, sizeof title, "%s: bandwidth from sending to receiving rank, %s messages",
                 name, cb_format_size(g.bw_bytes, size, sizeof size));
      snprintf(stem, sizeof stem, "%s_bw", base);
      rc = cb_rep_put_chart(f, stem, "matrix.gp", title, err);
    }
    if (!rc && g.has_lat) {
      fputs("\nblock = 1\nvalue_label = 'us'\nhigh_is_good = 0\n", f);
      put_cbrange(f, &g, g.lat, 1);
      snprintf(title, sizeof title, "%s: %s%slatency (half the round trip), %s messages", name,
               *matrix ? copy_what(matrix) : "", *matrix ? ": " : "",
               cb_format_size(g.lat_bytes, size, sizeof size));
      snprintf(stem, sizeof stem, "%s_lat", base);
      rc = cb_rep_put_chart(f, stem, "matrix.gp", title, err);
    }
    if (cb_rep_fclose(f) != 0 && !rc)
      rc = cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  }
  if (!rc)
    rc = cb_rep_run_gnuplot(dir, script, err);
  grid_free(&g);
  return rc;
}

int cb_rep_plot_matrices(const struct cb_rep_data *d, const char *dir, struct cb_error *err) {
  const char *names[MAX_MATRICES];
  for (int file = 0; file < d->nruns; file++) {
    int n = matrix_names(d, file, names);
    for (int k = 0; k < n; k++)
      if (plot_matrix(d, file, names[k], dir, err))
        return err->status;
  }
  return CB_OK;
}

static void chart(FILE *f, const char *base, const char *kind, const char *alt) {
  fprintf(f, "<p><a href=\"%s_%s.svg\"><img src=\"%s_%s.png\" alt=\"%s\"></a></p>\n", base, kind,
          base, kind, alt);
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
  int model = 0; /* the model's columns only where a verdict has them (issue 58) */
  for (int i = 0; i < d->nverdicts; i++)
    model |= (d->verdicts[i].expected && d->verdicts[i].expected[0]) ||
             (d->verdicts[i].cost && d->verdicts[i].cost[0]);
  fputs("<table>\n<tr><th>file</th><th>check</th><th>status</th><th>measured</th><th>unit</th>", f);
  if (model)
    fputs("<th>expected (model)</th><th>cost at scale</th>", f);
  fputs("<th>what</th><th>likely cause</th></tr>\n", f);
  for (int i = 0; i < d->nverdicts; i++) {
    const struct cb_rep_verdict *v = &d->verdicts[i];
    if (strcmp(v->status, "PASS") == 0)
      continue;
    const char *cells[] = {d->runs[v->file].path, v->check, v->status};
    fputs("<tr>", f);
    for (int c = 0; c < 3; c++)
      cb_html_cell(f, cells[c]);
    if (isnan(v->measured))
      fputs("<td></td>", f);
    else
      fprintf(f, "<td class=n>%.4g</td>", v->measured);
    cb_html_cell(f, v->unit);
    if (model) {
      cb_html_cell(f, v->expected ? v->expected : "");
      cb_html_cell(f, v->cost ? v->cost : "");
    }
    cb_html_cell(f, v->what);
    cb_html_cell(f, v->causes && v->causes[0] ? v->causes : "");
    fputs("</tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* Copies between the host and a GPU (src or dst -1): too few for a
 * heatmap, a table. */
static void host_rows(FILE *f, const struct cb_rep_data *d, int file, const char *matrix) {
  int any = 0;
  char size[32];
  for (int i = 0; i < d->npairs; i++) {
    const struct cb_rep_pair *p = &d->pairs[i];
    if (p->file != file || strcmp(p->matrix, matrix) != 0 || (p->src >= 0 && p->dst >= 0))
      continue;
    if (!any++)
      fputs("<table>\n<tr><th>copy</th><th>size</th><th>bandwidth (GB/s)</th><th>link</th>"
            "<th>host</th></tr>\n",
            f);
    if (p->src < 0)
      fprintf(f, "<tr><td>host &rarr; GPU %ld</td>", p->dst);
    else
      fprintf(f, "<tr><td>GPU %ld &rarr; host</td>", p->src);
    fprintf(f, "<td class=n>%s</td>", cb_format_size(p->bytes, size, sizeof size));
    if (isnan(p->bw_GBps))
      fputs("<td></td>", f);
    else
      fprintf(f, "<td class=n>%.3f</td>", p->bw_GBps);
    cb_html_cell(f, p->link);
    cb_html_cell(f, p->src < 0 ? p->src_host : p->dst_host);
    fputs("</tr>\n", f);
  }
  if (any)
    fputs("</table>\n", f);
}

static void matrix_html(FILE *f, const struct cb_rep_data *d, int file, const char *matrix) {
  struct grid g;
  char base[64];
  grid_of(d, file, matrix, &g); /* on failure empty: plot_matrix reported it */
  stem_of(file, matrix, base, sizeof base);
  if (*matrix) {
    fputs("<h2>Copy matrix ", f);
    cb_html_put(f, matrix);
    fputs(": ", f);
    cb_html_put(f, d->runs[file].path);
    fputs("</h2>\n<p>", f);
    cb_html_put(f, copy_what(matrix));
    fputs(g.n ? ". Row: the source GPU; column: the destination GPU.</p>\n" : ".</p>\n", f);
  } else {
    fputs("<h2>All-pairs matrix: ", f);
    cb_html_put(f, d->runs[file].path);
    fputs("</h2>\n<p>Row: the sending rank; column: the receiving rank. Measured in rounds in "
          "which every rank sends to one other at once (see topologies/ACCEPTANCE.md, "
          "&ldquo;Accepting a new "
          "cluster&rdquo;); a pair measured again alone (a suspect's retests) is drawn by its "
          "retests' mean and outlined.</p>\n",
          f);
  }
  if (g.sparse_n)
    fprintf(f,
            "<p>No heatmap: the file names rank %ld in only %ld pair lines, too few for a "
            "%ld x %ld chart.</p>\n",
            g.sparse_n - 1, g.sparse_lines, g.sparse_n, g.sparse_n);
  if (g.has_bw)
    chart(f, base, "bw", *matrix ? "copy bandwidth heatmap" : "all-pairs bandwidth heatmap");
  if (g.has_lat)
    chart(f, base, "lat", *matrix ? "copy latency heatmap" : "all-pairs latency heatmap");
  if (*matrix)
    host_rows(f, d, file, matrix);
  else
    hosts_table(f, &g);
  grid_free(&g);
}

void cb_rep_verdicts_html(FILE *f, const struct cb_rep_data *d) {
  if (d->nverdicts)
    verdicts_table(f, d);
}

void cb_rep_matrix_html(FILE *f, const struct cb_rep_data *d) {
  const char *names[MAX_MATRICES];
  for (int file = 0; file < d->nruns; file++) {
    int n = matrix_names(d, file, names);
    for (int k = 0; k < n; k++)
      matrix_html(f, d, file, names[k]);
  }
}
