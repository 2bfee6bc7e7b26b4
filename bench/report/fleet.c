/* --report --baseline B.json: each series of each run against the fleet
 * band per size (fleetN.png/.svg), each node's median pair bandwidth
 * against the fleet's nodes, and the outliers listed first in index.html. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "escape.h"
#include "fleet/baseline.h"
#include "parts.h"

/* The baseline entry of a series' point (NULL: none). */
static const struct cb_bl_entry *entry_of(const struct cb_rep_data *d, const struct cb_record *r) {
  const struct cb_bl_entry *e = cb_baseline_find(d->fleet, r);
  return e && e->d[CB_BLM_TIME].n > 0 ? e : NULL;
}

static double z_of(const struct cb_bl_entry *e, double time_us) {
  return cb_robust_z(&e->d[CB_BLM_TIME], time_us, 0, CB_BASELINE_FLOOR);
}

static int is_outlier(const struct cb_bl_entry *e, double time_us) {
  return e->d[CB_BLM_TIME].n >= CB_BASELINE_MIN_N && z_of(e, time_us) < -CB_BASELINE_K;
}

/* Outliers in series i; -1 when none of its points has an entry. */
static int series_outliers(const struct cb_rep_data *d, int i) {
  const struct cb_rep_series *s = &d->series[i];
  int n = 0, any = 0;
  for (int p = 0; p < s->npts; p++) {
    const struct cb_bl_entry *e = entry_of(d, &s->pts[p]);
    any |= e != NULL;
    n += e && is_outlier(e, s->pts[p].time_us);
  }
  return any ? n : -1;
}

int cb_rep_plot_fleet(const struct cb_rep_data *d, const char *dir, struct cb_error *err) {
  if (!d->fleet)
    return CB_OK;
  char path[4096];
  snprintf(path, sizeof path, "%s/fleet.gp", dir);
  FILE *gp = cb_rep_fopen(path);
  if (!gp)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  cb_rep_put_png_term(gp);
  int charts = 0;
  for (int i = 0; i < d->nseries; i++) {
    const struct cb_rep_series *s = &d->series[i];
    if (series_outliers(d, i) < 0)
      continue;
    snprintf(path, sizeof path, "%s/fleet%d.dat", dir, i + 1);
    FILE *f = cb_rep_fopen(path);
    if (!f) {
      cb_rep_fclose(gp);
      return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                     strerror(errno));
    }
    for (int p = 0; p < s->npts; p++) {
      const struct cb_bl_entry *e = entry_of(d, &s->pts[p]);
      if (!e)
        continue;
      const struct cb_dist *t = &e->d[CB_BLM_TIME];
      double x = s->pts[p].time_us;
      fprintf(f, "%llu %g %g %g %g %g\n", (unsigned long long)s->pts[p].bytes, t->p10, t->p90,
              t->median, x, is_outlier(e, x) ? x : NAN);
    }
    cb_rep_fclose(f);
    char stem[32], title[512];
    snprintf(stem, sizeof stem, "fleet%d", i + 1);
    snprintf(title, sizeof title, "%s: %s %s %s %s %s %s %s against the fleet",
             d->runs[s->file].path, s->op, s->backend, s->mem, s->transport, s->dtype, s->redop,
             s->inplace ? "in-place" : "out-of-place");
    fprintf(gp, "datafile = '%s.dat'\n", stem);
    if (cb_rep_put_chart(gp, stem, "fleet.gp", title, err)) {
      cb_rep_fclose(gp);
      return err->status;
    }
    charts++;
  }
  if (cb_rep_fclose(gp) != 0)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s/fleet.gp': %s", dir,
                   strerror(errno));
  return charts ? cb_rep_run_gnuplot(dir, "fleet.gp", err) : CB_OK;
}

/* Each host's median pair bandwidth in each file against the fleet's nodes. */
static void node_rows(FILE *f, const struct cb_rep_data *d, int want_outliers) {
  double *bw = malloc((d->npairs + 1) * sizeof *bw);
  for (int i = 0; i < d->npairs; i++) {
    const struct cb_rep_pair *p = &d->pairs[i];
    if (p->matrix[0])
      continue;
    const char *hosts[2] = {p->src_host, p->dst_host};
    for (int h = 0; h < 2; h++) {
      int seen = 0, n = 0;
      for (int j = 0; j < i && !seen; j++)
        seen = d->pairs[j].file == p->file && !d->pairs[j].matrix[0] &&
               (!strcmp(d->pairs[j].src_host, hosts[h]) || !strcmp(d->pairs[j].dst_host, hosts[h]));
      if (seen || (h == 1 && !strcmp(hosts[0], hosts[1])))
        continue;
      for (int j = 0; j < d->npairs; j++) {
        const struct cb_rep_pair *q = &d->pairs[j];
        if (q->file == p->file && !q->matrix[0] && !isnan(q->bw_GBps) &&
            (!strcmp(q->src_host, hosts[h]) || !strcmp(q->dst_host, hosts[h])))
          bw[n++] = q->bw_GBps;
      }
      struct cb_bl_entry key = {.kind = CB_BL_NODE, .bytes = p->bytes};
      strcpy(key.src, "*");
      const struct cb_bl_entry *e = cb_baseline_find_entry(d->fleet, &key);
      if (!n || !e || e->d[CB_BLM_BW].n < CB_BASELINE_MIN_N)
        continue;
      cb_sort_doubles(bw, (size_t)n);
      double med = cb_median_sorted(bw, (size_t)n);
      double z = cb_robust_z(&e->d[CB_BLM_BW], med, 1, CB_BASELINE_FLOOR);
      if ((z < -CB_BASELINE_K) != want_outliers)
        continue;
      fputs("<tr><td>", f);
      cb_html_put(f, d->runs[p->file].path);
      fputs("</td><td>node ", f);
      cb_html_put(f, hosts[h]);
      fprintf(f,
              " (median of its %d pairs)</td><td class=n>%llu</td><td class=n>%.4g GB/s</td>"
              "<td class=n>%.4g</td><td class=n>%.4g - %.4g</td><td class=n>%+.2f</td></tr>\n",
              n, (unsigned long long)p->bytes, med, e->d[CB_BLM_BW].median, e->d[CB_BLM_BW].p10,
              e->d[CB_BLM_BW].p90, z);
    }
  }
  free(bw);
}

static void point_rows(FILE *f, const struct cb_rep_data *d, int want_outliers) {
  for (int i = 0; i < d->nseries; i++) {
    const struct cb_rep_series *s = &d->series[i];
    for (int p = 0; p < s->npts; p++) {
      const struct cb_bl_entry *e = entry_of(d, &s->pts[p]);
      if (!e || is_outlier(e, s->pts[p].time_us) != want_outliers)
        continue;
      const struct cb_dist *t = &e->d[CB_BLM_TIME];
      char what[512];
      cb_bl_describe(e, what, sizeof what);
      fputs("<tr>", f);
      cb_html_cell(f, d->runs[s->file].path);
      cb_html_cell(f, what);
      fprintf(f,
              "<td class=n>%llu</td><td class=n>%.4g us</td><td class=n>%.4g</td>"
              "<td class=n>%.4g - %.4g</td><td class=n>%+.2f</td></tr>\n",
              (unsigned long long)s->pts[p].bytes, s->pts[p].time_us, t->median, t->p10, t->p90,
              z_of(e, s->pts[p].time_us));
    }
  }
}

void cb_rep_fleet_html(FILE *f, const struct cb_rep_data *d) {
  if (!d->fleet)
    return;
  fputs("<h2>Against the fleet: ", f);
  cb_html_put(f, d->fleet->path);
  fprintf(f,
          "</h2>\n<p>Robust z = (measured - fleet median) / (1.4826 MAD), negative is slower; "
          "an outlier is under z -%g (with at least %d figures in the baseline). Outliers "
          "first.</p>\n<table>\n<tr><th>file</th><th>what</th><th>bytes</th><th>measured</th>"
          "<th>fleet median</th><th>fleet p10 - p90</th><th>z</th></tr>\n",
          CB_BASELINE_K, CB_BASELINE_MIN_N);
  fputs("<tr><th colspan=7>outliers</th></tr>\n", f);
  point_rows(f, d, 1);
  node_rows(f, d, 1);
  fputs("<tr><th colspan=7>within the fleet</th></tr>\n", f);
  point_rows(f, d, 0);
  node_rows(f, d, 0);
  fputs("</table>\n", f);
  for (int pass = 1; pass >= 0; pass--) /* the charts with outliers first */
    for (int i = 0; i < d->nseries; i++) {
      int n = series_outliers(d, i);
      if (n < 0 || (n > 0) != pass)
        continue;
      fprintf(f,
              "<p>%s<a href=\"fleet%d.svg\"><img src=\"fleet%d.png\" alt=\"series %d against "
              "the fleet\"></a></p>\n",
              n ? "<strong>outliers:</strong> " : "", i + 1, i + 1, i + 1);
    }
}
