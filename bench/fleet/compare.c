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
                                  int metric) {
  const struct cb_dist *a = &o->d[metric], *b = &n->d[metric];
  if (cb_bl_metrics[metric].higher_better) /* slowdown: old bandwidth over new */
    return cb_ratio_ci(b->median, b->ci95, a->median, a->ci95);
  return cb_ratio_ci(a->median, a->ci95, b->median, b->ci95);
}

int cb_compare(const struct cb_baseline *old_b, const struct cb_baseline *new_b, double min_ratio,
               FILE *out, int *common) {
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
    l->slowdown = cb_compare_metric(oe, ne, m);
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
    fprintf(stderr, "collbench: %s\n", err.msg);
    cb_baseline_free(&o);
    return err.status;
  }
  int common = 0, slower = cb_compare(&o, &n, c->min_slowdown, NULL, &common);
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
  cb_compare(&o, &n, c->min_slowdown, stdout, &common);
  printf("# %d of %d slower\n", slower, common);
  cb_baseline_free(&o), cb_baseline_free(&n);
  return slower ? CB_FAILED : CB_OK;
}

int cb_baseline_main(const struct cb_baseline_cli *c) {
  struct cb_baseline b;
  struct cb_error err = {0};
  /* the output is checked before anything is read: a bad --baseline-out costs nothing */
  if (cb_output_check(c->out, "--baseline-out", CB_OUT_REPLACE, &err) ||
      cb_baseline_build("--baseline-out", c->inputs, c->ninputs, &b, &err)) {
    fprintf(stderr, "collbench: %s\n", err.msg);
    return err.status;
  }
  int rc = cb_baseline_write(&b, c->out, &err);
  if (rc)
    fprintf(stderr, "collbench: %s\n", err.msg);
  else {
    int results = 0, small = 0;
    for (int i = 0; i < b.nentries; i++) {
      results += b.entries[i].kind == CB_BL_RESULT;
      for (int m = 0; m < CB_BL_NMETRICS; m++)
        small += b.entries[i].d[m].n > 0 && b.entries[i].d[m].n < CB_BASELINE_MIN_N;
    }
    printf("%s: %d runs, %d result and %d pair/node entries%s\n", c->out, b.nruns, results,
           b.nentries - results,
           small ? " (some with fewer figures than --accept needs to judge)" : "");
  }
  cb_baseline_free(&b);
  return rc;
}
