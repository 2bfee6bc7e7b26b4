/* --compare (compare.h), and the --baseline build mode's front. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/replace.h"

/* Results compare time, pairs and nodes bandwidth: one metric each. */
static int metric_of(const struct cb_bl_entry *e) {
  return e->kind == CB_BL_RESULT ? CB_BLM_TIME : CB_BLM_BW;
}

struct cb_ratio cb_compare_metric(const struct cb_bl_entry *o, const struct cb_bl_entry *n,
                                  int metric, double sigma) {
  const struct cb_dist *a = &o->d[metric], *b = &n->d[metric];
  if (isnan(sigma))
    sigma = cb_launch_sigma(n->bytes);
  if (cb_bl_metrics[metric].higher_better) /* slowdown: old bandwidth over new */
    return cb_ratio_launches(b, a, sigma);
  return cb_ratio_launches(a, b, sigma);
}

int cb_compare(const struct cb_baseline *old_b, const struct cb_baseline *new_b, double min_ratio,
               double sigma, FILE *out, int *common) {
  struct cb_cmp_line *lines = calloc(new_b->nentries + 1, sizeof *lines);
  int n = 0, slower = 0;
  for (int i = 0; i < new_b->nentries; i++) {
    const struct cb_bl_entry *ne = &new_b->entries[i];
    const struct cb_bl_entry *oe = cb_baseline_find_entry(old_b, ne);
    int m = metric_of(ne);
    if (!oe || oe->d[m].n == 0 || ne->d[m].n == 0 || !(oe->d[m].median > 0) ||
        !(ne->d[m].median > 0))
      continue;
    struct cb_cmp_line *l = &lines[n++];
    l->old_e = oe, l->new_e = ne, l->metric = m;
    l->slowdown = cb_compare_metric(oe, ne, m, sigma);
    l->slower = l->slowdown.lo > min_ratio; /* false without an interval (NAN) */
    slower += l->slower;
  }
  *common = n;
  for (int pass = 1; pass >= 0 && out; pass--) /* the slower ones first */
    for (int i = 0; i < n; i++) {
      const struct cb_cmp_line *l = &lines[i];
      if (l->slower != pass)
        continue;
      char what[512];
      cb_bl_describe(l->new_e, what, sizeof what);
      const struct cb_bl_metric_info *mi = &cb_bl_metrics[l->metric];
      char ci[96];
      if (isnan(l->slowdown.lo)) /* a figure from too few samples, in one run */
        snprintf(ci, sizeof ci, "no interval: a one-run figure from too few samples");
      else
        snprintf(ci, sizeof ci, "95%% CI %.3f to %.3f", l->slowdown.lo, l->slowdown.hi);
      fprintf(out, "%-7s %s: %s %.4g -> %.4g %s (n %d -> %d), slowdown x%.3f (%s)\n",
              l->slower               ? "SLOWER"
              : isnan(l->slowdown.lo) ? "unknown"
                                      : "same",
              what, mi->name, l->old_e->d[l->metric].median, l->new_e->d[l->metric].median,
              mi->unit, l->old_e->d[l->metric].n, l->new_e->d[l->metric].n, l->slowdown.ratio, ci);
    }
  free(lines);
  return slower;
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
  int common = 0, slower = cb_compare(&o, &n, c->min_slowdown, c->launch_spread, NULL, &common);
  if (common == 0) {
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
         c->old_path, c->new_path, common, c->min_slowdown);
  if (isnan(c->launch_spread))
    printf("# each CI counts the spread between launches: a side of one launch adds %.0f%% up to "
           "64 KiB, %.0f%% up to 4 MiB, %.0f%% above (1 sigma of the log; this development "
           "machine's, FIGURES.md; --launch-spread sets yours); a baseline of several launches "
           "brings its own\n",
           100 * cb_launch_sigma(64 << 10), 100 * cb_launch_sigma(4 << 20),
           100 * cb_launch_sigma(UINT64_MAX));
  else
    printf("# each CI counts the spread between launches: a side of one launch adds %.3g%% "
           "(--launch-spread, 1 sigma of the log); a baseline of several launches brings its own\n",
           100 * c->launch_spread);
  cb_compare(&o, &n, c->min_slowdown, c->launch_spread, stdout, &common);
  if (slower)
    printf("# %d of %d slower beyond the noise\n", slower, common);
  else
    printf("# no change beyond the noise: 0 of %d slower\n", common);
  cb_baseline_free(&o), cb_baseline_free(&n);
  return slower ? CB_FAILED : CB_OK;
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
