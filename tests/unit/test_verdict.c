/* The one three-way rule every target is judged by (bench/base/verdict.c):
 * each state, both directions, the edges, and acceptance's judge with a
 * record's interval. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept/accept.h"
#include "output/sink.h"
#include "results/verdict.h"
#include "tap.h"

static void test_interval(void) {
  /* bandwidths: at least 100 */
  is_long(cb_verdict_interval(110, 130, 100, 0), CB_PASS, "bw 110-130 vs >= 100: PASS");
  is_long(cb_verdict_interval(60, 90, 100, 0), CB_FAIL, "bw 60-90 vs >= 100: FAIL");
  is_long(cb_verdict_interval(90, 110, 100, 0), CB_INCONCLUSIVE,
          "bw 90-110 vs >= 100: INCONCLUSIVE");
  is_long(cb_verdict_interval(100, 120, 100, 0), CB_PASS, "at the level itself: still a pass");
  is_long(cb_verdict_interval(120, 110, 100, 0), CB_PASS, "ends in either order");
  /* times: at most 10 */
  is_long(cb_verdict_interval(3, 9, 10, 1), CB_PASS, "time 3-9 vs <= 10: PASS");
  is_long(cb_verdict_interval(11, 20, 10, 1), CB_FAIL, "time 11-20 vs <= 10: FAIL");
  is_long(cb_verdict_interval(8, 12, 10, 1), CB_INCONCLUSIVE, "time 8-12 vs <= 10: INCONCLUSIVE");
  is_long(cb_verdict_interval(10, 10, 10, 1), CB_PASS, "a point at the level: PASS");
  is_long(cb_verdict_interval(NAN, 12, 10, 1), CB_INCONCLUSIVE, "NaN: INCONCLUSIVE");
  is_long(cb_verdict_interval(20, INFINITY, 10, 0), CB_PASS, "an unbounded fast end can pass");
  is_long(cb_verdict_interval(1, INFINITY, 10, 0), CB_INCONCLUSIVE, "and cannot fail");
  ok(!strcmp(cb_verdict_names[CB_INCONCLUSIVE], "INCONCLUSIVE") && CB_INCONCLUSIVE == 3,
     "named INCONCLUSIVE, gauge value 3");
}

static void test_judge(void) {
  /* a time check: 8 us +- 3 against fail 10 us, warn 5 us */
  struct cb_record rec = {.time_us = 8, .ci95_us = 3};
  struct cb_verdict v = {.unit = "us", .measured = 8, .warn = 5, .fail = 10};
  cb_verdict_record_interval(&v, &rec, 1);
  ok(v.interval && v.lo == 5 && v.hi == 11, "time interval from the record: 5 to 11");
  cb_verdict_judge(&v, 1, CB_SETTLE_ENGINE);
  ok(v.status == CB_INCONCLUSIVE && strstr(v.what, "INCONCLUSIVE, the 95% interval 5 to 11 us") &&
         strstr(v.what, "contains the fail level 10") && strstr(v.what, "quieter machine"),
     "8 +- 3 us against 10: INCONCLUSIVE, saying what settles it: %s", v.what);
  v = (struct cb_verdict){.unit = "us", .measured = 8, .warn = 5, .fail = 10};
  rec.ci95_us = 1;
  cb_verdict_record_interval(&v, &rec, 1);
  cb_verdict_judge(&v, 1, NULL);
  ok(v.status == CB_WARN, "8 +- 1 us: clears the fail level, not the warn level: WARN");
  v = (struct cb_verdict){.unit = "us", .measured = 3, .warn = 5, .fail = 10};
  rec = (struct cb_record){.time_us = 3, .ci95_us = 1};
  cb_verdict_record_interval(&v, &rec, 1);
  cb_verdict_judge(&v, 1, NULL);
  ok(v.status == CB_PASS, "3 +- 1 us: clears both: PASS");
  v = (struct cb_verdict){.unit = "us", .measured = 4, .warn = 5, .fail = 10};
  rec = (struct cb_record){.time_us = 4, .ci95_us = 1.5};
  cb_verdict_record_interval(&v, &rec, 1);
  cb_verdict_judge(&v, 1, NULL);
  ok(v.status == CB_WARN, "4 +- 1.5 us: the warn level inside the interval: WARN, not PASS");
  v = (struct cb_verdict){.unit = "us", .measured = 14, .warn = NAN, .fail = 10};
  rec = (struct cb_record){.time_us = 14, .ci95_us = 2};
  cb_verdict_record_interval(&v, &rec, 1);
  cb_verdict_judge(&v, 1, NULL);
  ok(v.status == CB_FAIL && v.margin < 0, "14 +- 2 us against 10: FAIL");
  /* a bandwidth from the same time: 100 GB/s at 10 us +- 2 is 83.3 to 125 */
  v = (struct cb_verdict){.unit = "GB/s", .measured = 100, .warn = NAN, .fail = 90};
  rec = (struct cb_record){.time_us = 10, .ci95_us = 2};
  cb_verdict_record_interval(&v, &rec, 0);
  ok(fabs(v.lo - 1000.0 / 12) < 1e-9 && fabs(v.hi - 125) < 1e-9,
     "bandwidth interval from the time's: %g to %g", v.lo, v.hi);
  cb_verdict_judge(&v, 0, NULL);
  ok(v.status == CB_INCONCLUSIVE, "100 GB/s (83-125) against 90: INCONCLUSIVE");
  v = (struct cb_verdict){.unit = "GB/s", .measured = 100, .warn = NAN, .fail = 90};
  rec = (struct cb_record){.time_us = 10, .ci95_us = 0};
  cb_verdict_record_interval(&v, &rec, 0);
  cb_verdict_judge(&v, 0, NULL);
  ok(!v.interval && v.status == CB_PASS, "a record without a CI is judged as a point");
  /* a noisy row: 10 us +- 12 reached time 0 (an unbounded bandwidth, so a
   * figure 1000x under its level read INCONCLUSIVE); the interval's low end
   * is never under the fastest sample, 8 us: 0.1 GB/s is at most 0.125 */
  v = (struct cb_verdict){.unit = "GB/s", .measured = 0.1, .warn = NAN, .fail = 100};
  rec = (struct cb_record){.time_us = 10, .ci95_us = 12, .time_us_min = 8};
  cb_verdict_record_interval(&v, &rec, 0);
  cb_verdict_judge(&v, 0, NULL);
  ok(isfinite(v.hi) && fabs(v.hi - 0.125) < 1e-9 && v.status == CB_FAIL,
     "10 +- 12 us, fastest sample 8: bandwidth at most %g, FAIL against 100", v.hi);
  v = (struct cb_verdict){.unit = "us", .measured = 10, .warn = NAN, .fail = 9};
  cb_verdict_record_interval(&v, &rec, 1);
  ok(v.lo == 8 && v.hi == 22, "its time interval: 8 (the fastest sample) to 22");
}

/* Acceptance's exit status from its verdict counts. */
static void test_status(void) {
  struct cb_error err = {0};
  struct cb_accept_result r = {.pass = 3, .warn = 1};
  is_long(cb_accept_status(&r, &err), CB_OK, "all pass or warn: exit 0");
  r.inconclusive = 1;
  ok(cb_accept_status(&r, &err) == CB_FAILED && strstr(err.msg, "INCONCLUSIVE: 1 of 5") &&
         strstr(err.msg, "not accepted"),
     "one inconclusive: exit 1, saying so: %s", err.msg);
  r.fail = 1;
  err = (struct cb_error){0};
  ok(cb_accept_status(&r, &err) == CB_FAILED && strstr(err.msg, "FAILED: 1 of 6"),
     "a failure wins the message: %s", err.msg);
}

static char *slurp(const char *path) {
  static char buf[8192];
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  buf[n] = 0;
  if (f)
    fclose(f);
  return buf;
}

/* JUnit: an inconclusive verdict is an <error> (no result reached), a
 * failure a <failure>; a run that ends in an error before its verdicts
 * writes one error case naming it, and never replaces written verdicts. */
static void test_junit(void) {
  char dir[] = "/tmp/test_verdict.XXXXXX", path[64], conf[64];
  if (!mkdtemp(dir)) {
    ok(0, "mkdtemp");
    return;
  }
  snprintf(path, sizeof path, "%s/j.xml", dir);
  snprintf(conf, sizeof conf, "%s/c.xml", dir);
  struct cb_error err = {0}, run = {0};
  FILE *f = fopen(conf, "w");
  fputs("earlier", f);
  fclose(f);
  cb_fail(&run, CB_USAGE, "h100.conf:12: check 'nvlink' needs the nccl backend & <this>");
  ok(cb_junit_write_error(conf, &run) == CB_OK, "the error case is written");
  const char *x = slurp(conf);
  ok(strstr(x, "tests=\"1\" failures=\"0\" errors=\"1\"") &&
         strstr(x, "<testcase classname=\"collbench.acceptance\" name=\"configuration\">") &&
         strstr(x, "<error type=\"configuration\" message=\"configuration error (exit 2): "
                   "h100.conf:12: check &apos;nvlink&apos; needs the nccl backend &amp; "
                   "&lt;this&gt;\"/>") &&
         !strstr(x, "earlier"),
     "one error case naming the problem, escaped, replacing the file");
  struct cb_sink sink;
  ok(cb_sink_junit(path, &sink, &err) == CB_OK, "junit sink opens");
  struct cb_verdict v[3] = {
      {.name = "a", .status = CB_PASS, .unit = "us", .measured = 1, .warn = NAN, .fail = 2},
      {.name = "b", .status = CB_FAIL, .unit = "us", .measured = 3, .warn = NAN, .fail = 2},
      {.name = "c",
       .status = CB_INCONCLUSIVE,
       .unit = "us",
       .measured = 2,
       .warn = NAN,
       .fail = 2}};
  for (int i = 0; i < 3; i++)
    sink.verdict(sink.state, &v[i], &err);
  struct cb_summary sum = {0};
  ok(sink.finish(sink.state, &sum, &err) == CB_OK, "junit written");
  sink.close(sink.state, &err);
  x = slurp(path);
  ok(strstr(x, "tests=\"3\" failures=\"1\" errors=\"1\"") &&
         strstr(x, "<failure message=\"FAIL: measured 3 us") &&
         strstr(x, "<error type=\"inconclusive\" message=\"INCONCLUSIVE: measured 2 us"),
     "FAIL a failure, INCONCLUSIVE an error");
  ok(cb_junit_write_error(path, &run) == CB_OK && strstr(slurp(path), "errors=\"1\"") &&
         strstr(slurp(path), "name=\"c\""),
     "an error after the verdicts were written leaves them");
  unlink(path);
  unlink(conf);
  rmdir(dir);
}

int main(void) {
  test_interval();
  test_judge();
  test_status();
  test_junit();
  done_testing();
  return exit_status();
}
