/* JSON Lines out and back in: the reader reuses the writer's column table,
 * so a record survives the round trip and a damaged line names its column. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/timer.h"
#include "output/columns.h"
#include "output/sink.h"
#include "tap.h"

int main(void) {
  struct cb_record out = {.op = "allgather",
                          .backend = "mpi",
                          .mem = "host",
                          .dtype = "float",
                          .redop = "none",
                          .mode = "throughput",
                          .inplace = 1,
                          .bytes = 1048576,
                          .count = 131072,
                          .nranks = 2,
                          .nnodes = 1,
                          .iters = 77,
                          .samples = 7,
                          .batch_min = 10,
                          .batch_max = 12,
                          .time_us = 155.5,
                          .time_us_min = 150.25,
                          .time_us_max = 170,
                          .time_us_p5 = 151,
                          .time_us_p95 = 165,
                          .ci95_us = 1.5,
                          .stat = "median",
                          .time_us_median = 155.5,
                          .time_us_mean = 157.25,
                          .time_us_p99 = 169.5,
                          .source = "collbench",
                          .algbw_GBps = 6.74,
                          .busbw_GBps = 3.37,
                          .wrong = 0,
                          .line_gbps = 400,
                          .line_rate_pct = 96,
                          .noisy = 1};
  snprintf(out.transport, sizeof out.transport, "shm");
  char path[] = "/tmp/collbench-record-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  struct cb_sink sink;
  struct cb_error err = {0};
  ok(cb_sink_jsonl(path, &sink, &err) == CB_OK && sink.start(sink.state, &err) == CB_OK,
     "open the JSON Lines sink");
  struct cb_row row = {&out, NULL};
  sink.row(sink.state, &row, &err);
  sink.close(sink.state, &err);

  json_error_t jerr;
  json_t *line = json_load_file(path, JSON_DISABLE_EOF_CHECK, &jerr);
  struct cb_record in;
  ok(line && cb_record_from_json(line, &in) == NULL, "the written line reads back");
  json_t *first = json_deep_copy(line);
  is_str(in.op, "allgather", "op");
  is_str(in.transport, "shm", "transport");
  ok(in.inplace == 1 && in.bytes == 1048576 && in.count == 131072 && in.nranks == 2 &&
         in.iters == 77 && in.wrong == 0,
     "integers and booleans");
  is_double(in.time_us, 155.5, 1e-9, "time_us");
  is_double(in.busbw_GBps, 3.37, 1e-6, "busbw_GBps");
  is_double(in.line_gbps, 400, 1e-9, "line_gbps");
  is_double(in.line_rate_pct, 96, 1e-9, "line_rate_pct");
  ok(in.samples == 7 && in.batch_min == 10 && in.batch_max == 12, "samples and batch sizes");
  ok(in.noisy == 1, "noisy read back");

  json_object_del(line, "line_gbps");
  json_object_set_new(line, "line_rate_pct", json_null());
  ok(cb_record_from_json(line, &in) == NULL && in.line_gbps == 0 && in.line_rate_pct == 0,
     "line rate absent (older files) or null reads as unknown");
  json_object_set_new(line, "line_gbps", json_string("fast"));
  is_str(cb_record_from_json(line, &in), "line_gbps", "a mistyped line rate is named");
  json_object_set_new(line, "line_gbps", json_real(400));

  json_object_set_new(line, "wrong", json_null());
  ok(cb_record_from_json(line, &in) == NULL && in.wrong == -1, "wrong: null reads as unchecked");
  json_object_set_new(line, "bytes", json_string("lots"));
  is_str(cb_record_from_json(line, &in), "bytes", "a mistyped column is named");
  json_object_del(line, "transport");
  is_str(cb_record_from_json(line, &in), "transport", "a missing column is named");
  json_decref(line);

  /* NCCL's choice: written and read back where known, absent otherwise */
  ok(!json_object_get(first, "nccl_algo") && !json_object_get(first, "nccl_proto") &&
         in.nccl_algo[0] == '\0',
     "no algorithm known: no nccl_algo / nccl_proto keys, read back empty");
  snprintf(out.nccl_algo, sizeof out.nccl_algo, "Ring");
  snprintf(out.nccl_proto, sizeof out.nccl_proto, "LL128");
  ok(cb_sink_jsonl(path, &sink, &err) == CB_OK && sink.start(sink.state, &err) == CB_OK,
     "reopen the JSON Lines sink");
  sink.row(sink.state, &row, &err);
  sink.close(sink.state, &err);
  line = json_load_file(path, JSON_DISABLE_EOF_CHECK, &jerr);
  ok(line && cb_record_from_json(line, &in) == NULL, "the line with NCCL's choice reads back");
  is_str(json_string_value(json_object_get(line, "nccl_algo")), "Ring", "nccl_algo written");
  is_str(in.nccl_algo, "Ring", "nccl_algo read back");
  is_str(in.nccl_proto, "LL128", "nccl_proto read back");
  ok(!json_object_get(line, "algo") && in.algo[0] == '\0' && in.algo_by[0] == '\0',
     "no library algorithm known: no algo key (older files), read back empty");
  json_decref(line);

  /* the library's algorithm (mpi: Open MPI coll/tuned) and how it was chosen */
  snprintf(out.algo, sizeof out.algo, "rabenseifner");
  snprintf(out.algo_by, sizeof out.algo_by, "rules");
  ok(cb_sink_jsonl(path, &sink, &err) == CB_OK && sink.start(sink.state, &err) == CB_OK,
     "reopen the JSON Lines sink");
  sink.row(sink.state, &row, &err);
  sink.close(sink.state, &err);
  line = json_load_file(path, JSON_DISABLE_EOF_CHECK, &jerr);
  ok(line && cb_record_from_json(line, &in) == NULL, "the line with the algorithm reads back");
  is_str(json_string_value(json_object_get(line, "algo")), "rabenseifner", "algo written");
  is_str(json_string_value(json_object_get(line, "algo_by")), "rules", "algo_by written");
  is_str(in.algo, "rabenseifner", "algo read back");
  is_str(in.algo_by, "rules", "algo_by read back");
  json_decref(line);

  /* issue 17's keys: a file from before them reads as what it holds
   * (time_us was the median), and unknown statistics (null) read as NAN */
  line = json_deep_copy(first);
  is_str(json_string_value(json_object_get(line, "stat")), "median", "stat written");
  json_object_del(line, "stat");
  json_object_del(line, "time_us_median");
  json_object_del(line, "time_us_mean");
  json_object_del(line, "time_us_p99");
  json_object_del(line, "source");
  json_object_del(line, "samples");
  json_object_set_new(line, "batch_min", json_null());
  json_object_del(line, "batch_max");
  json_object_del(line, "noisy");
  ok(cb_record_from_json(line, &in) == NULL, "a line without the issue 17 keys reads");
  ok(in.noisy == 0, "old file: no noisy key reads as not marked");
  ok(in.samples == 0 && in.batch_min == 0 && in.batch_max == 0,
     "old file: samples and batch sizes unknown (0)");
  is_str(in.stat, "median", "old file: stat is the median");
  is_double(in.time_us_median, 155.5, 1e-9, "old file: the median is time_us");
  ok(isnan(in.time_us_mean) && isnan(in.time_us_p99), "old file: mean and p99 unknown (NAN)");
  is_str(in.source, "collbench", "old file: source collbench");
  json_object_set_new(line, "time_us_min", json_null());
  json_object_set_new(line, "time_us_p99", json_null());
  json_object_set_new(line, "stat", json_string("mean"));
  json_object_set_new(line, "time_us_mean", json_real(160));
  json_object_set_new(line, "source", json_string("nccl-tests"));
  ok(cb_record_from_json(line, &in) == NULL && isnan(in.time_us_min) && isnan(in.time_us_p99) &&
         isnan(in.time_us_median),
     "null statistics (an imported record) read as unknown");
  ok(strcmp(in.stat, "mean") == 0 && in.time_us_mean == 160 && !strcmp(in.source, "nccl-tests"),
     "stat, mean and source read back");
  json_object_set_new(line, "time_us_p99", json_string("slow"));
  is_str(cb_record_from_json(line, &in), "time_us_p99", "a mistyped p99 is named");
  json_object_set_new(line, "time_us_p99", json_null());
  json_object_set_new(line, "stat", json_integer(1));
  is_str(cb_record_from_json(line, &in), "stat", "a mistyped stat is named");
  json_object_set_new(line, "stat", json_string("median"));

  /* a burn-in's interval and its start (--duration): both, or neither */
  ok(cb_record_from_json(line, &in) == NULL && in.interval == 0, "no interval: not a burn-in's");
  json_object_set_new(line, "interval", json_integer(7));
  json_object_set_new(line, "interval_start", json_string("2026-11-26T01:47:42Z"));
  ok(cb_record_from_json(line, &in) == NULL && in.interval == 7 &&
         in.interval_start == 1795657662.0,
     "interval 7, started 2026-11-26T01:47:42Z = Unix 1795657662");
  char when[32];
  is_str(cb_utc_text(in.interval_start, when, sizeof when), "2026-11-26T01:47:42Z",
         "and written back the same");
  json_object_set_new(line, "interval", json_integer(0));
  is_str(cb_record_from_json(line, &in), "interval", "interval 0 is named");
  json_object_set_new(line, "interval", json_integer(7));
  const char *bad[] = {"2026-11-26 01:47:42", "2026-13-26T01:47:42Z", "2026-11-26T01:47:42Zx", ""};
  for (int i = 0; i < 4; i++) {
    json_object_set_new(line, "interval_start", json_string(bad[i]));
    is_str(cb_record_from_json(line, &in), "interval_start", "interval_start '%s' is named",
           bad[i]);
  }
  json_object_del(line, "interval_start");
  is_str(cb_record_from_json(line, &in), "interval_start",
         "an interval without its start is named");
  json_decref(line);
  json_decref(first);
  remove(path);
  done_testing();
  return exit_status();
}
