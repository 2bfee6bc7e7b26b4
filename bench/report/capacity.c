/* The model drawn with the measurements: dashed predicted lines on each
 * op's busbw and latency charts (the alpha-beta fit of the first file, at
 * every series' own rank and node counts, so later files show how well it
 * predicts what it did not see), and per op a capacity chart: predicted
 * busbw against cluster size at fixed message sizes, with the measured
 * points where the inputs have those sizes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/groups.h"
#include "../model/nccl_predict.h"
#include "base/stats.h"
#include "base/units.h"
#include "escape.h"
#include "parts.h"

/* Message sizes of the capacity chart: a latency-bound and a
 * bandwidth-bound one. */
static const uint64_t capacity_sizes[] = {1u << 20, 256u << 20};
#define NCAPACITY_SIZES 2
#define MAX_GPUS 16384

/* "model fit on a.jsonl: 12% median error here, 40% max": what the dashed
 * lines are and how far they are from the very points on the chart (issue
 * 57: one fit group's own error once labelled lines 50% off their points
 * "4%"); index.html gives the held-out error beside it. Short: gnuplot
 * warns past about 85 characters and crowds the key. */
static void put_model_title(FILE *gp, const struct cb_rep_data *d, double *errs, int nerrs) {
  char t[200], names[64];
  cb_rep_fit_names(d, names, sizeof names);
  cb_sort_doubles(errs, (size_t)nerrs);
  snprintf(t, sizeof t, "model fit on %.40s: %.0f%% median error here, %.0f%% max", names,
           100 * cb_quantile_sorted(errs, (size_t)nerrs, 0.5), 100 * errs[nerrs - 1]);
  fputs("model_title = ", gp);
  cb_gp_put_string(gp, t);
  fputc('\n', gp);
}

int cb_rep_model_lines(FILE *gp, const struct cb_rep_data *d, int first, int n, const char *dir,
                       struct cb_error *err) {
  const char *op_name = d->series[first].op;
  int op = cb_mop_find(op_name), nmodel = 0;
  struct cb_fit_groups gs = {0};
  char path[4096];
  snprintf(path, sizeof path, "%s/%s_model.dat", dir, op_name);
  FILE *f = NULL;
  if (op >= 0) {
    cb_rep_fit(d, &gs);
    if (!(f = cb_rep_fopen(path))) {
      cb_fit_groups_free(&gs);
      return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                     strerror(errno));
    }
  }
  fprintf(gp, "array model_of[%d]\n", n);
  int cap = 0, nerrs = 0;
  for (int i = first; i < first + n; i++)
    cap += d->series[i].npts;
  double *errs = malloc((size_t)(cap ? cap : 1) * sizeof *errs); /* |error| per point drawn */
  for (int i = first; f && errs && i < first + n; i++) {
    const struct cb_rep_series *s = &d->series[i];
    int wrote = 0;
    for (int k = 0; k < s->npts; k++) {
      const struct cb_record *r = &s->pts[k];
      const struct cb_fit_group *g = cb_fit_groups_match(&gs, s, r);
      if (!g || r->nranks < 2)
        continue;
      double t = cb_fit_group_time(g, r);
      if (r->time_us > 0)
        errs[nerrs++] = fabs(t * 1e6 - r->time_us) / r->time_us;
      if (!wrote)
        fputs(nmodel ? "\n\n" : "", f);
      fprintf(f, "%llu %.9g %.9g\n", (unsigned long long)r->bytes, t * 1e6,
              cb_model_busbw(op, r->nranks, (double)r->bytes, t) * 1e-9);
      wrote = 1;
    }
    if (wrote) /* the series' colour */
      fprintf(gp, "model_of[%d] = %d\n", ++nmodel, i - first + 1);
  }
  /* without a model gnuplot still reads the names in the empty loops */
  fprintf(gp, "nmodel = %d\nmodelfile = '%s%s.dat'\n", nmodel, op_name, nmodel ? "_model" : "");
  if (nmodel && nerrs)
    put_model_title(gp, d, errs, nerrs);
  else
    fputs("model_title = ''\n", gp);
  free(errs);
  int rc = CB_OK;
  if (f && cb_rep_fclose(f) != 0)
    rc =
        cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path, strerror(errno));
  if (f && !nmodel)
    remove(path);
  cb_fit_groups_free(&gs);
  return rc;
}

/* ---- capacity chart ---- */

/* The system an op is predicted on: fitted tiers, the topology's where the
 * fit has none; ranks per node from the topology, else the fitted runs'
 * (as --predict), else 8. */
void cb_rep_system(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int op,
                   struct cb_system *s, char from[CB_NTIERS][200]) {
  memset(s, 0, sizeof *s);
  memset(from, 0, CB_NTIERS * sizeof from[0]);
  cb_fit_system(gs, d->topo, op, s, from);
  int fitted = cb_fit_groups_ranks_per_node(gs);
  s->ranks_per_node = d->topo && d->topo->ranks_per_node > 0 ? d->topo->ranks_per_node
                      : fitted > 0                           ? fitted
                                                             : 8;
}

/* "GPUs" where the inputs measured device memory or a topology describes
 * GPUs, else "ranks": a host run's capacity is in ranks. */
const char *cb_rep_unit(const struct cb_rep_data *d) {
  if (d->topo)
    return "GPUs";
  for (int i = 0; i < d->nseries; i++)
    if (strcmp(d->series[i].mem, "host") != 0)
      return "GPUs";
  return "ranks";
}

/* Chart subtitle: where each tier came from, or why predictions stop. */
void cb_rep_put_tiers_note(FILE *gp, const struct cb_system *s, char from[CB_NTIERS][200],
                           const char *unit) {
  char note[CB_GP_MAX_STRING + 1];
  if (!s->tier[CB_TIER_INTER].set)
    snprintf(note, sizeof note,
             "%d %s per node; inter-node tier unknown (measure 2+ nodes or give --topology): "
             "one node only",
             s->ranks_per_node, unit);
  else
    snprintf(note, sizeof note, "%d %s per node; intra-node: %s; inter-node: %s", s->ranks_per_node,
             unit, from[CB_TIER_INTRA], from[CB_TIER_INTER]);
  fputs("chart_note = ", gp);
  cb_gp_put_string(gp, note);
  fprintf(gp, "\nunit = '%s'\n", unit);
}

/* Blocks of "gpus busbw_GBps": one per size and algorithm that predicts
 * anything, then one per size with measured points. Styles and titles go
 * to the script. Returns how many blocks (0: nothing to draw). */
static int capacity_data(FILE *f, FILE *gp, const struct cb_rep_data *d, int op,
                         const struct cb_system *s, const struct cb_fit_groups *gs) {
  char sz[32], t[96];
  int nlines = 0, npoints = 0, xmax = 2;
  fprintf(gp, "array cap_titles[%d]\narray cap_lc[%d]\narray cap_dt[%d]\n",
          NCAPACITY_SIZES * (CB_NALGOS + 2), NCAPACITY_SIZES * (CB_NALGOS + 2),
          NCAPACITY_SIZES * (CB_NALGOS + 2));
  /* issue 32: nccl records on a GPU topology: NCCL's own pick and time too */
  struct cb_nccl_ctx nctx;
  if (cb_nccl_ctx_for_report(d->topo, s->ranks_per_node, gs, op, &nctx) == 0)
    for (int z = 0; z < NCAPACITY_SIZES; z++) {
      int rows = 0;
      for (int p = 2; p <= MAX_GPUS; p *= 2) {
        double bytes = (double)capacity_sizes[z];
        double bw = cb_model_busbw(op, p, bytes, cb_nccl_op_s(&nctx, op, p, bytes));
        if (!isfinite(bw))
          continue;
        fprintf(f, "%s%d %.9g\n", !rows && nlines ? "\n\n" : "", p, bw * 1e-9);
        rows++;
        xmax = p > xmax ? p : xmax;
      }
      if (!rows)
        continue;
      nlines++;
      snprintf(t, sizeof t, "NCCL's pick, %s (its cost model)",
               cb_format_size(capacity_sizes[z], sz, sizeof sz));
      fprintf(gp, "cap_titles[%d] = \"%s\"\ncap_lc[%d] = %d\ncap_dt[%d] = %d\n", nlines, t, nlines,
              CB_NALGOS + 1, nlines, z == 0 ? 2 : 1);
    }
  for (int z = 0; z < NCAPACITY_SIZES; z++)
    for (int a = 0; a < CB_NALGOS; a++) {
      int rows = 0;
      for (int p = 2; p <= MAX_GPUS; p *= 2) {
        struct cb_prediction pr = cb_model_predict(op, a, s, p, (double)capacity_sizes[z]);
        if (!isfinite(pr.busbw_Bps))
          continue;
        fprintf(f, "%s%d %.9g\n", !rows && nlines ? "\n\n" : "", p, pr.busbw_Bps * 1e-9);
        rows++;
        xmax = p > xmax ? p : xmax;
      }
      if (!rows)
        continue;
      nlines++;
      snprintf(t, sizeof t, "%s, %s (model)", cb_algo_names[a],
               cb_format_size(capacity_sizes[z], sz, sizeof sz));
      fprintf(gp, "cap_titles[%d] = '%s'\ncap_lc[%d] = %d\ncap_dt[%d] = %d\n", nlines, t, nlines,
              a + 1, nlines, z == 0 ? 2 : 1);
    }
  for (int z = 0; z < NCAPACITY_SIZES; z++) {
    int rows = 0;
    for (int i = 0; i < d->nseries; i++) {
      const struct cb_rep_series *se = &d->series[i];
      if (cb_mop_find(se->op) != op)
        continue;
      for (int k = 0; k < se->npts; k++)
        if (se->pts[k].bytes == capacity_sizes[z] && se->pts[k].nranks > 1) {
          fprintf(f, "%s%d %.9g\n", !rows && nlines + npoints ? "\n\n" : "", se->pts[k].nranks,
                  se->pts[k].busbw_GBps);
          rows++;
          xmax = se->pts[k].nranks > xmax ? se->pts[k].nranks : xmax;
        }
    }
    if (!rows)
      continue;
    npoints++;
    snprintf(t, sizeof t, "measured, %s", cb_format_size(capacity_sizes[z], sz, sizeof sz));
    fprintf(gp, "cap_titles[%d] = '%s'\ncap_lc[%d] = %d\ncap_dt[%d] = 1\n", nlines + npoints, t,
            nlines + npoints, z == 0 ? 7 : 8, nlines + npoints);
  }
  /* the axis ends where the predictions do (a one-node fit: its node) */
  fprintf(gp, "nlines = %d\nnpoints = %d\ncap_xmax = %d\n", nlines, npoints, xmax);
  /* issue 57: one cluster size (2, the smallest) is no chart against
   * cluster size: a column of points under seven legend entries */
  return xmax > 2 ? nlines + npoints : 0;
}

/* Whether op's chart would hold anything past one cluster size: what it
 * would hold, written nowhere. */
static int drawable(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int op) {
  struct cb_system s;
  char from[CB_NTIERS][200], *a = NULL, *b = NULL;
  size_t la = 0, lb = 0;
  FILE *f = open_memstream(&a, &la), *gp = open_memstream(&b, &lb);
  cb_rep_system(d, gs, op, &s, from);
  int drawn = f && gp ? capacity_data(f, gp, d, op, &s, gs) : 0;
  if (f)
    fclose(f);
  if (gp)
    fclose(gp);
  free(a), free(b);
  return drawn > 0;
}

static int fitted(const struct cb_fit_groups *gs, int op) {
  return cb_fit_groups_pick(gs, op, CB_TIER_INTRA) || cb_fit_groups_pick(gs, op, CB_TIER_INTER);
}

int cb_rep_capacity(const struct cb_rep_data *d, int op) {
  struct cb_fit_groups gs;
  cb_rep_fit(d, &gs);
  int state = !fitted(&gs, op) ? 0 : drawable(d, &gs, op) ? 1 : -1;
  cb_fit_groups_free(&gs);
  return state;
}

static int plot_capacity(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int op,
                         const char *dir, struct cb_error *err) {
  const char *name = cb_mop_names[op];
  struct cb_system s;
  char from[CB_NTIERS][200], path[4096], script[64], title[128];
  cb_rep_system(d, gs, op, &s, from);
  snprintf(path, sizeof path, "%s/%s_capacity.dat", dir, name);
  FILE *f = cb_rep_fopen(path);
  if (!f)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  snprintf(script, sizeof script, "%s_capacity.gp", name);
  snprintf(path, sizeof path, "%s/%s", dir, script);
  FILE *gp = cb_rep_fopen(path);
  if (!gp) {
    cb_rep_fclose(f);
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  }
  fprintf(gp, "# Written by collbench --report; run 'gnuplot %s' in this folder.\n", script);
  cb_rep_put_png_term(gp);
  fprintf(gp, "capfile = '%s_capacity.dat'\n", name);
  capacity_data(f, gp, d, op, &s, gs);
  cb_rep_put_tiers_note(gp, &s, from, cb_rep_unit(d));
  int rc = cb_rep_fclose(f)
               ? cb_fail(err, cb_write_status(errno), "--out: cannot write %s_capacity.dat: %s",
                         name, strerror(errno))
               : 0;
  snprintf(title, sizeof title, "%s: predicted bus bandwidth against cluster size", name);
  char stem[64];
  snprintf(stem, sizeof stem, "%s_capacity", name);
  if (!rc)
    rc = cb_rep_put_chart(gp, stem, "capacity.gp", title, err);
  if (cb_rep_fclose(gp) != 0 && !rc)
    rc =
        cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path, strerror(errno));
  if (!rc)
    rc = cb_rep_run_gnuplot(dir, script, err);
  return rc;
}

int cb_rep_plot_capacity(const struct cb_rep_data *d, const char *dir, struct cb_error *err) {
  struct cb_fit_groups gs;
  cb_rep_fit(d, &gs);
  int rc = CB_OK;
  for (int op = 0; op < CB_NMOPS && !rc; op++)
    if (fitted(&gs, op) && drawable(d, &gs, op)) /* an empty chart fails gnuplot: a sentence */
      rc = plot_capacity(d, &gs, op, dir, err);
  cb_fit_groups_free(&gs);
  return rc;
}
