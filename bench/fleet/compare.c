/* --compare (compare.h), and the --baseline build mode's front. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "output/replace.h"

/* Results compare time, pairs and nodes bandwidth: one metric each. */
static int metric_of(const struct cb_bl_entry *e) {
  return e->kind == CB_BL_RESULT ? CB_BLM_TIME : CB_BLM_BW;
}

/* A one-launch figure without an interval of its own that its run did
 * not mark noisy (an imported nccl-tests row: the tool gives none): judged
 * on the launch spread alone, as the header says. */
static int assumed(const struct cb_bl_entry *e, int metric) {
  const struct cb_dist *d = &e->d[metric];
  return d->n < 2 && isnan(d->ci95) && !e->noisy;
}

/* A side's distribution as judged (assumed: no interval of its own). */
static struct cb_dist judged(const struct cb_bl_entry *e, int metric) {
  struct cb_dist d = e->d[metric];
  if (assumed(e, metric))
    d.ci95 = 0;
  return d;
}

struct cb_ratio cb_compare_metric(const struct cb_bl_entry *o, const struct cb_bl_entry *n,
                                  int metric, double sigma) {
  struct cb_dist a = judged(o, metric), b = judged(n, metric);
  if (isnan(sigma))
    sigma = cb_launch_sigma(n->bytes);
  if (cb_bl_metrics[metric].higher_better) /* slowdown: old bandwidth over new */
    return cb_ratio_launches(&b, &a, sigma);
  return cb_ratio_launches(&a, &b, sigma);
}

/* Noisy within its own launch: marked so by its run, or an interval that
 * reaches zero (half-width at least the median). Its factor is not one
 * its samples support: not judged. */
static int noisy_side(const struct cb_bl_entry *e, int metric) {
  const struct cb_dist *d = &e->d[metric];
  return d->n < 2 && (e->noisy || (d->ci95 >= d->median && d->median > 0));
}

/* The run as a whole: the median row's log slowdown, its 95% CI from the
 * rows' own spread (a sign test's order statistics) widened by the launch
 * spread every row of a one-launch side shares (a launch state moves them
 * all). */
static void whole_run(const struct cb_cmp_line *lines, int n, double sigma,
                      struct cb_cmp_whole *w) {
  memset(w, 0, sizeof *w);
  w->ratio = w->lo = w->hi = NAN;
  double *logs = malloc((n + 1) * sizeof *logs), *shift = malloc((n + 1) * sizeof *shift);
  for (int i = 0; logs && shift && i < n; i++) {
    const struct cb_cmp_line *l = &lines[i];
    if (l->state != CB_CMP_SAME && l->state != CB_CMP_SLOWER)
      continue;
    double s = isnan(sigma) ? cb_launch_sigma(l->new_e->bytes) : sigma;
    double so = l->old_e->d[l->metric].n < 2 ? s : 1.2533 * s / sqrt(l->old_e->d[l->metric].n);
    double sn = l->new_e->d[l->metric].n < 2 ? s : 1.2533 * s / sqrt(l->new_e->d[l->metric].n);
    shift[w->n] = sqrt(so * so + sn * sn);
    logs[w->n++] = log(l->slowdown.ratio);
  }
  if (w->n >= 1) {
    int m = w->n;
    cb_sort_doubles(logs, (size_t)m);
    cb_sort_doubles(shift, (size_t)m);
    double med = cb_median_sorted(logs, (size_t)m);
    /* sign test: k the largest with P(Bin(m, 1/2) < k) <= 2.5% */
    int k = 0;
    double p = pow(0.5, m), cum = p;
    for (int j = 1; j < m && cum <= 0.025; j++) {
      k = j;
      p *= (double)(m - j + 1) / j;
      cum += p;
    }
    if (k < 1) /* under 6 rows: their range (covers the median with 1 - 2^(1-m)) */
      k = 1;
    double rows_hw = (logs[m - k] - logs[k - 1]) / 2;
    double launch = cb_median_sorted(shift, (size_t)m);
    double hw = sqrt(rows_hw * rows_hw + 1.96 * launch * 1.96 * launch);
    w->ratio = exp(med);
    if (isfinite(hw))
      w->lo = exp(med - hw), w->hi = exp(med + hw);
  }
  free(logs), free(shift);
}

int cb_compare(const struct cb_baseline *old_b, const struct cb_baseline *new_b, double min_ratio,
               double sigma, FILE *out, int *common) {
  struct cb_cmp_summary sum;
  int rc = cb_compare_all(old_b, new_b, min_ratio, sigma, out, &sum);
  *common = rc ? 0 : sum.common;
  return rc ? 0 : sum.slower;
}

int cb_compare_all(const struct cb_baseline *old_b, const struct cb_baseline *new_b,
                   double min_ratio, double sigma, FILE *out, struct cb_cmp_summary *sum) {
  memset(sum, 0, sizeof *sum);
  struct cb_cmp_line *lines = calloc(new_b->nentries + 1, sizeof *lines);
  if (!lines)
    return -1;
  int n = 0;
  for (int i = 0; i < new_b->nentries; i++) {
    const struct cb_bl_entry *ne = &new_b->entries[i];
    const struct cb_bl_entry *oe = cb_baseline_find_entry(old_b, ne);
    int m = metric_of(ne);
    if (!oe || oe->d[m].n == 0 || ne->d[m].n == 0 || !(oe->d[m].median > 0) ||
        !(ne->d[m].median > 0))
      continue;
    struct cb_cmp_line *l = &lines[n++];
    l->old_e = oe, l->new_e = ne, l->metric = m;
    sum->assumed += assumed(oe, m) || assumed(ne, m);
    l->slowdown = cb_compare_metric(oe, ne, m, sigma);
    /* no interval first (too few samples: the run marked it noisy too) */
    l->state = isnan(l->slowdown.lo) || !isfinite(l->slowdown.hi) ? CB_CMP_UNKNOWN
               : noisy_side(oe, m) || noisy_side(ne, m)           ? CB_CMP_NOISY
               : l->slowdown.lo > min_ratio                       ? CB_CMP_SLOWER
                                                                  : CB_CMP_SAME;
    sum->slower += l->state == CB_CMP_SLOWER;
    sum->noisy += l->state == CB_CMP_NOISY;
  }
  sum->common = n;
  whole_run(lines, n, sigma, &sum->whole);
  sum->whole.slower = sum->whole.lo > min_ratio;
  sum->whole.faster = sum->whole.hi < 1 / min_ratio;
  static const char *const state_names[] = {"same", "SLOWER", "unknown", "noisy"};
  for (int pass = 0; pass < 4 && out; pass++) /* the slower ones first */
    for (int i = 0; i < n; i++) {
      static const enum cb_cmp_state order[] = {CB_CMP_SLOWER, CB_CMP_SAME, CB_CMP_NOISY,
                                                CB_CMP_UNKNOWN};
      const struct cb_cmp_line *l = &lines[i];
      if (l->state != order[pass])
        continue;
      char what[512];
      cb_bl_describe(l->new_e, what, sizeof what);
      const struct cb_bl_metric_info *mi = &cb_bl_metrics[l->metric];
      char ci[96];
      if (l->state == CB_CMP_NOISY)
        snprintf(ci, sizeof ci, "noisy within its own launch: no factor its samples support");
      else if (l->state == CB_CMP_UNKNOWN) /* a figure from too few samples, in one run */
        snprintf(ci, sizeof ci, "no interval: a one-run figure from too few samples");
      else
        snprintf(ci, sizeof ci, "95%% CI %.3f to %.3f", l->slowdown.lo, l->slowdown.hi);
      fprintf(out, "%-7s %s: %s %.4g -> %.4g %s (n %d -> %d), slowdown %sx%.3f (%s)\n",
              state_names[l->state], what, mi->name, l->old_e->d[l->metric].median,
              l->new_e->d[l->metric].median, mi->unit, l->old_e->d[l->metric].n,
              l->new_e->d[l->metric].n, l->state == CB_CMP_NOISY ? "~" : "", l->slowdown.ratio, ci);
    }
  free(lines);
  return 0;
}

/* A --json run, or a baseline (told apart by its first bytes). */
static int load_any(const char *path, struct cb_baseline *b, struct cb_error *err) {
  if (cb_baseline_sniff(path))
    return cb_baseline_load("--compare", path, b, err);
  const char *files[1] = {path};
  return cb_baseline_build("--compare", files, 1, b, err);
}

int cb_compare_main(const struct cb_compare_cli *c) {
  struct cb_baseline o, n;
  struct cb_error err = {0};
  if (load_any(c->old_path, &o, &err) || load_any(c->new_path, &n, &err)) {
    cb_error_print(&err);
    cb_baseline_free(&o);
    return err.status;
  }
  struct cb_cmp_summary sum;
  if (cb_compare_all(&o, &n, c->min_slowdown, c->launch_spread, NULL, &sum)) {
    fprintf(stderr, "collbench: error: --compare: out of memory\n");
    cb_baseline_free(&o), cb_baseline_free(&n);
    return CB_RUNTIME;
  }
  if (sum.common == 0) {
    char a[256], b[256];
    cb_baseline_summary(&o, a, sizeof a);
    cb_baseline_summary(&n, b, sizeof b);
    fprintf(stderr,
            "collbench: --compare %s %s: nothing in common to compare (%s has %s; %s has %s)\n",
            c->old_path, c->new_path, c->old_path, a, c->new_path, b);
    cb_baseline_free(&o), cb_baseline_free(&n);
    return CB_USAGE;
  }
  printf("# --compare %s (old) %s (new): %d series and sizes compared; SLOWER when the 95%% CI of "
         "the slowdown lies above x%.2f\n",
         c->old_path, c->new_path, sum.common, c->min_slowdown);
  if (isnan(c->launch_spread))
    printf("# each CI counts the spread between launches: a side of one launch adds %.0f%% up to "
           "1 MiB, %.0f%% up to 32 MiB, %.1f%% above (1 sigma of the log, between launches on an "
           "H100: bench/engine/FIGURES.md); a busier machine's launches differ more: measure "
           "yours (scripts/compare-falsealarms.sh) and give --launch-spread, or compare "
           "baselines of several launches (scripts/launches.sh), which bring their own\n",
           100 * cb_launch_sigma(1 << 20), 100 * cb_launch_sigma(32 << 20),
           100 * cb_launch_sigma(UINT64_MAX));
  else
    printf("# each CI counts the spread between launches: a side of one launch adds %.3g%% "
           "(--launch-spread, 1 sigma of the log); a baseline of several launches brings its own\n",
           100 * c->launch_spread);
  if (sum.assumed)
    printf("# %d row%s without an interval of their own (imported: the tool gives none) judged "
           "on the launch spread alone\n",
           sum.assumed, sum.assumed == 1 ? "" : "s");
  cb_compare_all(&o, &n, c->min_slowdown, c->launch_spread, stdout, &sum);
  const struct cb_cmp_whole *w = &sum.whole;
  if (w->n && !isnan(w->lo))
    printf("# the run as a whole: median slowdown x%.3f over %d judged rows (95%% CI x%.3f to "
           "x%.3f, the rows' spread and the launch spread they share): %s\n",
           w->ratio, w->n, w->lo, w->hi,
           w->slower   ? "SLOWER"
           : w->faster ? "faster"
                       : "no change beyond the noise");
  else if (w->n)
    printf("# the run as a whole: median slowdown x%.3f over %d judged rows: too few rows for an "
           "interval\n",
           w->ratio, w->n);
  if (sum.noisy)
    printf("# %d row%s noisy within their own launch: not judged\n", sum.noisy,
           sum.noisy == 1 ? "" : "s");
  if (sum.slower)
    printf("# %d of %d slower beyond the noise\n", sum.slower, sum.common);
  else
    printf("# no change beyond the noise: 0 of %d slower\n", sum.common);
  cb_baseline_free(&o), cb_baseline_free(&n);
  return sum.slower || w->slower ? CB_FAILED : CB_OK;
}

int cb_baseline_main(const struct cb_baseline_cli *c) {
  struct cb_baseline b;
  struct cb_error err = {0};
  /* the output is checked before anything is read: a bad --baseline-out costs nothing */
  if (cb_output_check(c->out, "--baseline-out", CB_OUT_REPLACE, &err) ||
      cb_baseline_build("--baseline-out", c->inputs, c->ninputs, &b, &err)) {
    cb_error_print(&err);
    return err.status;
  }
  int rc = cb_baseline_write(&b, c->out, &err);
  if (rc)
    cb_error_print(&err);
  else {
    int results = 0, small = 0;
    for (int i = 0; i < b.nentries; i++) {
      results += b.entries[i].kind == CB_BL_RESULT;
      for (int m = 0; m < CB_BL_NMETRICS; m++)
        small += b.entries[i].d[m].n > 0 && b.entries[i].d[m].n < CB_BASELINE_MIN_N;
    }
    printf("%s: %d run%s, %d result and %d pair/node entries\n", c->out, b.nruns,
           b.nruns == 1 ? "" : "s", results, b.nentries - results);
    if (small) /* said here, not first at --accept as a WARN per check */
      printf("%s: %d figure%s from fewer than %d runs: --accept judges a figure against %d runs "
             "or more and WARNs 'cannot judge' below that; build from more runs "
             "(scripts/launches.sh N NAME -- mpirun ... runs one N times)\n",
             c->out, small, small == 1 ? "" : "s", CB_BASELINE_MIN_N, CB_BASELINE_MIN_N);
  }
  cb_baseline_free(&b);
  return rc;
}
