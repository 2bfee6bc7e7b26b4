/* --tune --trials files in --report: what the search measured (rho per
 * algorithm against bucket size, the chosen setting marked, the closing
 * default-vs-tuned re-measure) and, from the summary's T_compute and
 * gradient bytes with the fitted all-reduce, the predicted communication
 * ratio of the step on larger clusters per bucket size. Only numbers and
 * our own words reach the scripts: trials lines carry no strings. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tuner/plugin.h"
#include "../../tuner/space.h"
#include "../model/groups.h"
#include "../model/nccl_predict.h"
#include "base/units.h"
#include "escape.h"
#include "parts.h"
#include "results/overhead.h"

#define MAX_GPUS 16384

/* The search dimensions drawn as separate lines: algorithm and segment
 * (Open MPI) or algorithm and protocol (NCCL). */
struct config_line {
  int algorithm;
  long segsize;
  int protocol;
};

static int by_config(const void *a, const void *b) {
  const struct config_line *x = a, *y = b;
  if (x->algorithm != y->algorithm)
    return x->algorithm - y->algorithm;
  if (x->protocol != y->protocol)
    return x->protocol - y->protocol;
  return (x->segsize > y->segsize) - (x->segsize < y->segsize);
}

static int by_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static const char *config_name(const struct cb_rep_tune *t, int algorithm, long segsize,
                               int protocol, char *buf, size_t len) {
  char seg[32];
  if (t->nccl) {
    snprintf(buf, len, "%s %s",
             algorithm > 0 && algorithm <= CB_NCCL_NALGOS ? cb_nccl_algo_env[algorithm - 1]
                                                          : "NCCL's algorithm",
             protocol > 0 && protocol <= CB_NCCL_NPROTOS ? cb_nccl_proto_env[protocol - 1]
                                                         : "(NCCL's protocol)");
    return buf;
  }
  if (algorithm < 0 || algorithm >= CB_NALGORITHMS)
    snprintf(buf, len, "the library's algorithm");
  else if (segsize)
    snprintf(buf, len, "%d %s, segment %s", algorithm, cb_algorithm_names[algorithm],
             cb_format_size((uint64_t)segsize, seg, sizeof seg));
  else
    snprintf(buf, len, "%d %s", algorithm, cb_algorithm_names[algorithm]);
  return buf;
}

/* rho of a trial: its step time over the summary's T_compute, less 1; the
 * step time in ms when the run ended before its summary. */
static double y_of(const struct cb_rep_tune *t, double t_step_us) {
  return t->has_summary ? t_step_us / t->def.t_compute_us - 1 : t_step_us * 1e-3;
}

/* Mean step time of one configuration's trials (a setting measured in
 * more than one search batch has several); NAN when never measured. */
static double mean_step(const struct cb_rep_tune *t, int algorithm, long segsize, int protocol,
                        uint64_t bucket) {
  double sum = 0;
  int n = 0;
  for (int i = 0; i < t->ntrials; i++) {
    const struct cb_rep_trial *r = &t->trials[i];
    if (r->algorithm == algorithm && r->segsize == segsize && r->protocol == protocol &&
        r->bucket_bytes == bucket)
      sum += r->t_step_us, n++;
  }
  return n ? sum / n : NAN;
}

/* Blocks: one per configuration line ("bucket y"), then the chosen setting
 * ("bucket y"), then the re-measure ("bucket rho ci95", default and tuned). */
static void trials_data(FILE *f, FILE *gp, const struct cb_rep_tune *t) {
  struct config_line *lines = malloc((t->ntrials ? t->ntrials : 1) * sizeof *lines);
  uint64_t *buckets = malloc((t->ntrials ? t->ntrials : 1) * sizeof *buckets);
  int nl = 0, nb = 0;
  for (int i = 0; i < t->ntrials; i++) {
    struct config_line c = {t->trials[i].algorithm, t->trials[i].segsize, t->trials[i].protocol};
    int seen = 0;
    for (int k = 0; k < nl && !seen; k++)
      seen = !by_config(&lines[k], &c);
    if (!seen)
      lines[nl++] = c;
    for (seen = 0; seen < nb && buckets[seen] != t->trials[i].bucket_bytes; seen++)
      ;
    if (seen == nb)
      buckets[nb++] = t->trials[i].bucket_bytes;
  }
  qsort(lines, nl, sizeof *lines, by_config);
  qsort(buckets, nb, sizeof *buckets, by_u64);
  char name[96];
  fprintf(gp, "nconfigs = %d\narray config_titles[%d]\n", nl, nl ? nl : 1);
  for (int k = 0; k < nl; k++) {
    for (int b = 0, rows = 0; b < nb; b++) {
      double s = mean_step(t, lines[k].algorithm, lines[k].segsize, lines[k].protocol, buckets[b]);
      if (!isnan(s))
        fprintf(f, "%s%llu %.6g\n", k && !rows ? "\n\n" : "", (unsigned long long)buckets[b],
                y_of(t, s)),
            rows++;
    }
    fprintf(
        gp, "config_titles[%d] = '%s'\n", k + 1,
        config_name(t, lines[k].algorithm, lines[k].segsize, lines[k].protocol, name, sizeof name));
  }
  /* the chosen setting at what the search measured for it */
  double chosen =
      mean_step(t, t->tuned.algorithm, t->tuned.segsize, t->tuned.protocol, t->tuned.bucket_bytes);
  int has_chosen = t->has_summary && !isnan(chosen);
  if (has_chosen)
    fprintf(f, "%s%llu %.6g\n", nl ? "\n\n" : "", (unsigned long long)t->tuned.bucket_bytes,
            y_of(t, chosen));
  fprintf(gp, "has_chosen = %d\nchosen_title = 'chosen: %s'\n", has_chosen,
          has_chosen ? config_name(t, t->tuned.algorithm, t->tuned.segsize, t->tuned.protocol, name,
                                   sizeof name)
                     : "");
  if (t->has_summary)
    fprintf(f, "%s%llu %.6g %.6g\n\n\n%llu %.6g %.6g\n", nl || has_chosen ? "\n\n" : "",
            (unsigned long long)t->def.bucket_bytes, t->def.rho, t->def.rho_ci95,
            (unsigned long long)t->tuned.bucket_bytes, t->tuned.rho, t->tuned.rho_ci95);
  fprintf(gp, "has_summary = %d\n", t->has_summary);
  fprintf(gp, "y_label = '%s'\n",
          t->has_summary ? "rho = (T_step - T_compute) / T_compute"
                         : "T_step (ms; no summary line: the run ended before it)");
  /* x tics at the measured bucket sizes */
  fputs("set xtics (", gp);
  for (int b = 0; b < nb; b++)
    fprintf(gp, "%s'%s' %llu", b ? ", " : "", cb_format_size(buckets[b], name, sizeof name),
            (unsigned long long)buckets[b]);
  fprintf(gp, ")\nset xrange [%g:%g]\n", nb ? buckets[0] / 1.5 : 1.0,
          nb ? buckets[nb - 1] * 1.5 : 2.0);
  free(lines), free(buckets);
}

int cb_rep_open_pair(const char *dir, const char *stem, FILE **dat, FILE **gp,
                     struct cb_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.dat", dir, stem);
  if (!(*dat = cb_rep_fopen(path)))
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  snprintf(path, sizeof path, "%s/%s.gp", dir, stem);
  if (!(*gp = cb_rep_fopen(path))) {
    cb_rep_fclose(*dat);
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", path,
                   strerror(errno));
  }
  fprintf(*gp, "# Written by collbench --report; run 'gnuplot %s.gp' in this folder.\n", stem);
  cb_rep_put_png_term(*gp);
  fprintf(*gp, "datafile = '%s.dat'\n", stem);
  return CB_OK;
}

int cb_rep_close_pair(const char *dir, const char *stem, const char *template_name,
                      const char *title, FILE *dat, FILE *gp, struct cb_error *err) {
  char script[64];
  int rc = cb_rep_fclose(dat)
               ? cb_fail(err, cb_write_status(errno), "--out: cannot write %s/%s.dat: %s", dir,
                         stem, strerror(errno))
               : 0;
  if (!rc)
    rc = cb_rep_put_chart(gp, stem, template_name, title, err);
  if (cb_rep_fclose(gp) && !rc)
    rc = cb_fail(err, cb_write_status(errno), "--out: cannot write %s/%s.gp: %s", dir, stem,
                 strerror(errno));
  snprintf(script, sizeof script, "%s.gp", stem);
  return rc ? rc : cb_rep_run_gnuplot(dir, script, err);
}

/* Whether file's tuning gets a step chart: a summary with the gradient
 * bytes, and an all-reduce fit. */
static int has_step(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int file) {
  const struct cb_rep_tune *t = &d->tunes[file];
  return t->has_summary && t->grad_bytes > 0 &&
         (cb_fit_groups_pick(gs, CB_MOP_ALLREDUCE, CB_TIER_INTRA) ||
          cb_fit_groups_pick(gs, CB_MOP_ALLREDUCE, CB_TIER_INTER));
}

/* Bucket sizes for the step chart: the search space's (capped at the
 * gradients) and the two the run compared, each once, ascending. */
static int step_buckets(const struct cb_rep_tune *t, uint64_t *b) {
  int n = 0;
  uint64_t all[34];
  for (int i = 0; i < t->nbuckets; i++)
    all[n++] = t->buckets[i] < t->grad_bytes ? t->buckets[i] : t->grad_bytes;
  all[n++] = t->def.bucket_bytes, all[n++] = t->tuned.bucket_bytes;
  qsort(all, n, sizeof *all, by_u64);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (!m || all[i] != b[m - 1])
      b[m++] = all[i];
  return m;
}

int cb_rep_plot_step_chart(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int file,
                           const char *dir, const struct cb_rep_step_chart *c,
                           struct cb_error *err) {
  const struct cb_rep_tune *t = &d->tunes[file];
  struct cb_system s;
  char from[CB_NTIERS][200], stem[64], sz[32], template_name[64];
  cb_rep_system(d, gs, CB_MOP_ALLREDUCE, &s, from);
  snprintf(stem, sizeof stem, "tune%d_%s", file + 1, c->name);
  FILE *f, *gp;
  if (cb_rep_open_pair(dir, stem, &f, &gp, err))
    return err->status;
  uint64_t b[34];
  int nb = step_buckets(t, b), nlines = 0;
  /* issue 32: nccl records on a GPU topology: buckets at NCCL's own times */
  struct cb_nccl_ctx nctx;
  struct cb_step_opts opt = CB_STEP_DEFAULTS;
  if (cb_nccl_ctx_for_report(d->topo, s.ranks_per_node, gs, CB_MOP_ALLREDUCE, &nctx) == 0)
    opt.allreduce_s = cb_nccl_allreduce_s, opt.ctx = &nctx;
  fprintf(gp, "array step_titles[%d]\n", nb);
  for (int k = 0; k < nb; k++) {
    int rows = 0;
    for (int p = 2; p <= MAX_GPUS; p *= 2) {
      struct cb_step_result r;
      if (cb_model_step(&s, p, c->compute_s, (double)t->grad_bytes, (double)b[k], &opt, &r) == 0)
        fprintf(f, "%s%d %.6g\n", nlines && !rows ? "\n\n" : "", p, c->value(r.rho)), rows++;
    }
    if (rows)
      fprintf(gp, "step_titles[%d] = '%s, bucket %s'\n", ++nlines,
              opt.allreduce_s ? "model (NCCL times)" : "model",
              cb_format_size(b[k], sz, sizeof sz));
  }
  fputs(nlines ? "\n\n" : "", f);
  fprintf(gp, "nlines = %d\n", nlines);
  c->measured(f, gp, t);
  fprintf(gp, "default_title = 'measured, default (bucket %s)'\n",
          cb_format_size(t->def.bucket_bytes, sz, sizeof sz));
  fprintf(gp, "tuned_title = 'measured, tuned (bucket %s)'\n",
          cb_format_size(t->tuned.bucket_bytes, sz, sizeof sz));
  cb_rep_put_tiers_note(gp, &s, from, cb_rep_unit(d));
  snprintf(template_name, sizeof template_name, "%s.gp", c->name);
  return cb_rep_close_pair(dir, stem, template_name, c->title, f, gp, err);
}

static double rho_itself(double rho) {
  return rho;
}

/* the measured rho of the closing re-measure at the run's rank count;
 * the tuned point a little to the right, so both error bars show */
static void measured_rho(FILE *f, FILE *gp, const struct cb_rep_tune *t) {
  (void)gp;
  fprintf(f, "%ld %.6g %.6g\n\n\n%g %.6g %.6g\n", t->nranks, t->def.rho, t->def.rho_ci95,
          t->nranks * 1.1, t->tuned.rho, t->tuned.rho_ci95);
}

static int plot_step(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int file,
                     const char *dir, struct cb_error *err) {
  const struct cb_rep_tune *t = &d->tunes[file];
  char gb[32], title[256];
  /* the file name comes from the command line: a quoted string */
  snprintf(title, sizeof title,
           "%s: step communication ratio, T_compute %.2f ms, %s of gradients, predicted",
           cb_rep_base_name(d->runs[file].path), t->def.t_compute_us * 1e-3,
           cb_format_size(t->grad_bytes, gb, sizeof gb));
  const struct cb_rep_step_chart c = {"step", t->def.t_compute_us * 1e-6, rho_itself, measured_rho,
                                      title};
  return cb_rep_plot_step_chart(d, gs, file, dir, &c, err);
}

int cb_rep_plot_tuning(const struct cb_rep_data *d, const char *dir, struct cb_error *err) {
  struct cb_fit_groups gs;
  int rc = CB_OK;
  if (!d->tunes)
    return CB_OK;
  cb_rep_fit(d, &gs);
  for (int file = 0; file < d->nruns && !rc; file++) {
    const struct cb_rep_tune *t = &d->tunes[file];
    if (!t->present || (!t->ntrials && !t->has_summary))
      continue;
    char stem[64], title[256];
    FILE *f, *gp;
    snprintf(stem, sizeof stem, "tune%d_trials", file + 1);
    if ((rc = cb_rep_open_pair(dir, stem, &f, &gp, err)))
      break;
    trials_data(f, gp, t);
    snprintf(title, sizeof title, "%s: tuner trials, %ld ranks (slowest rank's step)",
             cb_rep_base_name(d->runs[file].path), t->nranks);
    rc = cb_rep_close_pair(dir, stem, "trials.gp", title, f, gp, err);
    if (!rc && has_step(d, &gs, file))
      rc = plot_step(d, &gs, file, dir, err);
    if (!rc && has_step(d, &gs, file))
      rc = cb_rep_plot_overhead(d, &gs, file, dir, err);
  }
  cb_fit_groups_free(&gs);
  return rc;
}

/* ---- index.html ---- */

static void remeasure_row(FILE *f, const struct cb_rep_tune *t, const char *which,
                          const struct cb_rep_tune_cfg *c) {
  char name[96], sz[32];
  fprintf(f, "<tr><td>%s</td><td>%s</td>", which,
          config_name(t, c->algorithm, c->segsize, c->protocol, name, sizeof name));
  fprintf(f, "<td class=n>%s</td>", cb_format_size(c->bucket_bytes, sz, sizeof sz));
  fprintf(f,
          "<td class=n>%.3f</td><td class=n>%.3f</td><td class=n>%.3f &plusmn; %.3f</td>"
          "<td class=n>%.4f &plusmn; %.4f</td></tr>\n",
          c->t_compute_us * 1e-3, c->t_comm_us * 1e-3, c->t_step_us * 1e-3,
          c->t_step_ci95_us * 1e-3, c->rho, c->rho_ci95);
}

static void chart(FILE *f, const char *stem, const char *alt) {
  fprintf(f, "<p><a href=\"%s.svg\"><img src=\"%s.png\" alt=\"%s\"></a></p>\n", stem, stem, alt);
}

void cb_rep_tuning_html(FILE *f, const struct cb_rep_data *d) {
  if (!d->tunes)
    return;
  struct cb_fit_groups gs;
  cb_rep_fit(d, &gs);
  double med = 0, max = 0;
  int nheld = cb_rep_held_out(d, &gs, CB_MOP_ALLREDUCE, &med, &max);
  for (int file = 0; file < d->nruns; file++) {
    const struct cb_rep_tune *t = &d->tunes[file];
    if (!t->present || (!t->ntrials && !t->has_summary))
      continue;
    char stem[64];
    fputs("<h2>Tuning: ", f);
    cb_html_put(f, d->runs[file].path);
    fprintf(f,
            "</h2>\n<p>%d trials on %ld ranks. rho = (T_step &minus; T_compute) / T_compute: the "
            "share of the step lost to communication that did not overlap compute. Trial points "
            "use the summary's T_compute; the closing re-measure takes rho round by round.</p>\n",
            t->ntrials, t->nranks);
    snprintf(stem, sizeof stem, "tune%d_trials", file + 1);
    chart(f, stem, "tuner trials: rho against bucket size");
    if (t->has_summary) {
      fputs("<table>\n<tr><th>closing re-measure</th><th>algorithm</th><th>bucket</th>"
            "<th>T_compute (ms)</th><th>T_comm (ms)</th><th>T_step (ms)</th><th>rho</th></tr>\n",
            f);
      remeasure_row(f, t, "default", &t->def);
      remeasure_row(f, t, "tuned", &t->tuned);
      fputs("</table>\n", f);
    } else
      fputs("<p>No summary line: the run ended before its closing re-measure.</p>\n", f);
    if (has_step(d, &gs, file)) {
      fputs("<h3>Step communication ratio on larger clusters (predicted)</h3>\n<p>", f);
      if (nheld)
        fprintf(f,
                "<strong>Model error on held-out data: all-reduce times of the later input "
                "files predicted with median |error| %.1f%%, max %.1f%%.</strong> ",
                100 * med, 100 * max);
      else
        fputs("<strong>No held-out data: the model's error beyond the fitted points is "
              "unknown; give a second input file (e.g. more ranks) to measure it.</strong> ",
              f);
      fputs("Buckets of gradients all-reduced while backward runs (bench/model/PLANNING.md, "
            "&ldquo;Capacity "
            "planning&rdquo;).</p>\n",
            f);
      snprintf(stem, sizeof stem, "tune%d_step", file + 1);
      chart(f, stem, "predicted step communication ratio against cluster size");
      fprintf(f,
              "<p>Communication overhead = (T_step &minus; T_compute) / T_step against cluster "
              "size, with the target (%g%%) and the measured default and tuned points.</p>\n",
              100 * t->max_overhead);
      snprintf(stem, sizeof stem, "tune%d_overhead", file + 1);
      chart(f, stem, "predicted step communication overhead against cluster size");
    } else if (t->has_summary)
      fputs("<p>No step prediction: it needs an all-reduce measurement among the inputs (to fit "
            "the model) and a summary with grad_bytes.</p>\n",
            f);
  }
  cb_fit_groups_free(&gs);
}

/* The 20% rule in --report: a trials file's step,
 * predicted on larger clusters, as communication overhead (exposed /
 * step) per bucket size, with the run's target as a line and its
 * measured default and tuned overhead as points with their 95% CI. */
static double overhead_percent(double rho) {
  return 100 * cb_overhead_from_rho(rho);
}

static void measured_point(FILE *f, double x, const struct cb_rep_tune_cfg *c) {
  /* from the paired rho, as --tune judged it (overhead.h) */
  struct cb_overhead o = cb_overhead_from_rho_ci(c->rho, c->rho_ci95);
  fprintf(f, "%g %.6g %.6g\n", x, 100 * o.value, 100 * o.ci95);
}

/* the tuned point a little to the right, so both error bars show */
static void measured(FILE *f, FILE *gp, const struct cb_rep_tune *t) {
  measured_point(f, (double)t->nranks, &t->def);
  fputs("\n\n", f);
  measured_point(f, t->nranks * 1.1, &t->tuned);
  fprintf(gp, "target = %g\n", 100 * t->max_overhead);
  fprintf(gp, "target_title = 'target: %g%% of the step'\n", 100 * t->max_overhead);
}

int cb_rep_plot_overhead(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int file,
                         const char *dir, struct cb_error *err) {
  const struct cb_rep_tune *t = &d->tunes[file];
  double compute_s = t->tuned.t_compute_us * 1e-6;
  char gb[32], title[256];
  snprintf(title, sizeof title,
           "run %d: step communication overhead, T_compute %.2f ms, %s of gradients, predicted",
           file + 1, compute_s * 1e3, cb_format_size(t->grad_bytes, gb, sizeof gb));
  const struct cb_rep_step_chart c = {"overhead", compute_s, overhead_percent, measured, title};
  return cb_rep_plot_step_chart(d, gs, file, dir, &c, err);
}
