/* Reading collbench's JSON Lines for --report. A bad line is named and
 * skipped, never fatal: a report from a killed run is still useful. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../output/columns.h"
#include "base/readbound.h"
#include "base/text.h"
#include "base/units.h"
#include "config.h"
#include "readback.h"
#include "results/overhead.h"

#if CB_HAVE_JANSSON
#include <jansson.h>

/* A string field, shown escaped from here on: --compare and the model
 * print them on the terminal (text.h). */
static char *dup_str(json_t *o, const char *key) {
  const char *s = json_string_value(json_object_get(o, key));
  s = s ? s : "";
  size_t n = 4 * strlen(s) + 1;
  char *out = malloc(n);
  if (out)
    cb_text_terminal(out, n, s, 0);
  return out;
}

/* Op names become file names: only a short [A-Za-z0-9_-] word is taken. */
static int safe_op_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 32)
    return 0;
  for (; *s; s++)
    if (!(*s == '_' || *s == '-' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9')))
      return 0;
  return 1;
}

static void read_run(json_t *o, struct cb_rep_run *r) {
  free(r->start_time), free(r->command_line), free(r->hostnames);
  free(r->mpi_library), free(r->version), free(r->git_commit);
  r->start_time = dup_str(o, "start_time");
  r->command_line = dup_str(o, "command_line");
  r->mpi_library = dup_str(o, "mpi_library");
  r->version = dup_str(o, "collbench_version");
  r->git_commit = dup_str(o, "git_commit");
  r->nranks = (long)json_integer_value(json_object_get(o, "nranks"));
  r->nnodes = (long)json_integer_value(json_object_get(o, "nnodes"));
  r->share_gpu = json_is_true(json_object_get(json_object_get(o, "settings"), "share_gpu"));
  size_t len = 1, i;
  json_t *h, *hosts = json_object_get(o, "hostnames");
  json_array_foreach(hosts, i, h) len +=
      strlen(json_string_value(h) ? json_string_value(h) : "") + 2;
  char *joined = calloc(1, len);
  json_array_foreach(joined ? hosts : NULL, i, h) {
    if (i)
      strcat(joined, ", ");
    strcat(joined, json_string_value(h) ? json_string_value(h) : "");
  }
  r->hostnames = malloc(4 * len); /* shown escaped, as every string read */
  if (r->hostnames)
    cb_text_terminal(r->hostnames, 4 * len, joined ? joined : "", 0);
  free(joined);
}

static struct cb_rep_series *find_series(struct cb_rep_data *d, int file, json_t *o) {
  const char *k[6] = {"op", "backend", "mem", "transport", "dtype", "redop"};
  int inplace = json_is_true(json_object_get(o, "inplace"));
  for (int i = 0; i < d->nseries; i++) {
    struct cb_rep_series *s = &d->series[i];
    char *v[6] = {s->op, s->backend, s->mem, s->transport, s->dtype, s->redop};
    int same = s->file == file && s->inplace == inplace;
    for (int j = 0; same && j < 6; j++) {
      char shown[4 * 256 + 1]; /* the series holds its strings escaped */
      cb_text_terminal(shown, sizeof shown, json_string_value(json_object_get(o, k[j])), 0);
      same = strcmp(v[j], shown) == 0;
    }
    if (same)
      return s;
  }
  if (d->nseries == CB_REP_MAX_SERIES)
    return NULL;
  /* each op is a page of charts: a bound on them bounds the report's time */
  const char *op = json_string_value(json_object_get(o, "op"));
  int known = 0;
  for (int i = 0; i < d->nseries && !known; i++)
    known = strcmp(d->series[i].op, op) == 0;
  if (!known && d->nops == CB_REP_MAX_OPS)
    return NULL;
  d->nops += !known;
  if (d->nseries == d->cap) {
    d->cap = d->cap ? 2 * d->cap : 16;
    d->series = realloc(d->series, d->cap * sizeof *d->series);
  }
  struct cb_rep_series *s = &d->series[d->nseries++];
  *s = (struct cb_rep_series){.file = file, .inplace = inplace};
  s->op = dup_str(o, "op"), s->backend = dup_str(o, "backend"), s->mem = dup_str(o, "mem");
  s->transport = dup_str(o, "transport"), s->dtype = dup_str(o, "dtype");
  s->redop = dup_str(o, "redop");
  return s;
}

/* NULL when the result line is usable (and read into *rec), else why not.
 * The record's strings point into o until find_series gives them owners. */
static const char *check_result(json_t *o, struct cb_record *rec) {
  static char why[96];
  const char *bad = cb_record_from_json(o, rec);
  if (bad) {
    snprintf(why, sizeof why, "result line without a valid '%s'", bad);
    return why;
  }
  /* each figure in its range before anything is drawn from it: a size of
   * 2^61 or more overflowed the axis code, a zero time divided by zero */
  if (rec->bytes == 0 || rec->bytes > CB_REP_MAX_BYTES)
    return "'bytes' is not a size from 1 byte to 1 PiB";
  if (!(rec->time_us > 0 && rec->time_us < 1e12))
    return "'time_us' is not a positive time";
  if (!(rec->algbw_GBps >= 0 && rec->algbw_GBps < 1e9) ||
      !(rec->busbw_GBps >= 0 && rec->busbw_GBps < 1e9))
    return "'algbw_GBps' or 'busbw_GBps' is not a bandwidth of 0 or more";
  if (rec->nranks < 1 || rec->nranks > CB_REP_MAX_RANKS || rec->nnodes < 1 ||
      rec->nnodes > rec->nranks)
    return "'nranks' or 'nnodes' is not a count from 1 (nodes at most ranks)";
  if (!safe_op_name(rec->op))
    return "op name is not a short word of letters, digits, '_' and '-'";
  cb_text_terminal_inplace(rec->transport, sizeof rec->transport);
  return NULL;
}

/* A number, or NAN for null; -1 when the key is missing or neither. */
static int number_or_null(json_t *o, const char *key, double *v) {
  json_t *x = json_object_get(o, key);
  if (json_is_null(x))
    *v = NAN;
  else if (json_is_number(x) && json_number_value(x) >= 0)
    *v = json_number_value(x);
  else
    return -1;
  return 0;
}

/* A rank, or -1 (the host) in a copy matrix. */
static int rank_in_range(json_t *x, int host_ok) {
  return json_is_integer(x) && json_integer_value(x) >= (host_ok ? -1 : 0) &&
         json_integer_value(x) < CB_REP_MAX_MATRIX_RANKS;
}

/* NULL when the pair line is usable (and read into *p), else why not. */
static const char *check_pair(json_t *o, struct cb_rep_pair *p) {
  json_t *src = json_object_get(o, "src"), *dst = json_object_get(o, "dst");
  json_t *bytes = json_object_get(o, "bytes"), *round = json_object_get(o, "round");
  json_t *matrix = json_object_get(o, "matrix");
  /* the name becomes part of file names */
  if (matrix && !(json_is_string(matrix) && safe_op_name(json_string_value(matrix))))
    return "pair line whose 'matrix' is not a short word of letters, digits, '_' and '-'";
  int copy = matrix != NULL;
  /* a copy matrix has a diagonal (a copy within one GPU); an MPI matrix does not */
  if (!rank_in_range(src, copy) || !rank_in_range(dst, copy) || (!copy && json_equal(src, dst)) ||
      (json_integer_value(src) < 0 && json_integer_value(dst) < 0))
    return copy ? "pair line without devices 'src' and 'dst' (-1 for the host, 0 "
                  "to 4095; not both the host)"
                : "pair line without two different ranks 'src' and 'dst' (0 to 4095)";
  if (!json_is_integer(bytes) || json_integer_value(bytes) <= 0 ||
      (uint64_t)json_integer_value(bytes) > CB_REP_MAX_BYTES)
    return "pair line without a 'bytes' from 1 byte to 1 PiB";
  if (!json_is_integer(round) || json_integer_value(round) < 0)
    return "pair line without a 'round' (0 or more)";
  if (!json_is_string(json_object_get(o, "src_host")) ||
      !json_is_string(json_object_get(o, "dst_host")))
    return "pair line without 'src_host' and 'dst_host' strings";
  if (number_or_null(o, "bw_GBps", &p->bw_GBps) || number_or_null(o, "lat_us", &p->lat_us) ||
      (isnan(p->bw_GBps) && isnan(p->lat_us)))
    return "pair line without a 'bw_GBps' or 'lat_us' (a number, or null for the other)";
  p->src = (long)json_integer_value(src), p->dst = (long)json_integer_value(dst);
  p->bytes = (uint64_t)json_integer_value(bytes);
  p->round = (long)json_integer_value(round);
  return NULL;
}

static void add_pair(json_t *o, const struct cb_rep_pair *p, int file, struct cb_rep_data *d) {
  if (d->npairs == d->pairs_cap) {
    d->pairs_cap = d->pairs_cap ? 2 * d->pairs_cap : 64;
    d->pairs = realloc(d->pairs, d->pairs_cap * sizeof *d->pairs);
  }
  struct cb_rep_pair *q = &d->pairs[d->npairs++];
  *q = *p;
  q->file = file;
  q->src_host = dup_str(o, "src_host"), q->dst_host = dup_str(o, "dst_host");
  q->matrix = dup_str(o, "matrix"), q->link = dup_str(o, "link");
}

static void add_retest(const struct cb_rep_pair *p, int file, struct cb_rep_data *d) {
  if (d->nretests == d->retests_cap) {
    d->retests_cap = d->retests_cap ? 2 * d->retests_cap : 16;
    d->retests = realloc(d->retests, d->retests_cap * sizeof *d->retests);
  }
  d->retests[d->nretests++] =
      (struct cb_rep_retest){file, p->src, p->dst, p->bytes, p->bw_GBps, p->lat_us};
}

/* ---- --tune --trials files: "tune", "trial" and "summary" lines ---- */

static struct cb_rep_tune *tune_of(struct cb_rep_data *d, int file) {
  if (!d->tunes)
    d->tunes = calloc(d->nruns, sizeof *d->tunes);
  d->tunes[file].present = 1;
  return &d->tunes[file];
}

static const char *read_setup(json_t *o, struct cb_rep_tune *t) {
  json_t *setup = json_object_get(o, "setup"), *b;
  json_int_t nranks;
  if (json_unpack(setup, "{s:I}", "nranks", &nranks) || nranks < 1)
    return "tune line without a 'setup' naming 'nranks'";
  t->nranks = (long)nranks;
  const char *library = json_string_value(json_object_get(setup, "library"));
  t->nccl = library && !strcmp(library, "nccl");
  size_t i;
  t->nbuckets = 0;
  json_array_foreach(json_object_get(setup, "buckets"), i, b) {
    if (json_is_integer(b) && json_integer_value(b) > 0 && t->nbuckets < 32)
      t->buckets[t->nbuckets++] = (uint64_t)json_integer_value(b);
  }
  return NULL;
}

static const char *read_trial(json_t *o, struct cb_rep_tune *t) {
  json_int_t alg, seg, bucket, proto = 0;
  double step, ci;
  if (json_unpack(o, "{s:I, s:I, s:I, s:F, s:F, s?:I}", "algorithm", &alg, "segsize", &seg,
                  "bucket_bytes", &bucket, "t_step_us", &step, "ci95_us", &ci, "protocol",
                  &proto) ||
      alg < -1 || alg > 99 || seg < 0 || bucket <= 0 || !(step > 0) || !(ci >= 0) || proto < 0 ||
      proto > 9)
    return "trial line without 'algorithm', 'segsize', 'bucket_bytes', 't_step_us' and "
           "'ci95_us' in range";
  if (t->ntrials == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 32;
    t->trials = realloc(t->trials, t->cap * sizeof *t->trials);
  }
  t->trials[t->ntrials++] =
      (struct cb_rep_trial){(int)alg, (long)seg, (int)proto, (uint64_t)bucket, step, ci};
  return NULL;
}

static int read_cfg(json_t *o, struct cb_rep_tune_cfg *c) {
  json_int_t alg, seg, bucket, proto = 0;
  c->t_compute_ci95_us = 0;
  if (json_unpack(o, "{s:I, s:I, s:I, s:F, s:F, s:F, s:F, s:F, s:F, s?:I, s?:F}", "algorithm", &alg,
                  "segsize", &seg, "bucket_bytes", &bucket, "t_compute_us", &c->t_compute_us,
                  "t_comm_us", &c->t_comm_us, "t_step_us", &c->t_step_us, "t_step_ci95_us",
                  &c->t_step_ci95_us, "rho", &c->rho, "rho_ci95", &c->rho_ci95, "protocol", &proto,
                  "t_compute_ci95_us", &c->t_compute_ci95_us) ||
      bucket <= 0 || !(c->t_compute_us > 0) || !(c->t_step_us > 0) || proto < 0 || proto > 9)
    return -1;
  c->algorithm = (int)alg, c->segsize = (long)seg, c->bucket_bytes = (uint64_t)bucket;
  c->protocol = (int)proto;
  json_t *e = json_object_get(o, "overlap_efficiency");
  c->overlap_efficiency = json_is_number(e) ? json_number_value(e) : NAN;
  return 0;
}

static const char *read_summary(json_t *o, struct cb_rep_tune *t) {
  if (read_cfg(json_object_get(o, "default"), &t->def) ||
      read_cfg(json_object_get(o, "tuned"), &t->tuned))
    return "summary line without whole 'default' and 'tuned' objects";
  json_t *g = json_object_get(o, "grad_bytes");
  if (g && !(json_is_integer(g) && json_integer_value(g) > 0 &&
             (uint64_t)json_integer_value(g) <= CB_REP_MAX_BYTES))
    return "summary line whose 'grad_bytes' is not a size from 1 byte to 1 PiB";
  t->grad_bytes = g ? (uint64_t)json_integer_value(g) : 0;
  json_t *mo = json_object_get(o, "max_overhead");
  double target = json_is_number(mo) ? json_number_value(mo) : 0;
  t->max_overhead = target > 0 && target < 1 ? target : CB_OVERHEAD_DEFAULT_TARGET;
  t->has_summary = 1;
  return NULL;
}

/* [median, lo, hi] of numbers, lo <= median <= hi. */
static int triple(json_t *a, double *v) {
  if (!json_is_array(a) || json_array_size(a) != 3)
    return -1;
  for (int i = 0; i < 3; i++) {
    json_t *x = json_array_get(a, i);
    if (!json_is_number(x))
      return -1;
    v[i] = json_number_value(x);
  }
  return v[1] <= v[0] && v[0] <= v[2] ? 0 : -1;
}

/* A text field of at most len - 1 bytes after escaping, else "". */
static void put_text(json_t *o, const char *key, char *out, size_t len) {
  char *s = dup_str(o, key);
  snprintf(out, len, "%s", s && strlen(s) < len ? s : "");
  free(s);
}

static const char *read_layout_res(json_t *o, struct cb_rep_layout_res *r) {
  if (triple(json_object_get(o, "t_step_ms"), r->t_step_ms) ||
      triple(json_object_get(o, "overhead"), r->overhead))
    return "layout line whose t_step_ms or overhead is not [median, lo, hi]";
  put_text(o, "verdict", r->verdict, sizeof r->verdict);
  json_t *ex = json_object_get(o, "exposed");
  if (!json_is_object(ex) || json_object_size(ex) > CB_REP_LAYOUT_DIMS)
    return "layout line whose 'exposed' is not an object of at most 4 dimensions";
  const char *key;
  json_t *v;
  r->ndims = 0;
  json_object_foreach(ex, key, v) {
    if (strlen(key) >= sizeof r->dim[0] || strspn(key, "abcdefghijklmnopqrstuvwxyz") != strlen(key))
      return "layout line with a dimension that is not a short lower-case word";
    if (triple(json_object_get(v, "share"), r->share[r->ndims]))
      return "layout line whose share is not [median, lo, hi]";
    snprintf(r->dim[r->ndims++], sizeof r->dim[0], "%s", key);
  }
  return NULL;
}

static const char *read_layout(json_t *o, int file, struct cb_rep_data *d) {
  if (d->nlayouts == CB_REP_MAX_LAYOUTS)
    return "more than "
           "64"
           " layout lines: the rest are left out";
  struct cb_rep_layout l = {.file = file};
  char par[64], shard[16], work[64];
  put_text(o, "parallel", par, sizeof par);
  put_text(o, "shard", shard, sizeof shard);
  put_text(o, "workload", work, sizeof work);
  snprintf(l.label, sizeof l.label, "%s %s, %s", par, shard, work);
  const char *why = read_layout_res(o, &l.def);
  json_t *t = json_object_get(o, "tuned");
  if (!why && t) {
    if (!json_is_object(t))
      return "layout line whose 'tuned' is not an object";
    why = read_layout_res(t, &l.tuned);
    json_t *a = json_object_get(t, "algorithms"), *v;
    const char *key;
    size_t u = 0;
    /* the search's dp knob, where it moved from the launch's */
    json_int_t bucket = json_integer_value(json_object_get(t, "bucket_bytes")),
               depth = json_integer_value(json_object_get(t, "prefetch"));
    if (!strcmp(shard, "full") && depth != json_integer_value(json_object_get(o, "prefetch")))
      u +=
          (size_t)snprintf(l.algorithms, sizeof l.algorithms, "dp prefetch %lld", (long long)depth);
    else if (strcmp(shard, "full") &&
             bucket != json_integer_value(json_object_get(o, "bucket_bytes"))) {
      char size[32];
      u += (size_t)snprintf(l.algorithms, sizeof l.algorithms, "dp bucket %s",
                            cb_format_size((uint64_t)bucket, size, sizeof size));
    }
    json_object_foreach(a, key, v) {
      char k[64], val[64];
      cb_text_terminal(k, sizeof k, key, 0);
      cb_text_terminal(val, sizeof val, json_is_string(v) ? json_string_value(v) : "?", 0);
      if (u < sizeof l.algorithms)
        u += (size_t)snprintf(l.algorithms + u, sizeof l.algorithms - u, "%s%s=%s", u ? ", " : "",
                              k, val);
    }
    l.has_tuned = 1;
  }
  if (why)
    return why;
  struct cb_rep_layout *grown = realloc(d->layouts, (size_t)(d->nlayouts + 1) * sizeof *grown);
  if (!grown)
    return "out of memory for a layout line";
  d->layouts = grown;
  d->layouts[d->nlayouts++] = l;
  return NULL;
}

/* A verdict's causes as one line ("" without any), each field escaped for
 * a terminal as every string read here is; at most 8 causes read. */
static char *causes_text(json_t *a) {
  size_t n = 1, at = 0;
  char *out;
  size_t count = json_is_array(a) ? json_array_size(a) : 0;
  count = count < 8 ? count : 8;
  for (size_t i = 0; i < count; i++) {
    json_t *c = json_array_get(a, i);
    const char *f[] = {"host", "device", "text", "rule"};
    for (int k = 0; k < 4; k++) {
      const char *v = json_string_value(json_object_get(c, f[k]));
      n += 4 * strlen(v ? v : "") + 8;
    }
  }
  if (json_is_array(a) && count == 0)
    return strdup("none found in the evidence gathered");
  if (!(out = malloc(n)))
    return NULL;
  out[0] = '\0';
  for (size_t i = 0; i < count; i++) {
    json_t *c = json_array_get(a, i);
    char *host = dup_str(c, "host"), *dev = dup_str(c, "device"), *text = dup_str(c, "text"),
         *rule = dup_str(c, "rule");
    if (host && dev && text && rule)
      at += (size_t)snprintf(out + at, n - at, "%s%s %s: %s [%s]", i ? "; " : "", host, dev, text,
                             rule);
    free(host), free(dev), free(text), free(rule);
  }
  return out;
}

/* A model level's figure as one line ("" without one), escaped as every
 * string read here is. */
static char *expected_text(json_t *e, const char *unit) {
  json_t *value = json_object_get(e, "value");
  char *pick = json_is_object(e) ? dup_str(e, "pick") : NULL, buf[160] = "";
  if (json_is_number(value) && pick)
    snprintf(buf, sizeof buf, "%.4g %.16s (pick %.32s)", json_number_value(value), unit ? unit : "",
             pick);
  free(pick);
  return strdup(buf);
}

/* A defect's price as one line ("" without one), as cb_cost_text says it. */
static char *cost_text(json_t *c) {
  if (!json_is_object(c))
    return strdup("");
  /* a missing key reads as "": "not priced" only when the line says why */
  char *why = json_is_string(json_object_get(c, "not_priced")) ? dup_str(c, "not_priced") : NULL;
  char *workload = dup_str(c, "workload"), buf[400] = "";
  json_t *gpus = json_object_get(c, "gpus"), *g = json_object_get(c, "step_growth"),
         *o0 = json_object_get(c, "overhead_expected"),
         *o1 = json_object_get(c, "overhead_measured");
  if (why)
    snprintf(buf, sizeof buf, "not priced: %.300s", why);
  else if (workload && json_is_integer(gpus) && json_is_number(g) && json_is_number(o0) &&
           json_is_number(o1))
    snprintf(buf, sizeof buf, "at %lld GPUs %.32s step %+.1f%% (overhead %.1f%% -> %.1f%%)",
             (long long)json_integer_value(gpus), workload, 100 * json_number_value(g),
             100 * json_number_value(o0), 100 * json_number_value(o1));
  free(why), free(workload);
  return strdup(buf);
}

static const char *add_verdict(json_t *o, int file, struct cb_rep_data *d) {
  if (!json_is_string(json_object_get(o, "check")) || !json_is_string(json_object_get(o, "status")))
    return "verdict line without 'check' and 'status' strings";
  if (d->nverdicts == d->verdicts_cap) {
    d->verdicts_cap = d->verdicts_cap ? 2 * d->verdicts_cap : 16;
    d->verdicts = realloc(d->verdicts, d->verdicts_cap * sizeof *d->verdicts);
  }
  struct cb_rep_verdict *v = &d->verdicts[d->nverdicts++];
  v->file = file;
  v->check = dup_str(o, "check"), v->status = dup_str(o, "status");
  v->unit = dup_str(o, "unit"), v->what = dup_str(o, "what");
  v->causes = causes_text(json_object_get(o, "causes"));
  json_t *m = json_object_get(o, "measured");
  v->measured = json_is_number(m) ? json_number_value(m) : NAN;
  v->partial = json_is_true(json_object_get(o, "partial"));
  v->expected = expected_text(json_object_get(o, "expected"), v->unit);
  v->cost = cost_text(json_object_get(o, "cost"));
  return NULL;
}

/* A burn-in stopped and resumed has partial verdicts, then the whole ones
 * over every interval: those replace them. */
static void drop_partial(struct cb_rep_data *d, int file) {
  int whole = 0, k = 0;
  for (int i = 0; i < d->nverdicts; i++)
    whole |= d->verdicts[i].file == file && !d->verdicts[i].partial;
  for (int i = 0; i < d->nverdicts; i++) {
    struct cb_rep_verdict *v = &d->verdicts[i];
    if (whole && v->file == file && v->partial) {
      free(v->check), free(v->status), free(v->unit), free(v->what), free(v->causes);
      free(v->expected), free(v->cost);
      continue;
    }
    d->verdicts[k++] = *v;
  }
  d->nverdicts = k;
}

static int has_size(const struct cb_rep_series *s, uint64_t bytes) {
  for (int i = 0; i < s->npts; i++)
    if (s->pts[i].bytes == bytes)
      return 1;
  return 0;
}

/* A burn-in's record into its file's series over the intervals. */
static const char *add_burnin(struct cb_rep_data *d, int file, const struct cb_rep_series *s,
                              struct cb_record *rec) {
  if (!d->burnin && !(d->burnin = calloc(d->nruns, sizeof *d->burnin)))
    return "out of memory for the burn-in's series";
  struct cb_rep_burnin *b = &d->burnin[file];
  if (b->store.n == 0)
    b->t0 = rec->interval_start;
  b->last_interval = rec->interval > b->last_interval ? rec->interval : b->last_interval;
  /* the series owns the strings (the line's go with it) */
  rec->op = s->op, rec->backend = s->backend, rec->mem = s->mem, rec->dtype = s->dtype;
  rec->redop = s->redop, rec->mode = "";
  rec->stat = "", rec->source = "";
  return cb_burnin_add(&b->store, rec, rec->interval_start - b->t0) ? "out of memory" : NULL;
}

static void add_line(const char *path, long lineno, const char *line, size_t len, int file,
                     struct cb_rep_data *d) {
  json_error_t jerr;
  json_t *o = json_loadb(line, len, 0, &jerr);
  struct cb_record rec;
  struct cb_rep_pair pair;
  struct cb_rep_series *s = NULL;
  const char *why = NULL;
  const char *type = json_string_value(json_object_get(o, "type"));
  if (!o)
    why = jerr.text;
  else if (!json_is_object(o) || !type)
    why = "not a collbench record (no \"type\")";
  else if (strcmp(type, "run") == 0)
    read_run(o, &d->runs[file]);
  else if (strcmp(type, "result") == 0 && !(why = check_result(o, &rec)) &&
           !(s = find_series(d, file, o)))
    why =
        "more than " CB_REP_MAX_SERIES_TEXT " series or " CB_REP_MAX_OPS_TEXT " ops in the report";
  else if (strcmp(type, "result") == 0 && !why && rec.interval > 0 &&
           (why = add_burnin(d, file, s, &rec)) != NULL)
    ;
  else if (strcmp(type, "result") == 0 && !why && rec.interval > 0 && has_size(s, rec.bytes))
    ; /* a burn-in's later passes: its series over time only (add_burnin) */
  else if (strcmp(type, "result") == 0 && !why) {
    if (s->npts == s->cap) {
      s->cap = s->cap ? 2 * s->cap : 32;
      s->pts = realloc(s->pts, s->cap * sizeof *s->pts);
    }
    /* the series owns the strings the record names */
    rec.op = s->op, rec.backend = s->backend, rec.mem = s->mem, rec.dtype = s->dtype;
    rec.redop = s->redop, rec.mode = "";
    s->pts[s->npts++] = rec;
  } else if (strcmp(type, "pair") == 0 && !why) {
    /* round 0 of the MPI matrix is a retest alone; copies are all round 0 */
    if (!(why = check_pair(o, &pair)) && (pair.round > 0 || json_object_get(o, "matrix")))
      add_pair(o, &pair, file, d);
    else if (!why)
      add_retest(&pair, file, d);
  } else if (strcmp(type, "verdict") == 0 && !why)
    why = add_verdict(o, file, d);
  else if (strcmp(type, "tune") == 0)
    why = read_setup(o, tune_of(d, file));
  else if (strcmp(type, "trial") == 0)
    why = read_trial(o, tune_of(d, file));
  else if (strcmp(type, "summary") == 0)
    why = read_summary(o, tune_of(d, file));
  else if (strcmp(type, "layout") == 0)
    why = read_layout(o, file, d);
  else if (!why)
    why = "unknown record type";
  if (why)
    fprintf(stderr, "collbench: %s:%ld: %s (line skipped)\n", path, lineno, why);
  json_decref(o);
}

int cb_rep_read_opt(const char *opt, const char *path, int file, struct cb_rep_data *d,
                    struct cb_error *err) {
  FILE *f = fopen(path, "r");
  if (!f)
    return cb_fail(err, CB_USAGE, "%s: cannot read '%s': %s", opt, path, strerror(errno));
  struct cb_rep_run *r = &d->runs[file];
  r->path = path;
  char *line = NULL;
  size_t cap = 0;
  long lineno = 0, len;
  int rc = CB_OK;
  while ((len = cb_read_line(f, &line, &cap)) >= 0) {
    lineno++;
    /* collbench's own CSV given for its JSON Lines: said once, not per line */
    if (lineno == 1 && strncmp(line, "op,backend,", 11) == 0) {
      rc = cb_fail(err, CB_USAGE,
                   "%s: %s is collbench's CSV (--csv); %s reads the JSON Lines of --json: "
                   "run with --json FILE and give that file",
                   opt, path, opt);
      break;
    }
    if (line[strspn(line, " \t\r\n")] != '\0') /* blank lines are harmless */
      add_line(path, lineno, line, (size_t)len, file, d);
  }
  if (rc == CB_OK && len == CB_READ_NOMEM)
    rc = cb_fail(err, CB_RUNTIME, "out of memory reading %s", path);
  if (rc == CB_OK && len == CB_READ_LONG)
    rc = cb_fail(err, CB_USAGE, "%s: %s:%ld: a line longer than %d MiB: not collbench JSON Lines",
                 opt, path, lineno + 1, CB_REP_MAX_LINE >> 20);
  else if (rc == CB_OK && ferror(f)) /* a folder reads as an error here, not at fopen */
    rc = cb_fail(err, CB_USAGE, "%s: cannot read '%s': %s", opt, path, strerror(errno));
  free(line);
  fclose(f);
  drop_partial(d, file);
  return rc;
}

int cb_rep_read(const char *path, int file, struct cb_rep_data *d, struct cb_error *err) {
  return cb_rep_read_opt("--report", path, file, d, err);
}

#else

int cb_rep_read_opt(const char *opt, const char *path, int file, struct cb_rep_data *d,
                    struct cb_error *err) {
  (void)path, (void)file, (void)d;
  return cb_fail(err, CB_USAGE, "%s: this collbench was built without a JSON library (jansson)",
                 opt);
}

int cb_rep_read(const char *path, int file, struct cb_rep_data *d, struct cb_error *err) {
  return cb_rep_read_opt("--report", path, file, d, err);
}

#endif
