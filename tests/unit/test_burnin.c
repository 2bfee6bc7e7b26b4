/* A burn-in's series and their judgement (issue 42): the trend and the
 * last-third step computed by hand, the three-way verdicts, wrong values
 * failing at once with their interval, the store keeping cases apart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burnin/burnin.h"
#include "probe/contention.h"
#include "output/sink.h"
#include "probe/node.h"
#include "readback/drift.h"
#include "tap.h"

static struct cb_burnin_series series(const double *times, int n, double dt) {
  static struct cb_burnin_point p[64];
  struct cb_burnin_series s;
  memset(&s, 0, sizeof s);
  strcpy(s.name, "burn-in allreduce mpi host 1 MiB");
  for (int i = 0; i < n; i++)
    p[i] = (struct cb_burnin_point){i + 1, i * dt, times[i], 0, NAN, 0};
  s.p = p, s.n = s.cap = n;
  return s;
}

/* issue 57: the host's contention, from /proc/stat's text to the cause */
static void test_contention(void) {
  const char *stat = "cpu  1000 20 300 5000 40 5 6 70 0 0\n"
                     "cpu0 500 10 150 2500 20 2 3 35 0 0\n"
                     "cpu1 500 10 150 2500 20 3 3 35 0 0\n"
                     "intr 123 4 5\nctxt 99\nprocs_running 7\nprocs_blocked 0\n";
  struct cb_cpu_stat s;
  ok(cb_cpu_stat_parse(stat, 100, &s) == 0, "/proc/stat: the aggregate line read");
  is_double(s.busy_s, (1000 + 20 + 300 + 5 + 6) / 100.0, 1e-12,
            "busy: user, nice, system, irq, softirq (guest is inside user)");
  is_double(s.total_s, (1000 + 20 + 300 + 5000 + 40 + 5 + 6 + 70) / 100.0, 1e-12,
            "total: busy, idle, iowait and steal");
  is_double(s.steal_s, 0.7, 1e-12, "steal in seconds");
  ok(s.ncpu == 2 && s.running == 7, "2 cpuN lines, procs_running 7");
  ok(cb_cpu_stat_parse("cpu0 1 2 3 4\nprocs_running 1\n", 100, &s) == -1,
     "no aggregate line: not read");
  ok(cb_cpu_stat_parse("cpu  1 2\n", 100, &s) == -1, "a cut aggregate line: not read");

  /* issue 73 finding 10: a 384-CPU host's /proc/stat, laid out as the
   * kernel's (fs/proc/stat.c: cpu, cpuN, then intr with a count per IRQ,
   * thousands of them), is far past 16 KiB before procs_running */
  char *big = NULL;
  size_t big_len = 0;
  FILE *w = open_memstream(&big, &big_len);
  fprintf(w, "cpu  1000 20 300 5000 40 5 6 70 0 0\n");
  for (int c = 0; c < 384; c++)
    fprintf(w, "cpu%d 123456 789 234567 34567890 1234 0 5678 0 0 0\n", c);
  fprintf(w, "intr 987654321");
  for (int i = 0; i < 6000; i++)
    fprintf(w, " %d", i % 7);
  fprintf(w, "\nctxt 99\nbtime 1\nprocesses 5\nprocs_running 37\nprocs_blocked 0\n");
  fclose(w);
  FILE *r = fmemopen(big, big_len, "r");
  int read = cb_cpu_stat_read(r, 100, &s);
  ok(big_len > 16384 && read == 0 && s.ncpu == 384 && s.running == 37,
     "a 384-CPU host's /proc/stat (%zu bytes): 384 CPUs and a run queue of 37 (%d, %d)", big_len,
     s.ncpu, s.running);
  fclose(r);
  free(big);

  struct cb_node_load n = {.ncpu = 2, .ranks = 2};
  cb_node_load_add(&n, 1, 0.03, 0, 2);
  cb_node_load_add(&n, 2, 0.05, 0, 2);
  cb_node_load_add(&n, 3, 0.66, 0, 6);
  cb_node_load_add(&n, 4, 0.70, 0.01, 7);
  ok(n.busy == 2 && n.first == 3 && n.last == 4 && n.intervals == 4,
     "contention in intervals 3 and 4 of 4");
  ok(fabs(n.max_others - 0.70) < 1e-12 && fabs(n.quiet_others - 0.05) < 1e-12 && n.max_running == 7,
     "the most others took (70%%), the most in the quiet ones (5%%), the longest queue");
  struct cb_node_load quiet = {.ncpu = 2, .ranks = 2}, stolen = quiet;
  cb_node_load_add(&quiet, 1, 0.19, 0.04, 2);
  cb_node_load_add(&stolen, 1, 0.0, 0.05, 2);
  ok(quiet.busy == 0 && stolen.busy == 1, "under 20%% others and 5%% steal: none; 5%% steal: some");

  char names[2][CB_HOSTNAME_MAX] = {"node1", "node2"};
  struct cb_node_load loads[2] = {quiet, n};
  struct cb_contention c = {
      .nnodes = 2, .names = (const char(*)[CB_HOSTNAME_MAX])names, .node = loads};
  struct cb_causes out = {0};
  cb_contention_causes(&c, &out);
  ok(out.n == 1 && strcmp(out.c[0].host, "node2") == 0 &&
         strcmp(out.c[0].rule, "host-contention") == 0,
     "one cause: the node with contention, rule host-contention");
  is_str(out.c[0].text,
         "other processes took up to 70% of its 2 CPUs in 2 intervals, 3 to 4 of 4 (5% at most in "
         "the others); steal up to 1%; run queue up to 7 with 2 ranks",
         "the cause says how much, when, and against what");
}

/* issue 57: a sweep burn-in's verdict gets acceptance's evidence rules too,
 * after what ran meanwhile, on what its record crossed */
static struct cb_causes seen;
static int seen_status;
static int keep(void *state, const struct cb_verdict *v, struct cb_error *err) {
  (void)state, (void)err;
  seen_status = v->status;
  memset(&seen, 0, sizeof seen);
  if (v->causes)
    seen = *v->causes;
  return 0;
}

static void test_evidence(void) {
  static struct cb_probe_node nodes[2];
  memset(nodes, 0, sizeof nodes);
  const char *hosts[2] = {"a", "b"};
  for (int i = 0; i < 2; i++) {
    strcpy(nodes[i].hostname, hosts[i]);
    nodes[i].nnics = 1;
    strcpy(nodes[i].nics[0].name, "mlx5_0");
    nodes[i].nics[0].rdma = 1, nodes[i].nics[0].port = 1, nodes[i].nics[0].gbps = 400;
    strcpy(nodes[i].nics[0].state, "ACTIVE");
    nodes[i].nics[0].mtu = i ? 1024 : 4096;
  }
  struct cb_probe probe = {.nnodes = 2, .nodes = nodes};
  struct cb_record r = {.op = "allreduce",
                        .backend = "mpi",
                        .mem = "host",
                        .dtype = "float",
                        .redop = "sum",
                        .bytes = 1 << 20,
                        .nranks = 2,
                        .nnodes = 2};
  struct cb_burnin_store b = {0};
  for (int pass = 1; pass <= 9; pass++) { /* twice as slow in the last third */
    r.interval = pass, r.time_us = pass > 6 ? 200 : 100;
    cb_burnin_add(&b, &r, pass);
  }
  struct cb_causes during = {.n = 1};
  strcpy(during.c[0].host, "a");
  during.c[0].rule = "host-contention";
  struct cb_sink sink = {.verdict = keep};
  struct cb_error err = {0};
  int nfail = 0, ninc = 0;
  ok(cb_burnin_judge(&b, 0.10, 0, &during, &probe, &sink, 1, &nfail, &ninc, &err) == 0 &&
         seen_status == CB_FAIL && nfail == 1,
     "evidence: the step FAILs");
  ok(seen.n == 2 && strcmp(seen.c[0].rule, "host-contention") == 0 &&
         strcmp(seen.c[1].rule, "mtu-low") == 0 && strcmp(seen.c[1].host, "b") == 0,
     "evidence: what ran meanwhile first, then node b's low MTU (%d causes: %s, %s)", seen.n,
     seen.n > 0 ? seen.c[0].rule : "-", seen.n > 1 ? seen.c[1].rule : "-");
  b.s[0].first.nnodes = 1; /* within a node: no network rule applies */
  cb_burnin_judge(&b, 0.10, 0, NULL, &probe, &sink, 1, &nfail, &ninc, &err);
  ok(seen_status == CB_FAIL && seen.n == 0, "evidence: a case within one node: no MTU cause (%d)",
     seen.n);
  cb_burnin_free(&b);
}

int main(void) {
  is_double(cb_t95(1), 12.706, 1e-9, "t(0.975, 1)");
  is_double(cb_t95(10), 2.228, 1e-9, "t(0.975, 10)");
  ok(cb_t95(1000) > 1.96 && cb_t95(1000) < 1.965, "t(0.975, 1000) near 1.96");
  ok(isnan(cb_t95(0)), "no degrees of freedom: no quantile");

  /* an exact line, 100 + t us over 9 s: change = 9 / 104.5 over the run */
  double line[10];
  for (int i = 0; i < 10; i++)
    line[i] = 100 + i;
  struct cb_burnin_series s = series(line, 10, 1.0);
  struct cb_drift d;
  cb_burnin_drift(s.p, s.n, &d);
  is_double(d.change, 9 / 104.5, 1e-12, "the trend's change over the run, by hand");
  ok(d.lo == d.hi && fabs(d.lo - d.change) < 1e-12, "no residuals: no width");
  ok(fabs(d.fit_a - 100) < 1e-9 && fabs(d.fit_b - 1) < 1e-12, "the line: 100 us + 1 us/s");
  is_double(d.step, (108 - 101) / 101.0, 1e-12, "last third (107..109) on the first (100..102)");
  ok(d.worst_interval == 10 && d.worst_us == 109, "the slowest interval and its time");
  struct cb_verdict v;
  cb_burnin_verdict(&s, 0.10, &v);
  is_str(cb_verdict_names[v.status], "PASS", "+8.6%% against a 10%% limit: PASS (%s)", v.what);
  cb_burnin_verdict(&s, 0.05, &v);
  is_str(cb_verdict_names[v.status], "FAIL", "the same against 5%%: FAIL");

  /* a step the line can hide: 6 passes at 100 us, then 3 at 200 us */
  double step[9] = {100, 100, 100, 100, 100, 100, 200, 200, 200};
  s = series(step, 9, 1.0);
  cb_burnin_drift(s.p, s.n, &d);
  is_double(d.step, 1.0, 1e-12, "the last third twice the first");
  cb_burnin_verdict(&s, 0.10, &v);
  ok(v.status == CB_FAIL && fabs(v.measured - 100) < 1e-9,
     "a step FAILs, measured by the step (+%.1f%%)", v.measured);

  /* 5 hours, a pass every 10 minutes, 50% slower in the last hour only:
   * the last hour reads it whole, where the thirds would average it down */
  double hours[31];
  for (int i = 0; i < 31; i++)
    hours[i] = i >= 24 ? 150 + (i & 1) : 100 + (i & 1);
  s = series(hours, 31, 600.0);
  cb_burnin_drift(s.p, s.n, &d);
  ok(d.by_hour == 1, "5 hours: the last hour against the first");
  is_double(d.step, 50 / (100 + 3.0 / 7), 1e-12,
            "the last hour's 7 passes (150.43) on the first hour's 7 (100.43), by hand");
  cb_burnin_verdict(&s, 0.10, &v);
  ok(v.status == CB_FAIL && strstr(v.what, "last hour") != NULL, "a FAIL that says so (%s)",
     v.what);
  ok(strstr(v.what, "an hour") != NULL, "and gives the trend's slope per hour");
  s = series(hours, 11, 600.0); /* 100 minutes: under 2 hours, the thirds */
  cb_burnin_drift(s.p, s.n, &d);
  ok(d.by_hour == 0 && !isnan(d.step), "under 2 hours: the thirds");

  /* noise around a flat level: the data cannot tell */
  double noisy[8] = {50, 150, 60, 140, 50, 150, 60, 140};
  s = series(noisy, 8, 1.0);
  cb_burnin_verdict(&s, 0.10, &v);
  is_str(cb_verdict_names[v.status], "INCONCLUSIVE", "flat but noisy: INCONCLUSIVE");
  ok(strstr(v.what, "a longer burn-in") != NULL, "and says what would settle it");

  double two[2] = {100, 100};
  s = series(two, 2, 1.0);
  cb_burnin_verdict(&s, 0.10, &v);
  ok(v.status == CB_INCONCLUSIVE && strstr(v.what, "too few"), "2 passes: too few for a trend");

  /* a wrong value: FAIL whatever the times, naming its interval */
  s = series(line, 10, 1.0);
  s.p[3].wrong = 5;
  cb_burnin_verdict(&s, 0.10, &v);
  ok(v.status == CB_FAIL && strstr(v.what, "5 wrong elements in interval 4 of 10"),
     "wrong values FAIL at once, with the interval (%s)", v.what);

  /* the store: cases kept apart, passes appended in order */
  struct cb_burnin_store b = {0};
  struct cb_record r = {.op = "allreduce",
                        .backend = "mpi",
                        .mem = "host",
                        .dtype = "float",
                        .redop = "sum",
                        .bytes = 1024,
                        .nranks = 2,
                        .time_us = 3,
                        .wrong = 0};
  for (int pass = 1; pass <= 3; pass++) {
    r.interval = pass;
    r.inplace = 0;
    cb_burnin_add(&b, &r, pass);
    r.inplace = 1;
    cb_burnin_add(&b, &r, pass);
  }
  ok(b.n == 2 && b.s[0].n == 3 && b.s[1].n == 3 && b.s[1].p[2].interval == 3,
     "two cases (in and out of place), three passes each");
  /* measured again in interval 3 (an acceptance's retest): one point, the
   * last figure, the wrong values of either kept, and said */
  r.time_us = 5, r.wrong = 2;
  cb_burnin_add(&b, &r, 3.5);
  r.time_us = 4, r.wrong = 0;
  cb_burnin_add(&b, &r, 3.7);
  const struct cb_burnin_point *q = &b.s[1].p[2];
  ok(b.s[1].n == 3 && q->time_us == 4 && q->wrong == 2 && q->again == 2,
     "a case measured again within an interval: still one point, the last time, 2 wrong kept");
  r.inplace = 0, r.time_us = 3, r.wrong = 0; /* out of place: measured again, all right */
  cb_burnin_add(&b, &r, 3.6);
  cb_burnin_verdict(&b.s[0], 0.10, &v);
  ok(b.s[0].n == 3 && strstr(v.what, "measured again in interval 3") != NULL,
     "the verdict names the interval measured again (%s)", v.what);
  is_str(b.s[1].name, "burn-in allreduce mpi host 1 KiB in-place", "named for people");
  cb_burnin_free(&b);
  ok(b.n == 0 && b.s == NULL, "freed");
  test_contention();
  test_evidence();
  done_testing();
  return exit_status();
}
