/* The JSON Lines and CSV sinks: every result line is whole and flushed as
 * it is written (a killed run leaves only whole lines), with exactly the
 * promised keys in order; CSV shares the same columns. */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/defaults.h"
#include "output/sink.h"
#include "tap.h"

static const char *const keys[] = {
    "type",
    "op",
    "backend",
    "mem",
    "transport",
    "dtype",
    "redop",
    "inplace",
    "bytes",
    "count",
    "nranks",
    "nnodes",
    "iters",
    "time_us",
    "time_us_min",
    "time_us_max",
    "time_us_p5",
    "time_us_p95",
    "ci95_us",
    "algbw_GBps",
    "busbw_GBps",
    "wrong",
    "line_gbps",
    "line_rate_pct",
    /* issue 17: after the older keys, so CSV columns keep their places */
    "stat",
    "time_us_median",
    "time_us_mean",
    "time_us_p99",
    "source",
    /* the batch sizes the timing used (0 = unknown: null / empty) */
    "samples",
    "batch_min",
    "batch_max",
    /* the CI stayed wider than --precision (issue 31): false when reached or not judged */
    "noisy",
};
#define NKEYS (int)(sizeof keys / sizeof keys[0])

static struct cb_record make_record(int inplace, long wrong) {
  struct cb_record r = {
      .op = "allreduce",
      .backend = "mpi",
      .mem = "host",
      .dtype = "float",
      .redop = "sum",
      .mode = "throughput",
      .inplace = inplace,
      .bytes = 1 << 20,
      .count = 262144,
      .nranks = 4,
      .nnodes = 2,
      .iters = 1000,
      .samples = 20,
      .batch_min = 40,
      .batch_max = 60,
      .time_us = 123.5,
      .time_us_min = 120.25,
      .time_us_max = 150,
      .time_us_p5 = 121,
      .time_us_p95 = 140.75,
      .ci95_us = 0.5,
      .stat = "median",
      .time_us_median = 123.5,
      .time_us_mean = 125.25,
      .time_us_p99 = 149.5,
      .source = "collbench",
      .algbw_GBps = 8.5,
      .busbw_GBps = 12.75,
      .wrong = wrong,
  };
  strcpy(r.transport, "shm");
  return r;
}

static char *temp_path(const char *stem) {
  static char paths[2][64];
  static int next;
  char *p = paths[next++ % 2];
  snprintf(p, sizeof paths[0], "/tmp/%s_XXXXXX", stem);
  int fd = mkstemp(p);
  if (fd < 0)
    return NULL;
  close(fd);
  return p;
}

/* Reads every line written so far, without closing the writer. */
static int read_lines(const char *path, char lines[][4096], int max) {
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  int n = 0;
  while (n < max && fgets(lines[n], sizeof lines[n], f))
    n++;
  fclose(f);
  return n;
}

/* One result line: exactly the keys in order, with the right JSON types. */
static void check_result(const char *line, const struct cb_record *r, const char *what) {
  json_error_t jerr;
  size_t len = strlen(line);
  ok(len > 0 && line[len - 1] == '\n', "%s: line ends with a newline", what);
  json_t *o = json_loads(line, 0, &jerr);
  if (!ok(json_is_object(o), "%s: parses as a JSON object", what)) {
    diag("%s", jerr.text);
    return;
  }
  int i = 0, in_order = 1;
  const char *key;
  json_t *v;
  json_object_foreach(o, key, v) {
    if (i >= NKEYS || strcmp(key, keys[i]) != 0) {
      diag("key %d: got '%s', want '%s'", i, key, i < NKEYS ? keys[i] : "(none)");
      in_order = 0;
    }
    i++;
  }
  ok(in_order && i == NKEYS, "%s: exactly the %d keys, in order", what, NKEYS);
  is_str(json_string_value(json_object_get(o, "type")), "result", "%s: type result", what);
  is_str(json_string_value(json_object_get(o, "transport")), "shm", "%s: transport", what);
  ok(json_is_boolean(json_object_get(o, "inplace")) &&
         json_is_true(json_object_get(o, "inplace")) == (r->inplace != 0),
     "%s: inplace is the boolean %d", what, r->inplace);
  ok(json_is_integer(json_object_get(o, "bytes")) &&
         json_integer_value(json_object_get(o, "bytes")) == (json_int_t)r->bytes &&
         json_integer_value(json_object_get(o, "count")) == (json_int_t)r->count &&
         json_integer_value(json_object_get(o, "nnodes")) == r->nnodes &&
         json_integer_value(json_object_get(o, "iters")) == r->iters,
     "%s: integers bytes, count, nnodes, iters", what);
  ok(json_is_real(json_object_get(o, "time_us")) &&
         json_real_value(json_object_get(o, "time_us")) == r->time_us &&
         json_real_value(json_object_get(o, "busbw_GBps")) == r->busbw_GBps,
     "%s: times and bandwidths are reals", what);
  is_str(json_string_value(json_object_get(o, "stat")), r->stat, "%s: stat names time_us", what);
  ok(json_real_value(json_object_get(o, "time_us_median")) == r->time_us_median &&
         json_real_value(json_object_get(o, "time_us_mean")) == r->time_us_mean,
     "%s: median and mean are reals", what);
  if (isnan(r->time_us_p99))
    ok(json_is_null(json_object_get(o, "time_us_p99")), "%s: an unknown p99 is null", what);
  else
    ok(json_real_value(json_object_get(o, "time_us_p99")) == r->time_us_p99, "%s: p99", what);
  json_t *ns = json_object_get(o, "samples"), *b0 = json_object_get(o, "batch_min"),
         *b1 = json_object_get(o, "batch_max");
  if (r->samples > 0)
    ok(json_integer_value(ns) == r->samples && json_integer_value(b0) == r->batch_min &&
           json_integer_value(b1) == r->batch_max,
       "%s: samples and batch sizes are integers", what);
  else
    ok(json_is_null(ns) && json_is_null(b0) && json_is_null(b1),
       "%s: unknown samples and batch sizes are null", what);
  json_t *g = json_object_get(o, "line_gbps"), *pct = json_object_get(o, "line_rate_pct");
  if (r->line_gbps > 0)
    ok(json_is_real(g) && json_real_value(g) == r->line_gbps && json_is_real(pct) &&
           json_real_value(pct) == r->line_rate_pct,
       "%s: line rate and percentage are reals", what);
  else
    ok(json_is_null(g) && json_is_null(pct), "%s: unknown line rate is null", what);
  json_t *w = json_object_get(o, "wrong");
  if (r->wrong < 0)
    ok(json_is_null(w), "%s: wrong is null when not checked", what);
  else
    ok(json_is_integer(w) && json_integer_value(w) == r->wrong, "%s: wrong is the integer %ld",
       what, r->wrong);
  ok(json_is_boolean(json_object_get(o, "noisy")) &&
         json_is_true(json_object_get(o, "noisy")) == r->noisy,
     "%s: noisy is the boolean %d", what, r->noisy);
  json_decref(o);
}

static void test_jsonl(void) {
  const char *path = temp_path("cb_jsonl");
  struct cb_sink sink;
  struct cb_error err = {0};
  if (!ok(path && cb_sink_jsonl(path, &sink, &err) == CB_OK, "jsonl sink opens %s", path)) {
    diag("%s", err.msg);
    return;
  }
  ok(sink.row && sink.close && sink.run && sink.start, "jsonl sink has start, run, row and close");
  ok(sink.start(sink.state, &err) == CB_OK, "jsonl sink starts");
  struct cb_record a = make_record(0, -1), b = make_record(1, 0), c = make_record(0, 17);
  c.line_gbps = 400, c.line_rate_pct = 12.5; /* a verbs record */
  c.time_us_p99 = NAN;                       /* unknown, as in an imported record */
  c.samples = c.batch_min = c.batch_max = 0; /* so are its batches */
  b.noisy = 1;                               /* its CI stayed wider than --precision */
  struct cb_row row1 = {&a, &b}, row2 = {&c, NULL};
  char lines[4][4096];

  ok(sink.row(sink.state, &row1, &err) == CB_OK, "row 1 (both variants) written");
  is_long(read_lines(path, lines, 4), 2, "before close: row 1 gave 2 whole lines on disk");
  check_result(lines[0], &a, "out-of-place, unchecked");
  check_result(lines[1], &b, "in-place, 0 wrong");

  ok(sink.row(sink.state, &row2, &err) == CB_OK, "row 2 (out-of-place only) written");
  is_long(read_lines(path, lines, 4), 3, "before close: row 2 added 1 line");
  check_result(lines[2], &c, "17 wrong");
  sink.close(sink.state, &err);
  unlink(path);

  struct cb_error e = {0};
  char bad[600]; /* beside this test's own file: any program may create /nonexistent */
  snprintf(bad, sizeof bad, "%s.missing/dir/x.jsonl", path);
  int rc = cb_sink_jsonl(bad, &sink, &e);
  ok(rc == CB_USAGE && e.status == CB_USAGE && strstr(e.msg, bad),
     "jsonl on an unwritable path: usage error naming it (\"%s\")", e.msg);
}

static int count_fields(const char *line) {
  int n = 1;
  for (; *line && *line != '\n'; line++)
    n += *line == ',';
  return n;
}

static void test_csv(void) {
  const char *path = temp_path("cb_csv");
  struct cb_sink sink;
  struct cb_error err = {0};
  if (!ok(path && cb_sink_csv(path, &sink, &err) == CB_OK, "csv sink opens %s", path)) {
    diag("%s", err.msg);
    return;
  }
  char want[1024] = "";
  for (int i = 1; i < NKEYS; i++) /* every JSON key but "type" */
    snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i > 1 ? "," : "", keys[i]);
  strcat(want, "\n");
  char lines[4][4096];
  ok(read_lines(path, lines, 4) == 0, "nothing written before the run starts");
  ok(sink.start(sink.state, &err) == CB_OK, "csv sink starts");
  /* the header follows the run record (a burn-in's has two more columns) */
  struct cb_settings st;
  cb_settings_defaults(&st);
  struct cb_run_info ri = {.settings = &st};
  ok(sink.run(sink.state, &ri, &err) == CB_OK && read_lines(path, lines, 4) == 1,
     "csv header on disk with the run record, before any row");
  is_str(lines[0], want, "csv header is the JSON keys without type");

  struct cb_record a = make_record(0, -1), b = make_record(1, 3);
  struct cb_row row = {&a, &b};
  ok(sink.row(sink.state, &row, &err) == CB_OK, "csv row written");
  is_long(read_lines(path, lines, 4), 3, "before close: header and 2 records on disk");
  is_long(count_fields(lines[1]), NKEYS - 1, "csv record has one field per column");
  is_long(count_fields(lines[2]), NKEYS - 1, "csv in-place record too");
  const char *prefix = "allreduce,mpi,host,shm,float,sum,false,1048576,262144,4,2,1000,";
  ok(strncmp(lines[1], prefix, strlen(prefix)) == 0, "csv record starts with the row's identity");
  size_t n1 = strlen(lines[1]), n2 = strlen(lines[2]);
  /* wrong, line_gbps, line_rate_pct, then issue 17's statistics close every record */
  const char *stats = ",median,123.5,125.25,149.5,collbench,20,40,60,false\n";
  size_t ns = strlen(stats);
  ok(n1 > ns + 3 && strcmp(lines[1] + n1 - ns, stats) == 0 &&
         strncmp(lines[1] + n1 - ns - 3, ",,,", 3) == 0,
     "unchecked wrong and unknown line rate are empty, then stat, median, mean, p99, source, "
     "samples, batch sizes, noisy");
  ok(n2 > ns + 4 && strncmp(lines[2] + n2 - ns - 4, ",3,,", 4) == 0 && strstr(lines[2], ",true,"),
     "in-place record: true, wrong 3");
  sink.close(sink.state, &err);
  unlink(path);

  struct cb_error e = {0};
  char bad[600];
  snprintf(bad, sizeof bad, "%s.missing/dir/x.csv", path);
  ok(cb_sink_csv(bad, &sink, &e) == CB_USAGE && strstr(e.msg, bad),
     "csv on an unwritable path: usage error naming it");
}

int main(void) {
  test_jsonl();
  test_csv();
  done_testing();
  return exit_status();
}
