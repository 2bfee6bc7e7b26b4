/* --import-nccl-tests' reader: nccl-tests' table and -J JSON (fixtures made
 * by hand from the formats in NVIDIA/nccl-tests src/util.cu) become
 * collbench records; a malformed file is a usage error naming file and line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "import/nccl_tests.h"
#include "tap.h"

#define TABLE "tests/fixtures/nccl_tests_allreduce.txt"
#define JSONF "tests/fixtures/nccl_tests_allgather.json"

/* The column header and units lines as nccl-tests prints them. */
#define HEADER                                                                                     \
  "#        size         count      type   redop    root     time   algbw   busbw  #wrong     "    \
  "time   algbw   busbw  #wrong \n"                                                                \
  "#         (B)    (elements)                               (us)  (GB/s)  (GB/s)             "    \
  "(us)  (GB/s)  (GB/s)         \n"

static char *write_temp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/cb_ncclt_XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
    return NULL;
  close(fd);
  return path;
}

/* Imports `text`; returns the status, err holds the message. */
static int import_text(const char *text, const char *op, struct cb_import *im,
                       struct cb_error *err) {
  char *path = write_temp(text);
  memset(err, 0, sizeof *err);
  int rc = cb_import_nccl_tests(path, op, im, err);
  unlink(path);
  return rc;
}

static void test_op_names(void) {
  static const char *const names[][2] = {{"all_reduce_perf", "allreduce"},
                                         {"./build/all_gather_perf", "allgather"},
                                         {"reduce_scatter_perf", "reducescatter"},
                                         {"broadcast_perf_mpi", "broadcast"},
                                         {"alltoall_perf", "alltoall"},
                                         {"sendrecv_perf", "sendrecv"}};
  char op[32];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    op[0] = '\0';
    ok(cb_import_op_name(names[i][0], op, sizeof op) && strcmp(op, names[i][1]) == 0,
       "program %s is op %s (got '%s')", names[i][0], names[i][1], op);
  }
  ok(!cb_import_op_name("collbench", op, sizeof op), "not a NAME_perf program: no op");
}

static void test_table(void) {
  struct cb_import im;
  struct cb_error err = {0};
  if (!ok(cb_import_nccl_tests(TABLE, NULL, &im, &err) == CB_OK, "the table fixture imports")) {
    diag("%s", err.msg);
    return;
  }
  is_str(im.op, "allreduce", "op from '# Collective test starting: all_reduce_perf'");
  is_long(im.nrows, 3, "3 rows; the NCCL INFO line among the rank lines is skipped");
  ok(im.nranks == 4 && im.nnodes == 2 && !strcmp(im.hosts[0], "nodea") &&
         !strcmp(im.hosts[1], "nodeb"),
     "4 ranks on nodea and nodeb, from the '#  Rank' lines");
  is_long(im.iters, 20, "iters: 20 x agg iters: 1");
  const struct cb_import_row *r = &im.rows[2];
  const struct cb_record *o = &r->rec[0], *i = &r->rec[1];
  ok(r->has[0] && r->has[1], "row 3 has both variants");
  ok(o->bytes == 1048576 && o->count == 262144 && o->root == -1 && !o->inplace && i->inplace,
     "size, count, root, in place");
  ok(!strcmp(o->dtype, "float") && !strcmp(o->redop, "sum") && !strcmp(o->backend, "nccl") &&
         !strcmp(o->mem, "device") && !strcmp(o->source, "nccl-tests"),
     "type, redop, backend nccl, device memory, source nccl-tests");
  ok(o->time_us == 100 && o->time_us_mean == 100 && !strcmp(o->stat, "mean"),
     "time is nccl-tests' mean: time_us = time_us_mean, stat mean");
  ok(isnan(o->time_us_median) && isnan(o->time_us_min) && isnan(o->time_us_p99) &&
         isnan(o->ci95_us),
     "statistics the table does not give are unknown (NAN)");
  ok(o->algbw_GBps == 10.49 && o->busbw_GBps == 15.73 && i->busbw_GBps == 16.05,
     "algbw and busbw as nccl-tests printed them");
  ok(o->wrong == 0 && i->wrong == 3, "#wrong per variant");
  cb_import_free(&im);
}

static void test_table_variants(void) {
  struct cb_import im;
  struct cb_error err;
  /* -I 1: per-iteration columns; -Z: a timestamp closes the line; no
   * "Collective test starting" line (nccl-tests before 2.16.7): --op */
  const char *iter = "# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 "
                     "iters: 10 agg iters: 2 validation: 0 graph: 0\n"
                     "#      size    count   type  redop   root     time  algbw  busbw #wrong  "
                     "i_min  i_max  i_p99  i_cv%     time  algbw  busbw #wrong  i_min  i_max  "
                     "i_p99  i_cv%  timestamp\n"
                     "           8        2  float    sum     -1    30.00   0.00   0.00    N/A  "
                     "  25.00  60.00  55.00  12.00    29.00   0.00   0.00    N/A   24.00  50.00  "
                     "48.00  10.00  2026-11-20 10:00:01\n";
  is_long(import_text(iter, NULL, &im, &err), CB_USAGE, "no program name and no --op: usage error");
  ok(strstr(err.msg, "--op") != NULL, "which says to give --op (\"%s\")", err.msg);
  if (ok(import_text(iter, "allreduce", &im, &err) == CB_OK, "with --op allreduce it imports")) {
    const struct cb_record *o = &im.rows[0].rec[0], *i = &im.rows[0].rec[1];
    ok(o->time_us == 30 && o->time_us_min == 25 && o->time_us_max == 60 && o->time_us_p99 == 55 &&
           i->time_us_p99 == 48,
       "per-iteration i_min, i_max, i_p99 fill min, max, p99");
    ok(o->wrong == -1 && i->wrong == -1, "#wrong N/A: not checked");
    is_long(im.iters, 20, "iters 10 x agg iters 2");
    cb_import_free(&im);
  }
}

/* Each malformed input: the usage error names the file and the line. */
static void test_malformed(void) {
  static const struct {
    const char *text, *want, *what;
  } bad[] = {
      {"# Collective test starting: all_reduce_perf\n" HEADER
       "           8             2     float     sum      -1    20.00    0.00    0.00       0\n",
       ":4: 9 fields where", "a cut row (killed run)"},
      {"# Collective test starting: all_reduce_perf\n" HEADER
       "           8             2     float     sum      -1    fast    0.00    0.00       0    "
       "19.50    0.00    0.00       0\n",
       ":4: time 'fast'", "a word for a time"},
      {"# Collective test starting: all_reduce_perf\n" HEADER
       "        8.5             2     float     sum      -1    20.00    0.00    0.00       0    "
       "19.50    0.00    0.00       0\n",
       ":4: size '8.5'", "a fractional size"},
      {"# Collective test starting: all_reduce_perf\n"
       "           8             2     float     sum      -1    20.00    0.00    0.00       0    "
       "19.50    0.00    0.00       0\n",
       ":2: a result row before", "a row before the header"},
      {"# Collective test starting: all_reduce_perf\n"
       "#       size         count      type   redop    root  cputime   algbw   busbw  #wrong  "
       "cputime   algbw   busbw  #wrong\n",
       ":2: the time columns are cputime", "cputime columns (-C 1)"},
      {"hello\n", "no nccl-tests column header", "not a nccl-tests output"},
      {"# Collective test starting: all_reduce_perf\n" HEADER, "no result rows", "no rows"},
      {"{\"results\": [{\"size\": 8,", ":1:", "cut JSON"},
      {"{\"version\": 3}", "no \"results\" list", "JSON without results"},
      {"{\"args\":[\"all_reduce_perf\"],\"results\":[{\"size\":8,\"count\":2,\"type\":\"float\","
       "\"redop\":\"sum\",\"root\":\"    -1\",\"out_of_place\":{\"time\":\"slow\"}}]}",
       "results[0].out_of_place", "a JSON time that is not a number"},
      {"{\"args\":[\"all_reduce_perf\"],\"results\":[{\"size\":\"8\"}]}", "results[0]",
       "a JSON size that is a string"},
      /* issue 56: decimal and exact */
      {"# Collective test starting: all_reduce_perf\n" HEADER
       "        0x10             4     float     sum      -1    20.00    0.00    0.00       0    "
       "19.50    0.00    0.00       0\n",
       ":4: size '0x10'", "a hexadecimal size"},
      {"# Collective test starting: all_reduce_perf\n" HEADER
       "  9007199254740993  2     float     sum      -1    20.00    0.00    0.00       0    "
       "19.50    0.00    0.00       0\n",
       ":4: size '9007199254740993'", "a size of 2^53 + 1 (a double would round it to 2^53)"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    struct cb_import im;
    struct cb_error err;
    char *path = write_temp(bad[k].text);
    char want[128];
    snprintf(want, sizeof want, "%s%s", bad[k].want[0] == ':' ? path : "", bad[k].want);
    int rc = cb_import_nccl_tests(path, NULL, &im, (memset(&err, 0, sizeof err), &err));
    unlink(path);
    ok(rc == CB_USAGE && strstr(err.msg, want) && strstr(err.msg, path),
       "%s: usage error naming file and place (\"%s\")", bad[k].what, err.msg);
    cb_import_free(&im);
  }
}

/* issue 56: --op names one of nccl-tests' collectives; hosts are not capped */
static void test_op_and_hosts(void) {
  struct cb_import im;
  struct cb_error err;
  const char *rows = "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 "
                     "iters: 20 agg iters: 1 validation: 1 graph: 0\n" HEADER
                     "           8             2     float     sum      -1    20.00    0.00    "
                     "0.00       0    19.50    0.00    0.00       0\n";
  ok(import_text(rows, "all", &im, &err) == CB_USAGE && strstr(err.msg, "--op all"),
     "--op all is refused, naming it (%s)", err.msg);
  cb_import_free(&im);
  static char text[100 * 80 + 1024];
  size_t at = 0;
  for (int r = 0; r < 100; r++)
    at += (size_t)snprintf(text + at, sizeof text - at,
                           "#  Rank %3d Group  0 Pid 1 on node%03d device  0 [0x1b] NVIDIA H100\n",
                           r, r);
  snprintf(text + at, sizeof text - at, "%s", rows);
  if (ok(import_text(text, "allreduce", &im, &err) == CB_OK, "100 ranks on 100 hosts import (%s)",
         err.msg))
    ok(im.nranks == 100 && im.nnodes == 100 && !strcmp(im.hosts[99], "node099"),
       "100 ranks on 100 hosts, none dropped (%d on %d)", im.nranks, im.nnodes);
  cb_import_free(&im);
}

static void test_json(void) {
#if CB_HAVE_JANSSON
  struct cb_import im;
  struct cb_error err = {0};
  if (!ok(cb_import_nccl_tests(JSONF, NULL, &im, &err) == CB_OK, "the -J fixture imports")) {
    diag("%s", err.msg);
    return;
  }
  ok(im.json && !strcmp(im.op, "allgather") && !strcmp(im.program, "all_gather_perf"),
     "op from args[0] ./build/all_gather_perf");
  ok(im.nranks == 2 && im.nnodes == 1 && im.iters == 20, "2 ranks on one host, 20 iterations");
  is_long(im.nrows, 2, "2 results");
  is_long(im.nan, 1, "the in-place \"nan\" figures are left out, and counted");
  const struct cb_record *o = &im.rows[0].rec[0], *i = &im.rows[0].rec[1];
  ok(o->bytes == 1024 && o->count == 128 && o->root == -1 && !strcmp(o->redop, "none"),
     "size, count, root \"    -1\", redop none");
  ok(o->time_us == 12.5 && i->time_us == 12 && o->busbw_GBps == 0.04096, "time and busbw");
  ok(o->time_us_median == 12 && o->time_us_min == 11 && o->time_us_max == 20 &&
         o->time_us_p95 == 18 && o->time_us_p99 == 19.5 && i->time_us_p99 == 14.8,
     "per-iteration p50, min, max, p95, p99 fill the statistics");
  ok(isnan(o->time_us_p5), "p5, which nccl-tests does not give, stays unknown");
  const struct cb_import_row *r = &im.rows[1];
  ok(r->has[0] && !r->has[1] && !strcmp(r->rec[0].dtype, "e4m3") && r->rec[0].wrong == -1,
     "row 2: out of place only, f8e4m3 as e4m3, nwrong null as not checked");
  ok(isnan(r->rec[0].time_us_median), "no per-iteration object: median unknown");
  cb_import_free(&im);
#else
  printf("ok %d # SKIP built without jansson: no -J import\n", ++tap_run);
#endif
}

int main(void) {
  test_op_names();
  test_table();
  test_table_variants();
  test_malformed();
  test_op_and_hosts();
  test_json();
  done_testing();
  return exit_status();
}
