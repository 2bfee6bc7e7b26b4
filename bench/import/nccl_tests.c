/* nccl-tests' output (its table or its -J JSON) read into collbench's records (nccl_tests.h
 * says more). */
#include "nccl_tests.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/readbound.h"
#include "base/text.h"
#include "config.h"
#if CB_HAVE_JANSSON
#include <jansson.h>
#endif

#define MAX_TOKENS 64
/* The ranges a field must be in to be cast: sizes and counts fit the
 * record's integers exactly (doubles hold integers to 2^53), #wrong a long,
 * root a rank as --root takes it. */
#define MAX_BYTES 9007199254740992.0 /* 2^53 */
#define MAX_WRONG 9007199254740992.0
#define MAX_ROOT (1 << 30)

/* nccl-tests' type names where collbench's differ */
static const char *const dtype_alias[][2] = {{"f8e4m3", "e4m3"}, {"f8e5m2", "e5m2"}};

int cb_import_op_name(const char *program, char *op, size_t len) {
  const char *base = strrchr(program, '/');
  base = base ? base + 1 : program;
  const char *perf = strstr(base, "_perf");
  if (!perf || perf == base)
    return 0;
  size_t n = 0;
  for (const char *p = base; p < perf && n + 1 < len; p++)
    if (*p != '_') /* all_reduce -> allreduce, reduce_scatter -> reducescatter */
      op[n++] = (char)tolower((unsigned char)*p);
  op[n] = '\0';
  /* nccl-tests' programs (src/NAME.cu), by collbench's names */
  static const char *const known[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                      "reduce",    "alltoall",  "sendrecv",      "gather",
                                      "scatter",   "hypercube"};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(op, known[i]) == 0)
      return 1;
  return 0;
}

static struct cb_import_row *new_row(struct cb_import *im) {
  if (im->nrows == im->cap) {
    int cap = im->cap ? 2 * im->cap : 64;
    struct cb_import_row *r = realloc(im->rows, (size_t)cap * sizeof *r);
    if (!r)
      return NULL;
    im->rows = r, im->cap = cap;
  }
  struct cb_import_row *row = &im->rows[im->nrows++];
  memset(row, 0, sizeof *row);
  return row;
}

/* 0, or -1 out of memory. Names compared as cut to 63 bytes. */
static int add_host(struct cb_import *im, const char *host) {
  char name[64];
  cb_text_terminal(name, sizeof name, host, 0); /* as cluster.c */
  im->nranks++;
  for (int i = 0; i < im->nnodes; i++) /* a rank's line each: a hash would be a map too many */
    if (strcmp(im->hosts[i], name) == 0)
      return 0;
  if (im->nnodes == im->hosts_cap) {
    int cap = im->hosts_cap ? 2 * im->hosts_cap : 64;
    void *p = realloc(im->hosts, (size_t)cap * sizeof *im->hosts);
    if (!p)
      return -1;
    im->hosts = p, im->hosts_cap = cap;
  }
  memcpy(im->hosts[im->nnodes++], name, sizeof name);
  return 0;
}

/* A number as nccl-tests prints it (%.2f ... %.1e; "nan"); 0 when bad
 * (hexadecimal, which strtod takes, included). */
static int number(const char *s, double *v) {
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return end != s && *end == '\0' && errno == 0 && !isinf(*v) && !strpbrk(s, "xX");
}

/* A whole number as nccl-tests prints %ld: digits only, at most `max`
 * (read exactly: through a double, 2^53 + 1 would round to 2^53). */
static int whole(const char *s, uint64_t max, double *v) {
  if (!*s || s[strspn(s, "0123456789")] != '\0' || strlen(s) > 19)
    return 0;
  unsigned long long x = strtoull(s, NULL, 10);
  *v = (double)x;
  return x <= max;
}

/* The figures of one record before the strings and counts are set: time
 * is the mean over iterations (nccl-tests divides the loop's time by them). */
static void set_times(struct cb_record *r, double time_us, double algbw, double busbw, long wrong) {
  r->time_us = r->time_us_mean = time_us;
  r->stat = "mean";
  r->time_us_median = r->time_us_min = r->time_us_max = NAN;
  r->time_us_p5 = r->time_us_p95 = r->time_us_p99 = r->ci95_us = NAN;
  r->algbw_GBps = algbw, r->busbw_GBps = busbw;
  r->wrong = wrong;
}

/* Strings and counts shared by every record, once all rows are read (the
 * row array no longer moves). */
static void finish_records(struct cb_import *im) {
  for (int i = 0; i < im->nrows; i++) {
    struct cb_import_row *row = &im->rows[i];
    for (size_t a = 0; a < sizeof dtype_alias / sizeof dtype_alias[0]; a++)
      if (strcmp(row->dtype, dtype_alias[a][0]) == 0)
        snprintf(row->dtype, sizeof row->dtype, "%s", dtype_alias[a][1]);
    for (int v = 0; v < 2; v++) {
      struct cb_record *r = &row->rec[v];
      r->op = im->op, r->backend = "nccl", r->mem = "device", r->mode = "throughput";
      r->dtype = row->dtype, r->redop = row->redop;
      snprintf(r->transport, sizeof r->transport, "auto");
      r->source = "nccl-tests";
      r->inplace = v;
      r->nranks = im->nranks, r->nnodes = im->nnodes;
      r->iters = im->iters;
      r->samples = 1; /* one timed loop of all its iterations */
      r->batch_min = r->batch_max = im->iters;
    }
  }
}

static int choose_op(const char *path, const char *op, struct cb_import *im, struct cb_error *err) {
  char program[48], name[32];
  snprintf(program, sizeof program, "%.40s_perf", op ? op : "");
  if (op && !cb_import_op_name(program, name, sizeof name))
    return cb_fail(err, CB_USAGE,
                   "--op %s: not one of nccl-tests' collectives (allreduce, allgather, "
                   "reducescatter, broadcast, reduce, alltoall, sendrecv, gather, scatter, "
                   "hypercube)",
                   op);
  if (im->nrows == 0)
    return cb_fail(err, CB_USAGE, "%s: no result rows (is it a nccl-tests output?)", path);
  if (im->program[0] && !cb_import_op_name(im->program, im->op, sizeof im->op))
    return cb_fail(err, CB_USAGE, "%s: '%s' is not a nccl-tests program name (NAME_perf)", path,
                   im->program);
  if (im->program[0] && op && strcmp(op, im->op) != 0)
    return cb_fail(err, CB_USAGE, "--op %s: %s says it ran %s (%s)", op, path, im->op, im->program);
  if (!im->program[0] && !op)
    return cb_fail(err, CB_USAGE,
                   "%s: the file does not say which collective ran (no \"# Collective test "
                   "starting:\" line, nccl-tests before 2.16.7): give --op NAME",
                   path);
  if (!im->program[0])
    snprintf(im->op, sizeof im->op, "%s", name);
  finish_records(im);
  return CB_OK;
}

/* ---- the text table ---- */

static int split(char *line, char **tok, int max) {
  int n = 0;
  for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t && n < max;
       t = strtok_r(NULL, " \t\r\n", &save))
    tok[n++] = t;
  return n;
}

/* The layout the column header announces: each variant's body is time,
 * algbw, busbw, #wrong and, with per-iteration timing (-I), i_min, i_max,
 * i_p99, i_cv%; a timestamp column (date and time) may close the line. */
struct layout {
  int seen;
  int body;      /* tokens per variant: 4 or 8 */
  int timestamp; /* 2 trailing tokens */
};

static int read_header(const char *path, long lineno, char **tok, int n, struct layout *lay,
                       struct cb_error *err) {
  /* tok[0] is "#": size count type redop root, then the two bodies */
  int at = 6, body = 0, bodies = 0;
  for (int i = at; i < n; i++) {
    if (strcmp(tok[i], "cputime") == 0)
      return cb_fail(err, CB_USAGE,
                     "%s:%ld: the time columns are cputime (nccl-tests -C 1): launch times, not "
                     "the operations'; import a run without -C",
                     path, lineno);
    if (strcmp(tok[i], "timestamp") == 0) {
      lay->timestamp = 1;
      continue;
    }
    if (strcmp(tok[i], "time") == 0)
      bodies++;
    if (bodies == 1)
      body++;
  }
  if (bodies != 2 || (body != 4 && body != 8))
    return cb_fail(err, CB_USAGE,
                   "%s:%ld: a column header unlike nccl-tests' (size count type redop root, then "
                   "time algbw busbw #wrong out of place and in place)",
                   path, lineno);
  lay->seen = 1;
  lay->body = body;
  return CB_OK;
}

static int text_figures(const char *path, long lineno, char **tok, int body, struct cb_record *r,
                        struct cb_error *err) {
  double v[8];
  static const char *const what[8] = {"time",  "algbw", "busbw", "#wrong",
                                      "i_min", "i_max", "i_p99", "i_cv%"};
  if (strcmp(tok[0], "nan") == 0 || strcmp(tok[0], "-nan") == 0)
    return -1; /* no figure to import */
  for (int i = 0; i < body; i++) {
    if (i == 3 && strcmp(tok[i], "N/A") == 0) {
      v[i] = -1;
      continue;
    }
    if (!number(tok[i], &v[i]) || !(v[i] >= 0) ||
        (i == 3 && (v[i] != floor(v[i]) || v[i] > MAX_WRONG)))
      return cb_fail(err, CB_USAGE, "%s:%ld: %s '%s' is not a number of nccl-tests'", path, lineno,
                     what[i], tok[i]);
  }
  set_times(r, v[0], v[1], v[2], (long)v[3]);
  if (body == 8) /* CUDA-event times of each iteration (-I) */
    r->time_us_min = v[4], r->time_us_max = v[5], r->time_us_p99 = v[6];
  return CB_OK;
}

static int text_row(const char *path, long lineno, char **tok, int n, const struct layout *lay,
                    struct cb_import *im, struct cb_error *err) {
  if (!lay->seen)
    return cb_fail(err, CB_USAGE, "%s:%ld: a result row before nccl-tests' column header", path,
                   lineno);
  if (lay->timestamp && n >= 2 && strchr(tok[n - 2], '-') && strchr(tok[n - 1], ':'))
    n -= 2;
  if (n != 5 + 2 * lay->body)
    return cb_fail(err, CB_USAGE,
                   "%s:%ld: %d fields where nccl-tests' header announces %d (a cut or garbled row)",
                   path, lineno, n, 5 + 2 * lay->body);
  double size, count, root;
  if (!whole(tok[0], (uint64_t)MAX_BYTES, &size) || size < 1 ||
      !whole(tok[1], (uint64_t)MAX_BYTES, &count) || count > size)
    return cb_fail(err, CB_USAGE,
                   "%s:%ld: size '%s' and count '%s' are not whole numbers, size from 1 "
                   "to 2^53, count at most size",
                   path, lineno, tok[0], tok[1]);
  if (!number(tok[4], &root) || root != floor(root) || root < -1 || root > MAX_ROOT)
    return cb_fail(err, CB_USAGE, "%s:%ld: root '%s' is not a rank or -1", path, lineno, tok[4]);
  struct cb_import_row *row = new_row(im);
  if (!row)
    return cb_fail(err, CB_RUNTIME, "out of memory reading %s", path);
  snprintf(row->dtype, sizeof row->dtype, "%s", tok[2]);
  snprintf(row->redop, sizeof row->redop, "%s", tok[3]);
  for (int v = 0, at = 5; v < 2; v++, at += lay->body) {
    struct cb_record *r = &row->rec[v];
    int rc = text_figures(path, lineno, tok + at, lay->body, r, err);
    if (rc < 0) {
      im->nan++;
      continue;
    }
    if (rc)
      return err->status;
    r->bytes = (uint64_t)size, r->count = (size_t)count, r->root = (int)root;
    row->has[v] = 1;
  }
  if (!row->has[0] && !row->has[1])
    im->nrows--; /* both "nan" */
  return CB_OK;
}

/* Op executions per record, iters x agg x graph; 0 (unknown) when a factor
 * or the product is out of range, never an overflow. */
static long iters_product(long long iters, long long agg, long long graph) {
  const double max = 1e15;
  if (iters < 0 || agg < 1 || graph < 1 || (double)iters * (double)agg * (double)graph > max)
    return 0;
  return (long)(iters * agg * graph);
}

/* "# nThread 1 nGpus 1 minBytes 8 ... warmup iters: 5 iters: 20 agg iters: 1
 * validation: 1 graph: 0": op executions timed per record. */
static void read_settings(const char *line, struct cb_import *im) {
  char copy[512], *tok[MAX_TOKENS];
  snprintf(copy, sizeof copy, "%s", line);
  int n = split(copy, tok, MAX_TOKENS);
  long long iters = 0, agg = 1, graph = 1;
  for (int i = 1; i + 1 < n; i++) {
    long long v = strtoll(tok[i + 1], NULL, 10); /* saturates, unlike atol */
    if (strcmp(tok[i], "iters:") == 0 && strcmp(tok[i - 1], "warmup") != 0)
      *(strcmp(tok[i - 1], "agg") == 0 ? &agg : &iters) = v;
    else if (strcmp(tok[i], "graph:") == 0 && v > 0)
      graph = v;
  }
  im->iters = iters_product(iters, agg > 0 ? agg : 1, graph);
}

static int read_text(FILE *f, const char *path, struct cb_import *im, struct cb_error *err) {
  char *line = NULL, *tok[MAX_TOKENS];
  size_t cap = 0;
  long lineno = 0;
  struct layout lay = {0};
  int rc = CB_OK;
  long len = 0;
  while (rc == CB_OK && (len = cb_read_line(f, &line, &cap)) >= 0) {
    lineno++;
    char *s = line + strspn(line, " \t");
    if (strncmp(s, "# Collective test starting:", 27) == 0) {
      sscanf(s + 27, "%63s", im->program);
      continue;
    }
    if (strncmp(s, "# nThread ", 10) == 0) {
      read_settings(s, im);
      continue;
    }
    if (strncmp(s, "#  Rank ", 8) == 0 || strncmp(s, "# Rank ", 7) == 0) {
      char host[64];
      if (sscanf(s, "# Rank %*d Group %*d Pid %*d on %63s device", host) == 1 && add_host(im, host))
        rc = cb_fail(err, CB_RUNTIME, "out of memory reading %s", path);
      continue;
    }
    /* NCCL's own log lines may be interleaved (NCCL_DEBUG=INFO) */
    if (strstr(s, " NCCL INFO") || strstr(s, " NCCL WARN") || !isdigit((unsigned char)*s)) {
      if (*s == '#' && !lay.seen) {
        int n = split(s, tok, MAX_TOKENS);
        if (n > 6 && strcmp(tok[1], "size") == 0 && strcmp(tok[2], "count") == 0)
          rc = read_header(path, lineno, tok, n, &lay, err);
      }
      continue;
    }
    int n = split(s, tok, MAX_TOKENS);
    rc = text_row(path, lineno, tok, n, &lay, im, err);
  }
  free(line);
  if (rc == CB_OK && len == CB_READ_NOMEM)
    rc = cb_fail(err, CB_RUNTIME, "out of memory reading %s", path);
  if (rc == CB_OK && len == CB_READ_LONG)
    rc = cb_fail(err, CB_USAGE, "%s:%ld: a line longer than %d MiB: not nccl-tests output", path,
                 lineno + 1, CB_MAX_LINE >> 20);
  if (rc == CB_OK && ferror(f))
    rc = cb_fail(err, CB_USAGE, "cannot read %s: %s", path, strerror(errno));
  if (rc == CB_OK && !lay.seen)
    rc = cb_fail(
        err, CB_USAGE,
        "%s: no nccl-tests column header (\"#  size  count  type  redop  root  time ...\")", path);
  return rc;
}

/* ---- the -J JSON document ---- */

#if CB_HAVE_JANSSON
/* A number, or nccl-tests' "nan" string; -1 when neither. */
static int json_num(json_t *v, double *out) {
  if (json_is_number(v)) {
    *out = json_number_value(v);
    return 0;
  }
  if (json_is_string(v) && strcmp(json_string_value(v), "nan") == 0) {
    *out = NAN;
    return 0;
  }
  return -1;
}

static int json_figures(const char *path, int i, const char *key, json_t *o, json_t *per_iter,
                        struct cb_record *r, struct cb_error *err) {
  double t, alg, bus, wrong = -1;
  if (json_object_get(o, "cpu_time"))
    return cb_fail(err, CB_USAGE,
                   "%s: results[%d].%s: cpu_time (nccl-tests -C 1): launch times, not the "
                   "operations'; import a run without -C",
                   path, i, key);
  json_t *nw = json_object_get(o, "nwrong");
  if (json_num(json_object_get(o, "time"), &t) == 0 && isnan(t))
    return -1; /* nccl-tests' "nan": no figure to import */
  if (json_num(json_object_get(o, "time"), &t) || !(t >= 0) || !isfinite(t) ||
      json_num(json_object_get(o, "alg_bw"), &alg) || !(alg >= 0) || !isfinite(alg) ||
      json_num(json_object_get(o, "bus_bw"), &bus) || !(bus >= 0) || !isfinite(bus) ||
      (!json_is_null(nw) &&
       (json_num(nw, &wrong) || !(wrong >= 0) || wrong > MAX_WRONG || wrong != floor(wrong))))
    return cb_fail(err, CB_USAGE,
                   "%s: results[%d].%s: no numbers 'time', 'alg_bw', 'bus_bw' (finite, not "
                   "negative) and 'nwrong' (a whole number or null)",
                   path, i, key);
  set_times(r, t, alg, bus, (long)wrong);
  if (json_is_object(per_iter)) { /* CUDA-event times of each iteration (-I) */
    static const struct {
      const char *key;
      size_t offset;
    } stats[] = {{"min_us", offsetof(struct cb_record, time_us_min)},
                 {"max_us", offsetof(struct cb_record, time_us_max)},
                 {"p50_us", offsetof(struct cb_record, time_us_median)},
                 {"p95_us", offsetof(struct cb_record, time_us_p95)},
                 {"p99_us", offsetof(struct cb_record, time_us_p99)}};
    for (size_t k = 0; k < sizeof stats / sizeof stats[0]; k++) {
      double x;
      if (json_num(json_object_get(per_iter, stats[k].key), &x) == 0 && isfinite(x) && x >= 0)
        *(double *)((char *)r + stats[k].offset) = x;
    }
  }
  return CB_OK;
}

static int json_result(const char *path, int i, json_t *res, struct cb_import *im,
                       struct cb_error *err) {
  json_t *size = json_object_get(res, "size"), *count = json_object_get(res, "count");
  json_t *type = json_object_get(res, "type"), *redop = json_object_get(res, "redop");
  json_t *root = json_object_get(res, "root");
  /* nccl-tests writes the root as the table's padded text ("    -1") */
  char *end = NULL;
  long rootv = json_is_integer(root)  ? (long)json_integer_value(root)
               : json_is_string(root) ? strtol(json_string_value(root), &end, 10)
                                      : -2;
  if (end && (end == json_string_value(root) || *end))
    rootv = -2;
  if (!json_is_integer(size) || json_integer_value(size) < 1 ||
      (double)json_integer_value(size) > MAX_BYTES || !json_is_integer(count) ||
      json_integer_value(count) < 0 || json_integer_value(count) > json_integer_value(size) ||
      !json_is_string(type) || !json_is_string(redop) || rootv < -1 || rootv > MAX_ROOT)
    return cb_fail(
        err, CB_USAGE,
        "%s: results[%d]: no 'size', 'count' (whole numbers, size from 1 to 2^53, "
        "count at most size), 'type', 'redop' and 'root' (-1 or a rank) as nccl-tests writes "
        "them",
        path, i);
  struct cb_import_row *row = new_row(im);
  if (!row)
    return cb_fail(err, CB_RUNTIME, "out of memory reading %s", path);
  snprintf(row->dtype, sizeof row->dtype, "%s", json_string_value(type));
  snprintf(row->redop, sizeof row->redop, "%s", json_string_value(redop));
  static const char *const keys[2][2] = {{"out_of_place", "out_of_place_per_iter"},
                                         {"in_place", "in_place_per_iter"}};
  int nans = 0;
  for (int v = 0; v < 2; v++) {
    json_t *o = json_object_get(res, keys[v][0]);
    if (!o || json_is_null(o))
      continue;
    if (!json_is_object(o))
      return cb_fail(err, CB_USAGE, "%s: results[%d].%s is not an object", path, i, keys[v][0]);
    struct cb_record *r = &row->rec[v];
    int rc = json_figures(path, i, keys[v][0], o, json_object_get(res, keys[v][1]), r, err);
    if (rc < 0) {
      nans++;
      continue;
    }
    if (rc)
      return err->status;
    r->bytes = (uint64_t)json_integer_value(size);
    r->count = (size_t)json_integer_value(count);
    r->root = (int)rootv;
    row->has[v] = 1;
  }
  im->nan += nans;
  if (!row->has[0] && !row->has[1] && !nans)
    return cb_fail(err, CB_USAGE, "%s: results[%d]: neither 'out_of_place' nor 'in_place'", path,
                   i);
  if (!row->has[0] && !row->has[1])
    im->nrows--; /* both "nan" */
  return CB_OK;
}

static int read_json(FILE *f, const char *path, struct cb_import *im, struct cb_error *err) {
  json_error_t jerr;
  int too_big;
  json_t *doc = cb_json_load_bounded(f, &jerr, &too_big);
  if (!doc && too_big)
    return cb_fail(err, CB_USAGE, "%s: over %ld MiB: not a nccl-tests -J file", path,
                   CB_MAX_DOC >> 20);
  if (!doc)
    return cb_fail(err, CB_USAGE, "%s:%d:%d: not valid JSON: %s", path, jerr.line, jerr.column,
                   jerr.text);
  int rc = CB_OK;
  json_t *results = json_object_get(doc, "results"), *config = json_object_get(doc, "config");
  json_t *args = json_object_get(doc, "args"), *v;
  size_t i;
  if (!json_is_object(doc) || !json_is_array(results))
    rc = cb_fail(err, CB_USAGE, "%s: no \"results\" list: not a nccl-tests -J file", path);
  const char *argv0 = json_string_value(json_array_get(args, 0));
  if (argv0) {
    const char *base = strrchr(argv0, '/');
    snprintf(im->program, sizeof im->program, "%s", base ? base + 1 : argv0);
  }
  json_array_foreach(json_object_get(config, "devices"), i, v) {
    const char *host = json_string_value(json_object_get(v, "hostname"));
    if (add_host(im, host ? host : "") && !rc)
      rc = cb_fail(err, CB_RUNTIME, "out of memory reading %s", path);
  }
  json_t *it = json_object_get(config, "iterations"), *agg;
  agg = json_object_get(config, "aggregated_iterations");
  json_t *graph = json_object_get(config, "graph");
  im->iters = iters_product(
      json_is_integer(it) ? json_integer_value(it) : 0,
      json_is_integer(agg) && json_integer_value(agg) > 0 ? json_integer_value(agg) : 1,
      json_is_integer(graph) && json_integer_value(graph) > 0 ? json_integer_value(graph) : 1);
  json_array_foreach(results, i, v) {
    if (rc == CB_OK)
      rc = json_result(path, (int)i, v, im, err);
  }
  json_decref(doc);
  return rc;
}
#else
static int read_json(FILE *f, const char *path, struct cb_import *im, struct cb_error *err) {
  (void)f, (void)im;
  return cb_fail(err, CB_USAGE,
                 "%s: a nccl-tests -J file, and this collbench was built without a JSON "
                 "library (jansson)",
                 path);
}
#endif

int cb_import_nccl_tests(const char *path, const char *op, struct cb_import *im,
                         struct cb_error *err) {
  memset(im, 0, sizeof *im);
  FILE *f = fopen(path, "r");
  if (!f)
    return cb_fail(err, CB_USAGE, "--import-nccl-tests: cannot read '%s': %s", path,
                   strerror(errno));
  im->json = cb_peek_nonspace(f) == '{';
  int rc = im->json ? read_json(f, path, im, err) : read_text(f, path, im, err);
  fclose(f);
  if (rc == CB_OK)
    rc = choose_op(path, op, im, err);
  if (rc != CB_OK)
    cb_import_free(im); /* nothing is handed back on failure */
  return rc;
}

void cb_import_free(struct cb_import *im) {
  free(im->rows);
  free(im->hosts);
  memset(im, 0, sizeof *im);
}
