/* Fleet baselines: the robust statistics, the verdict rule, --compare's
 * ratio, and the baseline file written, read back and refused when bad. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept/fleet_verdict.h"
#include "base/robust.h"
#include "fleet/baseline.h"
#include "fleet/compare.h"
#include "tap.h"

#define TOL 1e-9

static void test_dist(void) {
  /* one wild value among nine: the median and MAD do not follow it */
  double v[] = {10, 11, 9, 10, 12, 8, 10, 1000, 10};
  struct cb_dist d;
  cb_dist_compute(v, 9, 0, &d);
  is_long(d.n, 9, "dist: n");
  is_double(d.median, 10, TOL, "dist: median ignores the outlier");
  is_double(d.mad, 1, TOL, "dist: MAD is the median absolute deviation (0 0 0 0 1 1 2 2 990)");
  is_double(d.min, 8, TOL, "dist: min");
  is_double(d.max, 1000, TOL, "dist: max");
  is_double(d.p10, 8.8, TOL, "dist: p10 interpolates (8 + 0.8 x (9 - 8))");
  is_double(d.ci95, 1.96 * 1.2533 * 1.4826 / 3, 1e-12, "dist: ci95 from the MAD / sqrt(n)");
  double one[] = {5};
  cb_dist_compute(one, 1, 0.25, &d);
  is_double(d.ci95, 0.25, TOL, "dist: one figure keeps its own CI");
  cb_dist_compute(NULL, 0, 0, &d);
  is_long(d.n, 0, "dist: empty is n 0");
}

static void test_z(void) {
  struct cb_dist d = {.n = 10, .median = 100, .mad = 10};
  is_double(cb_dist_sigma(&d, 0.02), 14.826, 1e-9, "sigma: 1.4826 x MAD");
  is_double(cb_robust_z(&d, 70.348, 1, 0.02), -2, 1e-9, "z: a bandwidth 2 sigma low is -2");
  is_double(cb_robust_z(&d, 129.652, 0, 0.02), -2, 1e-9, "z: a time 2 sigma high is -2");
  struct cb_dist flat = {.n = 10, .median = 100, .mad = 0};
  is_double(cb_dist_sigma(&flat, 0.02), 2, TOL, "sigma: floored at 2%% of the median");
  is_double(cb_robust_z(&flat, 99, 1, 0.02), -0.5, TOL, "z: 1%% low of a flat fleet is -0.5");
}

static void test_ratio(void) {
  struct cb_ratio r = cb_ratio_ci(10, 0, 20, 0);
  is_double(r.ratio, 2, TOL, "ratio: new over old");
  is_double(r.lo, 2, TOL, "ratio: no CI without spread");
  r = cb_ratio_ci(10, 1.96 * 0.5, 10, 1.96 * 0.5); /* 5% relative se each */
  double se = sqrt(2) * 0.05;
  is_double(r.lo, exp(-1.96 * se), 1e-12, "ratio: CI low end from both CIs (log scale)");
  is_double(r.hi, exp(1.96 * se), 1e-12, "ratio: CI high end");
}

static void test_verdict(void) {
  struct cb_fleet f = {.k = 5, .min_runs = 5};
  struct cb_dist d = {.n = 10, .median = 10, .mad = 0.2}; /* sigma 0.29652 */
  struct cb_verdict v;
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&f, &d, CB_BLM_BUSBW, 9.0, &v);
  is_long(v.status, CB_PASS, "verdict: z -3.4 passes at k 5");
  is_double(v.fail, 10 - 5 * 0.29652, 1e-9, "verdict: fail level at z = -k");
  ok(strstr(v.what, "fleet median 10") && strstr(v.what, "10 figures") &&
         strstr(v.what, "fails under z -5"),
     "verdict: says median, n and the rule (%s)", v.what);
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&f, &d, CB_BLM_BUSBW, 8.0, &v);
  is_long(v.status, CB_FAIL, "verdict: z -6.7 fails");
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&f, &d, CB_BLM_TIME, 12.0, &v);
  is_long(v.status, CB_FAIL, "verdict: a time 6.7 sigma high fails");
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&f, &d, CB_BLM_TIME, 8.0, &v);
  is_long(v.status, CB_PASS, "verdict: a faster time passes");
  struct cb_dist few = {.n = 4, .median = 10, .mad = 0.2};
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&f, &few, CB_BLM_BUSBW, 1.0, &v);
  is_long(v.status, CB_WARN, "verdict: 4 figures cannot judge (neither pass nor fail)");
  ok(strstr(v.what, "cannot judge") != NULL, "verdict: says it cannot judge (%s)", v.what);
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&f, NULL, CB_BLM_BUSBW, 1.0, &v);
  is_long(v.status, CB_WARN, "verdict: no entry cannot judge");
  /* a fleet whose runs differ 2x (a machine's slow spells): median - k sigma
   * under 0, so even a dead link would pass; it says it cannot judge */
  struct cb_dist wide = {.n = 16, .median = 1.0, .mad = 0.32};
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&f, &wide, CB_BLM_BW, 0.02, &v);
  ok(v.status == CB_WARN && isnan(v.fail) && strstr(v.what, "cannot judge: the fleet's spread"),
     "verdict: a spread over 1/k of the median cannot judge (%s)", v.what);
  /* the same at k 30 with a spread of 3.7%: the fleet can judge, the loose
   * rule just fails no bandwidth (tests/baseline.t's k) */
  struct cb_fleet loose = {.k = 30, .min_runs = 5};
  struct cb_dist tight = {.n = 5, .median = 3.36, .mad = 0.084};
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&loose, &tight, CB_BLM_BUSBW, 3.2, &v);
  ok(v.status == CB_PASS && v.fail == 0 && isnan(v.margin) && strstr(v.what, "fails under z -30"),
     "verdict: a loose k whose level falls under 0 passes, level 0 (%s)", v.what);
  /* cluster4.t's flake: 4 runs' node shares spread 0.029 on a median of
   * 0.94, and a healthy node at 0.69 came out at z -8.8. A share's spread is
   * never under 10% of its median; a bandwidth's stays at 2%. */
  struct cb_dist shares = {.n = 16, .median = 0.94, .mad = 0.029 / 1.4826};
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&f, &shares, CB_BLM_SHARE, 0.69, &v);
  ok(v.status == CB_PASS && fabs(v.fail - 0.94 * 0.5) < 1e-9 && strstr(v.what, ">= 10% of median"),
     "verdict: a node share's spread is at least 10%% of its median (%s)", v.what);
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&f, &shares, CB_BLM_SHARE, 0.03, &v);
  ok(v.status == CB_FAIL, "verdict: a node at 0.03 of its run still fails (%s)", v.what);
  memset(&v, 0, sizeof v);
  cb_fleet_verdict(&f, &shares, CB_BLM_BW, 0.69, &v);
  ok(v.status == CB_FAIL && strstr(v.what, ">= 2% of median"),
     "verdict: the same figures as a bandwidth keep the 2%% floor (%s)", v.what);
}

static struct cb_bl_entry entry(uint64_t bytes, double median, double mad, int n) {
  struct cb_bl_entry e = {
      .kind = CB_BL_RESULT, .inplace = 0, .bytes = bytes, .nranks = 2, .nnodes = 1};
  strcpy(e.op, "allreduce"), strcpy(e.backend, "mpi"), strcpy(e.mem, "host");
  strcpy(e.transport, "shm"), strcpy(e.dtype, "float"), strcpy(e.redop, "sum");
  e.d[CB_BLM_TIME] = (struct cb_dist){.n = n, .median = median, .mad = mad};
  e.d[CB_BLM_TIME].ci95 = 1.96 * 1.2533 * 1.4826 * mad / sqrt(n);
  return e;
}

static void test_compare(void) {
  struct cb_bl_entry a[2] = {entry(1024, 10, 0.5, 10), entry(65536, 100, 2, 10)};
  struct cb_bl_entry b[2] = {entry(1024, 10.2, 0.5, 10), entry(65536, 300, 2, 10)};
  struct cb_baseline old_b = {.entries = a, .nentries = 2}, new_b = {.entries = b, .nentries = 2};
  int common = 0;
  is_long(cb_compare(&old_b, &new_b, 1.1, NAN, NULL, &common), 1, "compare: one key got slower");
  is_long(common, 2, "compare: two keys in common");
  struct cb_ratio r = cb_compare_metric(&a[1], &b[1], CB_BLM_TIME, 0.02); /* a quiet fleet */
  is_double(r.ratio, 3, TOL, "compare: 100 us -> 300 us is x3");
  ok(r.lo > 2.9 && r.hi < 3.1, "compare: its CI is narrow (%.3f to %.3f)", r.lo, r.hi);
  is_long(cb_compare(&old_b, &old_b, 1.1, NAN, NULL, &common), 0,
          "compare: a baseline with itself: none");
  b[0].bytes = b[1].bytes = 8;
  is_long(cb_compare(&old_b, &new_b, 1.1, NAN, NULL, &common), 0, "compare: nothing in common...");
  is_long(common, 0, "compare: ...counts 0 keys");

  /* issue 57: a side of one launch adds the spread between launches */
  struct cb_bl_entry o1 = entry(1024, 10, 0, 1), n1 = entry(1024, 13, 0, 1);
  o1.d[CB_BLM_TIME].ci95 = 0.1, n1.d[CB_BLM_TIME].ci95 = 0.13; /* 1% each, within the launch */
  r = cb_compare_metric(&o1, &n1, CB_BLM_TIME, 0.02);
  double se = sqrt(2 * (0.01 / 1.96 * 0.01 / 1.96 + 0.02 * 0.02));
  ok(fabs(r.ratio - 1.3) < 1e-12 && fabs(r.lo - 1.3 * exp(-1.96 * se)) < 1e-12,
     "one launch a side, 2%% between launches: x1.3 with its CI widened by both (%.3f to %.3f)",
     r.lo, r.hi);
  struct cb_baseline ob1 = {.entries = &o1, .nentries = 1}, nb1 = {.entries = &n1, .nentries = 1};
  is_long(cb_compare(&ob1, &nb1, 1.1, 0.02, NULL, &common), 1,
          "... SLOWER at 2%% between launches");
  is_long(cb_compare(&ob1, &nb1, 1.1, 0.2, NULL, &common), 0,
          "... not beyond the noise at 20%% between launches");
  ok(cb_launch_sigma(8) > 0 && cb_launch_sigma(1ull << 40) > 0,
     "the default spread is stated for every size (%.2f at 8 B, %.2f at 1 TiB)", cb_launch_sigma(8),
     cb_launch_sigma(1ull << 40));
  r = cb_compare_metric(&o1, &n1, CB_BLM_TIME, NAN);
  double s1 = cb_launch_sigma(1024), se1 = sqrt(2 * (0.01 / 1.96 * 0.01 / 1.96 + s1 * s1));
  ok(fabs(r.lo - 1.3 * exp(-1.96 * se1)) < 1e-12, "no sigma given: the table's for 1 KiB (%.2f)",
     s1);
  n1.d[CB_BLM_TIME].ci95 = NAN;
  n1.noisy = 1; /* collbench's: too few samples, marked noisy by its run */
  r = cb_compare_metric(&o1, &n1, CB_BLM_TIME, 0.02);
  ok(isnan(r.lo) && isnan(r.hi), "a launch without an interval of its own: no interval");
  n1.noisy = 0; /* an imported nccl-tests row: the tool gives none (issue 74) */
  r = cb_compare_metric(&o1, &n1, CB_BLM_TIME, 0.02);
  double se0 = sqrt(0.01 / 1.96 * 0.01 / 1.96 + 2 * 0.02 * 0.02);
  ok(fabs(r.lo - 1.3 * exp(-1.96 * se0)) < 1e-12,
     "an imported row without an interval: judged on the launch spread alone (%.3f to %.3f)", r.lo,
     r.hi);
  /* a whole run x3, one launch a side, the default (real hardware's) spread */
  struct cb_bl_entry o3[4], n3[4];
  for (int k = 0; k < 4; k++) {
    o3[k] = entry(1024u << (6 * k), 10.0 * (k + 1), 0.1, 1);
    n3[k] = entry(1024u << (6 * k), 30.0 * (k + 1), 0.3, 1);
    o3[k].d[CB_BLM_TIME].ci95 = 0.02 * o3[k].d[CB_BLM_TIME].median;
    n3[k].d[CB_BLM_TIME].ci95 = 0.02 * n3[k].d[CB_BLM_TIME].median;
  }
  struct cb_baseline ob3 = {.entries = o3, .nentries = 4}, nb3 = {.entries = n3, .nentries = 4};
  struct cb_cmp_summary sum;
  int rc3 = cb_compare_all(&ob3, &nb3, 1.1, NAN, NULL, &sum);
  ok(rc3 == 0 && sum.slower == 4 && sum.whole.n == 4 && fabs(sum.whole.ratio - 3) < 1e-9 &&
         sum.whole.slower && isfinite(sum.whole.hi),
     "x3 on every row, one launch a side: 4 of 4 SLOWER, the run as a whole x%.3f [%.3f, %.3f]",
     sum.whole.ratio, sum.whole.lo, sum.whole.hi);
  /* x1.5, rows with 2% intervals of their own: named where a launch
   * differs by 3.1% (64 MiB) and 7% (8 MiB), not where it differs by 15%
   * (64 KiB): one launch a side cannot tell x1.5 there */
  struct cb_bl_entry o15[3], n15[3];
  const uint64_t sizes15[3] = {64u << 10, 8u << 20, 64u << 20};
  for (int k = 0; k < 3; k++) {
    o15[k] = entry(sizes15[k], 100, 1, 1), n15[k] = entry(sizes15[k], 150, 1, 1);
    o15[k].d[CB_BLM_TIME].ci95 = 2, n15[k].d[CB_BLM_TIME].ci95 = 3;
  }
  struct cb_baseline ob15 = {.entries = o15, .nentries = 3}, nb15 = {.entries = n15, .nentries = 3};
  struct cb_ratio r64k = cb_compare_metric(&o15[0], &n15[0], CB_BLM_TIME, NAN),
                  r8m = cb_compare_metric(&o15[1], &n15[1], CB_BLM_TIME, NAN),
                  r64m = cb_compare_metric(&o15[2], &n15[2], CB_BLM_TIME, NAN);
  ok(cb_compare(&ob15, &nb15, 1.1, NAN, NULL, &common) == 2 && r64k.lo <= 1.1 && r8m.lo > 1.1 &&
         r64m.lo > 1.1,
     "x1.5, default spread: 8 and 64 MiB SLOWER (%.3f, %.3f), 64 KiB not (%.3f)", r8m.lo, r64m.lo,
     r64k.lo);
  n3[1].noisy = 1; /* its run said its interval is wider than asked */
  n3[1].d[CB_BLM_TIME].median *= 256;
  ok(cb_compare_all(&ob3, &nb3, 1.1, NAN, NULL, &sum) == 0 && sum.slower == 3 && sum.noisy == 1,
     "a row its run marked noisy is not judged, however far it moved");
  /* several launches that agree exactly: never a zero-width interval */
  struct cb_bl_entry o5 = entry(1024, 10, 0, 5), n5 = entry(1024, 10.5, 0, 5);
  r = cb_compare_metric(&o5, &n5, CB_BLM_TIME, 0.05);
  double least = 1.2533 * 0.05 / sqrt(5);
  ok(fabs(r.lo - 1.05 * exp(-1.96 * sqrt(2) * least)) < 1e-12,
     "5 identical launches a side: the launch spread's share for 5 at least (%.4f to %.4f)", r.lo,
     r.hi);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static void test_file(void) {
  char dir[] = "/tmp/cb-test-baseline.XXXXXX", path[128];
  if (!mkdtemp(dir))
    return;
  snprintf(path, sizeof path, "%s/b.json", dir);
  struct cb_bl_entry e = entry(4096, 20, 1, 7);
  int runs[] = {0};
  e.runs = runs, e.nruns = 1;
  struct cb_bl_run run = {.file = "r.jsonl", .nranks = 2, .nnodes = 1};
  struct cb_baseline b = {.runs = &run, .nruns = 1, .entries = &e, .nentries = 1}, back;
  strcpy(b.collbench_version, "x");
  struct cb_error err = {0};
  ok(cb_baseline_write(&b, path, &err) == CB_OK, "file: written (%s)", err.msg);
  ok(cb_baseline_sniff(path), "file: sniffed as a baseline");
  ok(cb_baseline_load("--baseline", path, &back, &err) == CB_OK, "file: read back (%s)", err.msg);
  ok(back.nentries == 1 && cb_bl_same_key(&back.entries[0], &e) &&
         back.entries[0].d[CB_BLM_TIME].n == 7 &&
         fabs(back.entries[0].d[CB_BLM_TIME].median - 20) < 1e-6,
     "file: the entry survives the round trip");
  cb_baseline_free(&back);
  static const struct {
    const char *text, *want;
  } bad[] = {
      {"", "an empty file"},
      {"{\"format\": \"collbench-baseline\", \"version\": 2, \"runs\": [], \"entries\": []}",
       "format version 2"},
      {"{\"format\": \"other\", \"version\": 1}", "not a collbench baseline"},
      {"{\"format\": \"collbench-baseline\", \"version\": 1, \"runs\": [], \"entries\": []}",
       "an empty baseline"},
      {"{\"format\": \"collbench-baseline\", \"version\": 1, \"runs\": [], \"entries\": "
       "[{\"kind\": "
       "\"pair\", \"bytes\": 8, \"src_host\": \"a\", \"dst_host\": \"b\", \"bw_GBps\": {\"n\": 3}, "
       "\"runs\": []}]}",
       "distribution field missing"},
      {"{\"format\": \"collbench-baseline\", \"version\": 1, \"runs\": [], \"entries\": "
       "[{\"kind\": "
       "\"node\", \"bytes\": 8, \"host\": \"a\", \"bw_GBps\": {\"n\": 1, \"median\": 1, \"mad\": "
       "0, "
       "\"p5\": 1, \"p10\": 1, \"p90\": 1, \"p95\": 1, \"min\": 1, \"max\": 1, \"ci95\": 0}, "
       "\"runs\": [3]}]}",
       "names a run the baseline does not list"},
      {"{\"format\": \"collbench-baseline\", ", "not a baseline: line"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    write_file(path, bad[i].text);
    memset(&err, 0, sizeof err);
    int rc = cb_baseline_load("--baseline", path, &back, &err);
    ok(rc == CB_USAGE && strstr(err.msg, bad[i].want) && strstr(err.msg, path),
       "file: bad %zu refused naming the file: %s", i, err.msg);
  }
  memset(&err, 0, sizeof err);
  ok(cb_baseline_load("--baseline", dir, &back, &err) == CB_USAGE && strstr(err.msg, "folder"),
     "file: a folder is refused (%s)", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_baseline_write(&b, dir, &err) == CB_USAGE, "file: --out a folder is refused (%s)", err.msg);
  unlink(path);
  rmdir(dir);
}

/* Verdicts the sinks receive: "STATUS name" lines, in order. */
static char seen[2048];
static int keep_verdict(void *state, const struct cb_verdict *v, struct cb_error *err) {
  (void)state, (void)err;
  size_t n = strlen(seen);
  snprintf(seen + n, sizeof seen - n, "%s %s;",
           v->status == CB_FAIL   ? "FAIL"
           : v->status == CB_WARN ? "WARN"
                                  : "PASS",
           v->name);
  return CB_OK;
}

/* Links judged against the fleet: a pair slow in its round but normal when
 * the matrix retested it alone is contention, not the link (its retest is
 * judged); a pair slow in its retests too fails. */
static void test_fleet_links(void) {
  struct cb_bl_entry e[2] = {{.kind = CB_BL_PAIR, .bytes = 1 << 20},
                             {.kind = CB_BL_NODE, .bytes = 1 << 20}};
  strcpy(e[0].src, "*"), strcpy(e[0].dst, "*"), strcpy(e[1].src, "*");
  for (int i = 0; i < 2; i++)
    e[i].d[CB_BLM_BW] = (struct cb_dist){.n = 40, .median = 1.0, .mad = 0.05};
  struct cb_baseline b = {.entries = e, .nentries = 2};
  struct cb_fleet f = {.b = &b, .k = 5, .min_runs = 5};
  struct cb_cluster cl = {.rank = 0, .nranks = 3};
  const char *h[3] = {"a", "b", "c"};
  struct cb_pair p[] = {
      /* round 1: a->b slow, c->a slow; the rest normal */
      {.src = 0, .dst = 1, .bw_GBps = 0.05, .round = 1},
      {.src = 1, .dst = 2, .bw_GBps = 1.0, .round = 1},
      {.src = 2, .dst = 0, .bw_GBps = 0.04, .round = 1},
      {.src = 0, .dst = 2, .bw_GBps = 1.0, .round = 2},
      {.src = 1, .dst = 0, .bw_GBps = 1.1, .round = 2},
      {.src = 2, .dst = 1, .bw_GBps = 0.9, .round = 2},
      /* the retests alone: a->b normal (contention), c->a slow again */
      {.src = 0, .dst = 1, .bw_GBps = 0.98, .round = 0},
      {.src = 2, .dst = 0, .bw_GBps = 0.05, .round = 0},
  };
  int n = sizeof p / sizeof *p;
  for (int i = 0; i < n; i++)
    p[i].bytes = 1 << 20, p[i].src_host = h[p[i].src], p[i].dst_host = h[p[i].dst],
    p[i].lat_us = NAN;
  struct cb_sink sink = {.verdict = keep_verdict};
  struct cb_accept_result res = {0};
  struct cb_error err = {0};
  seen[0] = 0;
  is_long(cb_fleet_judge_pairs(&cl, &f, p, n, &sink, 1, &res, &err), CB_OK, "fleet links: judged");
  ok(strstr(seen, "FAIL fleet link c->a;") != NULL, "fleet links: slow in its retests fails (%s)",
     seen);
  ok(strstr(seen, "fleet link a->b") == NULL,
     "fleet links: slow in its round only, normal alone: not named (%s)", seen);
  ok(strstr(seen, "PASS fleet node b;") && strstr(seen, "PASS fleet node c;"),
     "fleet links: the nodes whose pairs are normal pass (%s)", seen);
  /* pairs too few in the baseline to judge: said once, and the nodes are
   * still judged (they once went unjudged) */
  e[0].d[CB_BLM_BW].n = 3;
  seen[0] = 0;
  cb_fleet_judge_pairs(&cl, &f, p, n, &sink, 1, &res, &err);
  /* a's one slow link (c->a) and one pair slowed in its round (a->b) are
   * one of its two pairs each way: the links' to name, not the node's */
  ok(!strcmp(seen, "WARN fleet links;PASS fleet node a;PASS fleet node b;PASS fleet node c;"),
     "fleet links: cannot judge said once as 'fleet links', nodes judged (%s)", seen);
}

/* Nodes judged by their share of the run's median pair, where the baseline
 * has shares: a run at half speed throughout is no slow node (the absolute
 * figure would fail all four), a node whose pairs crawl is. */
static void test_fleet_node_share(void) {
  struct cb_bl_entry e = {.kind = CB_BL_NODE, .bytes = 1 << 20};
  strcpy(e.src, "*");
  e.d[CB_BLM_BW] = (struct cb_dist){.n = 40, .median = 1.0, .mad = 0.05};
  e.d[CB_BLM_SHARE] = (struct cb_dist){.n = 40, .median = 1.0, .mad = 0.05};
  struct cb_baseline b = {.entries = &e, .nentries = 1};
  struct cb_fleet f = {.b = &b, .k = 5, .min_runs = 5};
  struct cb_cluster cl = {.rank = 0, .nranks = 4};
  const char *h[4] = {"a", "b", "c", "d"};
  struct cb_pair p[12];
  for (int slow_c = 0; slow_c < 2; slow_c++) {
    int n = 0;
    for (int s = 0; s < 4; s++)
      for (int d = 0; d < 4; d++)
        if (s != d)
          p[n++] = (struct cb_pair){.src = s,
                                    .dst = d,
                                    .src_host = h[s],
                                    .dst_host = h[d],
                                    .bytes = 1 << 20,
                                    .round = (d - s + 4) % 4,
                                    .lat_us = NAN,
                                    .bw_GBps = slow_c && (s == 2 || d == 2) ? 0.01 : 0.5};
    struct cb_sink sink = {.verdict = keep_verdict};
    struct cb_accept_result res = {0};
    struct cb_error err = {0};
    seen[0] = 0;
    cb_fleet_judge_pairs(&cl, &f, p, n, &sink, 1, &res, &err);
    if (!slow_c)
      ok(strstr(seen, "PASS fleet node a;PASS fleet node b;PASS fleet node c;PASS fleet node d;") !=
             NULL,
         "fleet nodes: a run at half speed throughout names no node (%s)", seen);
    else
      ok(strstr(seen, "PASS fleet node a;PASS fleet node b;FAIL fleet node c;PASS fleet node d;") !=
             NULL,
         "fleet nodes: the node whose pairs crawl fails (%s)", seen);
  }
  e.d[CB_BLM_SHARE].n = 0; /* a baseline without shares (older): absolute figures */
  seen[0] = 0;
  struct cb_sink sink = {.verdict = keep_verdict};
  struct cb_accept_result res = {0};
  struct cb_error err = {0};
  for (int i = 0; i < 12; i++)
    p[i].bw_GBps = 0.5;
  cb_fleet_judge_pairs(&cl, &f, p, 12, &sink, 1, &res, &err);
  ok(strstr(seen, "FAIL fleet node a;") != NULL,
     "fleet nodes: without shares, half speed is judged absolutely (%s)", seen);
}

/* A node's figure: the slower direction's upper median. A NIC slow one way
 * (every pair into c slow, its pairs out normal) slows half its pairs: the
 * median of all six once read 0.52 of the run's median pair, inside a
 * fleet spread of 10% at k 5 (level 0.50), and passed. */
static void test_bl_nodes(void) {
  const char *h[4] = {"a", "b", "c", "d"};
  struct cb_bl_link l[12];
  struct cb_bl_node o[24];
  int n = 0;
  for (int s = 0; s < 4; s++)
    for (int d = 0; d < 4; d++)
      if (s != d)
        l[n++] = (struct cb_bl_link){h[s], h[d], d == 2 ? 0.02 : 0.5};
  double run;
  is_long(cb_bl_nodes(l, n, o, &run), 4, "nodes: four hosts");
  ok(run == 0.5, "nodes: the run's median pair (%g)", run);
  ok(!strcmp(o[2].host, "c") && o[2].in_GBps == 0.02 && o[2].out_GBps == 0.5 &&
         o[2].bw_GBps == 0.02,
     "nodes: c's figure is its slow direction (%s in %g out %g -> %g)", o[2].host, o[2].in_GBps,
     o[2].out_GBps, o[2].bw_GBps);
  ok(o[0].bw_GBps == 0.5 && o[1].bw_GBps == 0.5 && o[3].bw_GBps == 0.5,
     "nodes: one slow pair (into c) of three sent moves no other node (a %g, b %g, d %g)",
     o[0].bw_GBps, o[1].bw_GBps, o[3].bw_GBps);
  struct cb_bl_link two[] = {{"x", "y", 0.1}, {"x", "z", 0.9}, {"y", "x", 1.0}, {"z", "x", 1.0}};
  cb_bl_nodes(two, 4, o, &run);
  ok(o[0].out_GBps == 0.9, "nodes: of two pairs the upper median, the faster (%g)", o[0].out_GBps);

  /* judged against a fleet whose shares spread 10%: c fails */
  struct cb_bl_entry e = {.kind = CB_BL_NODE, .bytes = 1 << 20};
  strcpy(e.src, "*");
  e.d[CB_BLM_BW] = e.d[CB_BLM_SHARE] = (struct cb_dist){.n = 40, .median = 1.0, .mad = 0.0675};
  struct cb_baseline b = {.entries = &e, .nentries = 1};
  struct cb_fleet f = {.b = &b, .k = 5, .min_runs = 5};
  struct cb_cluster cl = {.rank = 0, .nranks = 4};
  struct cb_pair p[12];
  for (int i = 0; i < n; i++)
    p[i] = (struct cb_pair){.src = i / 3,
                            .dst = 0,
                            .src_host = l[i].src,
                            .dst_host = l[i].dst,
                            .bytes = 1 << 20,
                            .round = 1 + i % 3,
                            .lat_us = NAN,
                            .bw_GBps = l[i].bw_GBps};
  struct cb_sink sink = {.verdict = keep_verdict};
  struct cb_accept_result res = {0};
  struct cb_error err = {0};
  seen[0] = 0;
  cb_fleet_judge_pairs(&cl, &f, p, n, &sink, 1, &res, &err);
  ok(strstr(seen, "PASS fleet node a;PASS fleet node b;FAIL fleet node c;PASS fleet node d;") !=
         NULL,
     "nodes: the node slow one way fails, no other (%s)", seen);
}

int main(void) {
  test_dist();
  test_z();
  test_ratio();
  test_verdict();
  test_compare();
  test_file();
  test_fleet_links();
  test_fleet_node_share();
  test_bl_nodes();
  done_testing();
  return exit_status();
}
