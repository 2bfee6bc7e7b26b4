/* --json FILE: JSON Lines through jansson. The first line is the run
 * record; then one result line per record, flushed as it is written so a
 * killed run leaves only whole lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "sink.h"

#if CB_HAVE_JANSSON
#include <jansson.h>

#include "../probe/probe.h"
#include "backends/backend.h"
#include "base/text.h"
#include "base/timer.h"
#include "columns.h"
#include "lines.h"
#include "ops/op.h"
#include "runtime/standin.h"

#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(7))

static json_t *column_value(const struct cb_record *r, const struct cb_column *c) {
  const void *p = cb_column_ptr(r, c);
  switch (c->kind) {
  case CB_COL_STRING: return cb_json_text(*(const char *const *)p);
  case CB_COL_CHARS: return cb_json_text((const char *)p);
  case CB_COL_BOOL: return json_boolean(*(const int *)p);
  case CB_COL_INT: return json_integer(*(const int *)p);
  case CB_COL_LONG: return json_integer(*(const long *)p);
  case CB_COL_UINT64: return json_integer((json_int_t) * (const uint64_t *)p);
  case CB_COL_SIZE: return json_integer((json_int_t) * (const size_t *)p);
  case CB_COL_DOUBLE: return json_real(*(const double *)p);
  case CB_COL_WRONG: return *(const long *)p >= 0 ? json_integer(*(const long *)p) : json_null();
  case CB_COL_KNOWN: return *(const double *)p > 0 ? json_real(*(const double *)p) : json_null();
  case CB_COL_STAT: return isnan(*(const double *)p) ? json_null() : json_real(*(const double *)p);
  case CB_COL_OPTSTR:
    return *(const char *const *)p ? cb_json_text(*(const char *const *)p) : json_null();
  case CB_COL_COUNT: return *(const long *)p > 0 ? json_integer(*(const long *)p) : json_null();
  case CB_COL_FLAG: return json_boolean(*(const int *)p);
  }
  return json_null();
}

/* One line, written whole or not at all. */
static int put_line(struct cb_lines *l, json_t *obj, struct cb_error *err) {
  char *text = json_dumps(obj, DUMP_FLAGS);
  json_decref(obj);
  return cb_lines_put_text(l, text, err);
}

static json_t *settings_json(const struct cb_settings *s) {
  json_t *o = json_object();
  json_object_set_new(o, "mode", cb_json_text(cb_timing_names[s->timing]));
  json_object_set_new(o, "iters", s->iters ? json_integer(s->iters) : cb_json_text("auto"));
  json_object_set_new(o, "precision", json_real(s->precision));
  json_object_set_new(o, "max_time_s", json_real(s->max_time));
  json_object_set_new(o, "warmup", s->warmup < 0 ? cb_json_text("auto") : json_integer(s->warmup));
  json_object_set_new(o, "check", json_integer(s->check));
  json_object_set_new(o, "window", json_integer(s->window));
  json_object_set_new(o, "window_bytes", json_integer((json_int_t)s->window_bytes));
  json_object_set_new(o, "timeout_s", json_real(s->timeout));
  json_object_set_new(o, "graph", json_integer(s->graph));
  json_object_set_new(o, "variant", cb_json_text(cb_variant_names[s->variant]));
  json_t *gpus = json_array();
  for (int i = 0; i < s->ngpu_list; i++)
    json_array_append_new(gpus, json_integer(s->gpu_list[i]));
  json_object_set_new(o, "gpu_list", gpus);
  json_object_set_new(o, "share_gpu", json_boolean(s->share_gpu));
  if (cb_standin()) /* tests/fixtures/standin: nothing here is a figure of hardware */
    json_object_set_new(o, "standin", cb_json_text(cb_standin()));
  if (s->share_gpu)
    json_object_set_new(o, "share_gpu_note",
                        cb_json_text("all ranks share one GPU, each its own NCCL_HOSTID: the "
                                     "figures are of NCCL's network transport, not of the GPU's "
                                     "links"));
  return o;
}

static json_t *names(const int *idx, int n, const char *(*name)(int)) {
  json_t *a = json_array();
  for (int i = 0; i < n; i++)
    json_array_append_new(a, cb_json_text(name(idx[i])));
  return a;
}
static const char *op_name(int i) {
  return cb_ops[i]->name;
}
static const char *backend_name(int i) {
  return cb_backends[i]->name;
}
static const char *mem_name(int i) {
  return cb_mem_names[i];
}
static const char *dtype_name(int i) {
  return cb_dtypes[i].name;
}

json_t *cb_burnin_config_json(const struct cb_settings *s) {
  json_t *o = json_object(), *tr = json_array();
  for (int i = 0; i < s->ntransports; i++)
    json_array_append_new(tr, cb_json_text(s->transports[i] ? s->transports[i] : "auto"));
  json_object_set_new(o, "duration_s", json_real(s->duration));
  json_object_set_new(o, "ops", names(s->ops, s->nops, op_name));
  json_object_set_new(o, "backends", names(s->backends, s->nbackends, backend_name));
  json_object_set_new(o, "mems", names(s->mems, s->nmems, mem_name));
  json_object_set_new(o, "transports", tr);
  json_object_set_new(o, "dtypes", names(s->dtypes, s->ndtypes, dtype_name));
  json_object_set_new(o, "redops", names(s->redops, s->nredops, cb_redop_name));
  json_object_set_new(o, "min_bytes", json_integer((json_int_t)s->min_bytes));
  json_object_set_new(o, "max_bytes", json_integer((json_int_t)s->max_bytes));
  json_object_set_new(o, "step_factor", json_integer(s->step_factor));
  json_object_set_new(o, "step_bytes", json_integer((json_int_t)s->step_bytes));
  json_object_set_new(o, "root", json_integer(s->root));
  json_object_set_new(o, "stat", cb_json_text(cb_stat_names[s->stat]));
  json_t *timing = settings_json(s); /* mode, iters, precision... */
  json_object_update(o, timing);
  json_decref(timing);
  return o;
}

static int jsonl_run(void *state, const struct cb_run_info *ri, struct cb_error *err) {
  const struct cb_cluster *cl = ri->cluster;
  json_t *o = json_object();
  json_object_set_new(o, "type", cb_json_text("run"));
  json_object_set_new(o, "collbench_version", cb_json_text(ri->version));
  json_object_set_new(o, "git_commit", cb_json_text(ri->git_commit));
  json_object_set_new(o, "start_time", cb_json_text(ri->start_time));
  json_object_set_new(o, "command_line", cb_json_text(ri->command_line));
  json_t *hosts = json_array(), *rpn = json_array();
  for (int n = 0; n < cl->nnodes; n++) {
    json_array_append_new(hosts, cb_json_text(cl->node_names[n]));
    json_array_append_new(rpn, json_integer(cl->ranks_on_node[n]));
  }
  json_object_set_new(o, "hostnames", hosts);
  json_object_set_new(o, "nranks", json_integer(cl->nranks));
  json_object_set_new(o, "nnodes", json_integer(cl->nnodes));
  json_object_set_new(o, "ranks_per_node", rpn);
  json_object_set_new(o, "mpi_library", cb_json_text(ri->mpi_library));
  json_object_set_new(o, "cpu_model", cb_json_text(ri->cpu_model));
  json_t *backends = json_object();
  for (int i = 0; i < ri->nbackends; i++) {
    json_t *b = json_object();
    json_object_set_new(b, "version", cb_json_text(ri->backends[i].version));
    json_object_set_new(b, "usable", json_boolean(ri->backends[i].usable));
    json_object_set_new(backends, ri->backends[i].name, b);
  }
  json_object_set_new(o, "backends", backends);
  json_t *env = json_object();
  for (int i = 0; i < ri->nenv; i++) {
    const char *eq = strchr(ri->env[i], '=');
    if (!eq)
      continue;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(eq - ri->env[i]), ri->env[i]);
    char *key = cb_text_utf8_dup(name); /* a key must be UTF-8 too */
    if (key)
      json_object_set_new(env, key, cb_json_text(eq + 1));
    free(key);
  }
  json_object_set_new(o, "env", env);
  json_object_set_new(o, "timer_overhead_ns", json_real(ri->timer_overhead_ns));
  json_object_set_new(o, "settings", settings_json(ri->settings));
  if (ri->settings->duration > 0) /* what --resume must find the same */
    json_object_set_new(o, "burnin", cb_burnin_config_json(ri->settings));
  if (ri->probe)
    json_object_set_new(o, "probe", cb_probe_json(ri->probe));
  return put_line(state, o, err);
}

static int put_record(struct cb_lines *f, const struct cb_record *r, struct cb_error *err) {
  json_t *o = json_object();
  json_object_set_new(o, "type", cb_json_text("result"));
  for (int i = 0; i < cb_ncolumns; i++)
    json_object_set_new(o, cb_columns[i].name, column_value(r, &cb_columns[i]));
  if (r->time_us_gpu > 0) /* GPU backends: the CUDA-event time beside the host clock's */
    json_object_set_new(o, "time_us_gpu", json_real(r->time_us_gpu));
  if (r->nccl_channels > 0)
    json_object_set_new(o, "nccl_channels", json_integer(r->nccl_channels));
  if (r->nccl_nics > 0)
    json_object_set_new(o, "nccl_nics", json_integer(r->nccl_nics));
  if (r->nccl_gdr)
    json_object_set_new(o, "nccl_gdr", json_boolean(r->nccl_gdr > 0));
  if (r->nccl_algo[0]) /* what NCCL chose, where its log says */
    json_object_set_new(o, "nccl_algo", cb_json_text(r->nccl_algo));
  if (r->nccl_proto[0])
    json_object_set_new(o, "nccl_proto", cb_json_text(r->nccl_proto));
  if (r->rotate) /* --rotate: timed cold, on a new slice each call */
    json_object_set_new(o, "rotate", json_true());
  if (r->reg[0]) /* --register: NCCL's buffers registered, as nccl-tests -R */
    json_object_set_new(o, "register", cb_json_text(r->reg));
  if (r->skew[0]) /* alltoallv's per-pair counts */
    json_object_set_new(o, "skew", cb_json_text(r->skew));
  if (r->concurrent[0]) { /* --concurrent: beside its time alone, and the paired slowdown */
    json_object_set_new(o, "comm", cb_json_text(r->comm));
    json_object_set_new(o, "parallel", cb_json_text(r->parallel));
    json_object_set_new(o, "concurrent", cb_json_text(r->concurrent));
    const char *names[] = {"time_us_alone", "busbw_GBps_alone", "slowdown", "slowdown_lo",
                           "slowdown_hi"};
    const double values[] = {r->time_us_alone, r->busbw_GBps_alone, r->slowdown, r->slowdown_lo,
                             r->slowdown_hi};
    for (int i = 0; i < 5; i++)
      json_object_set_new(o, names[i], isfinite(values[i]) ? json_real(values[i]) : json_null());
  }
  if (r->nccl_ran[0]) { /* what NCCL ran, per the profiler plugin */
    json_object_set_new(o, "nccl_ran", cb_json_text(r->nccl_ran));
    json_object_set_new(o, "nccl_ran_other", json_boolean(r->nccl_ran_other));
    if (r->nccl_profiler) /* the profiler interface NCCL took */
      json_object_set_new(o, "nccl_profiler", json_integer(r->nccl_profiler));
  }
  if (r->interval > 0) { /* --duration: the burn-in's pass and when it began */
    char when[32];
    json_object_set_new(o, "interval", json_integer(r->interval));
    json_object_set_new(o, "interval_start",
                        json_string(cb_utc_text(r->interval_start, when, sizeof when)));
  }
  if (r->algo[0]) { /* where the library says, or its rules do */
    json_object_set_new(o, "algo", cb_json_text(r->algo));
    json_object_set_new(o, "algo_by", cb_json_text(r->algo_by));
  }
  return put_line(f, o, err);
}

static int jsonl_row(void *state, const struct cb_row *row, struct cb_error *err) {
  if (row->outofplace && put_record(state, row->outofplace, err))
    return err->status;
  if (row->inplace && put_record(state, row->inplace, err))
    return err->status;
  return CB_OK;
}

static json_t *real_or_null(double v) {
  return isnan(v) ? json_null() : json_real(v);
}

static int jsonl_verdict(void *state, const struct cb_verdict *v, struct cb_error *err) {
  json_t *o = json_object();
  json_object_set_new(o, "type", cb_json_text("verdict"));
  json_object_set_new(o, "check", cb_json_text(v->name));
  json_object_set_new(o, "status", cb_json_text(cb_verdict_names[v->status]));
  json_object_set_new(o, "measured", real_or_null(v->measured));
  json_object_set_new(o, "warn", real_or_null(v->warn));
  json_object_set_new(o, "fail", real_or_null(v->fail));
  json_object_set_new(o, "unit", cb_json_text(v->unit));
  json_object_set_new(o, "margin", real_or_null(v->margin));
  if (v->interval) { /* the measured figure's 95% interval, as judged */
    json_object_set_new(o, "lo", real_or_null(v->lo));
    json_object_set_new(o, "hi", real_or_null(v->hi));
  }
  json_object_set_new(o, "what", cb_json_text(v->what));
  if (v->line)
    json_object_set_new(o, "line", json_integer(v->line));
  if (v->partial)
    json_object_set_new(o, "partial", json_true());
  if (v->expected) { /* a model level: the figure and where it came from */
    const struct cb_expected *e = v->expected;
    json_t *x = json_pack("{s:o, s:s, s:s, s:s, s:s, s:i, s:i}", "value", real_or_null(e->value),
                          "unit", v->unit, "pick", e->pick, "source", e->source, "band", e->band,
                          "ranks", e->ranks, "nodes", e->nodes);
    json_object_set_new(x, "lo", real_or_null(e->lo));
    json_object_set_new(x, "hi", real_or_null(e->hi));
    json_object_set_new(x, "false_alarm_fail", real_or_null(e->alarm_fail));
    json_object_set_new(x, "false_alarm_warn", real_or_null(e->alarm_warn));
    if (e->beyond[0])
      json_object_set_new(x, "extrapolated", cb_json_text(e->beyond));
    if (e->newer[0])
      json_object_set_new(x, "newer_nccl", cb_json_text(e->newer));
    json_object_set_new(o, "expected", x);
  }
  if (v->cost) { /* issue 58: the step at scale with the expected and the measured figure */
    const struct cb_cost *c = v->cost;
    json_t *x = json_pack("{s:i, s:s, s:o}", "gpus", c->gpus, "workload", c->workload, "factor",
                          real_or_null(c->factor));
    if (c->why[0])
      json_object_set_new(x, "not_priced", cb_json_text(c->why));
    else {
      json_object_set_new(x, "step_s_expected", real_or_null(c->step_s[0]));
      json_object_set_new(x, "step_s_measured", real_or_null(c->step_s[1]));
      json_object_set_new(x, "step_growth", real_or_null(cb_cost_step_growth(c)));
      json_object_set_new(x, "overhead_expected", real_or_null(c->overhead[0]));
      json_object_set_new(x, "overhead_measured", real_or_null(c->overhead[1]));
    }
    json_object_set_new(o, "cost", x);
  }
  if (v->causes) { /* issue 41: [] when sought and none found */
    json_t *a = json_array();
    for (int i = 0; i < v->causes->n; i++) {
      const struct cb_cause *c = &v->causes->c[i];
      json_array_append_new(a, json_pack("{s:o, s:o, s:s, s:o, s:s}", "host", cb_json_text(c->host),
                                         "device", cb_json_text(c->device), "rule", c->rule, "text",
                                         cb_json_text(c->text), "source", c->source));
    }
    json_object_set_new(o, "causes", a);
  }
  return put_line(state, o, err);
}

static int jsonl_pair(void *state, const struct cb_pair *p, struct cb_error *err) {
  json_t *o = json_object();
  json_object_set_new(o, "type", cb_json_text("pair"));
  json_object_set_new(o, "src", json_integer(p->src));
  json_object_set_new(o, "dst", json_integer(p->dst));
  json_object_set_new(o, "src_host", cb_json_text(p->src_host));
  json_object_set_new(o, "dst_host", cb_json_text(p->dst_host));
  json_object_set_new(o, "bytes", json_integer((json_int_t)p->bytes));
  json_object_set_new(o, "bw_GBps", real_or_null(p->bw_GBps));
  json_object_set_new(o, "lat_us", real_or_null(p->lat_us));
  json_object_set_new(o, "round", json_integer(p->round));
  if (p->matrix)
    json_object_set_new(o, "matrix", cb_json_text(p->matrix));
  if (p->link)
    json_object_set_new(o, "link", cb_json_text(p->link));
  if (!p->matrix && p->src_gpu >= 0)
    json_object_set_new(o, "src_gpu", json_integer(p->src_gpu));
  if (!p->matrix && p->dst_gpu >= 0)
    json_object_set_new(o, "dst_gpu", json_integer(p->dst_gpu));
  return put_line(state, o, err);
}

static int jsonl_start(void *state, struct cb_error *err) {
  return cb_lines_start(state, err);
}

static int jsonl_close(void *state, struct cb_error *err) {
  int rc = cb_lines_close(state, err);
  free(state);
  return rc;
}

int cb_sink_jsonl(const char *path, struct cb_sink *sink, struct cb_error *err) {
  struct cb_lines *l = malloc(sizeof *l);
  if (!l)
    return cb_fail(err, CB_RUNTIME, "out of memory");
  if (cb_lines_open(l, path, "--json", err)) {
    free(l);
    return err->status;
  }
  memset(sink, 0, sizeof *sink);
  sink->state = l;
  sink->start = jsonl_start;
  sink->run = jsonl_run;
  sink->row = jsonl_row;
  sink->verdict = jsonl_verdict;
  sink->pair = jsonl_pair;
  sink->close = jsonl_close;
  return CB_OK;
}

/* --resume: the file goes on; its run record stands for both parts */
static int jsonl_start_append(void *state, struct cb_error *err) {
  return cb_lines_append(state, err);
}

int cb_sink_jsonl_append(const char *path, struct cb_sink *sink, struct cb_error *err) {
  if (cb_sink_jsonl(path, sink, err))
    return err->status;
  sink->start = jsonl_start_append;
  sink->run = NULL;
  return CB_OK;
}

#else

int cb_sink_jsonl_append(const char *path, struct cb_sink *sink, struct cb_error *err) {
  return cb_sink_jsonl(path, sink, err);
}

struct json_t *cb_burnin_config_json(const struct cb_settings *s) {
  (void)s;
  return NULL;
}

int cb_sink_jsonl(const char *path, struct cb_sink *sink, struct cb_error *err) {
  (void)sink;
  return cb_fail(err, CB_USAGE,
                 "--json %s: this collbench was configured without a JSON library "
                 "(install libjansson-dev and run ./configure again)",
                 path);
}

#endif
