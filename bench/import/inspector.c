/* --import-inspector's reading and the calls file (inspector.h says what
 * NCCL Inspector writes and how calls are counted). */
#include "inspector.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../output/replace.h"
#include "base/readbound.h"
#include "base/stats.h"
#include "base/text.h"

/* NCCL's collective names (inspector.cc's ncclFuncToString) as collbench's
 * ops; `per_rank`: NCCL's count is one rank's part, the row is the whole. */
static const struct {
  const char *nccl, *op;
  int per_rank;
} names[] = {
    {"AllReduce", "allreduce", 0},
    {"AllGather", "allgather", 1},
    {"ReduceScatter", "reducescatter", 1},
    {"Broadcast", "broadcast", 0},
    {"All2All", "alltoall", 1},
};

struct event {
  char id[48], coll[24];
  long long sn;
  int nranks, nnodes;
  uint64_t msg;
  double us, busbw;
};

struct events {
  struct event *v;
  size_t n, cap;
  long long bytes; /* read over all the inputs, against CB_INSPECTOR_MAX_BYTES */
};

/* What one line may hold: out of these ranges it is not Inspector output
 * (a cast of 2^31 ranks or a 1e19 coll_sn is undefined; a 0-byte or
 * 1.5-byte call is none NCCL makes: enqueue.cc returns before a plan for a
 * count of 0, so the profiler never sees one). */
#define MAX_SN 9007199254740992.0     /* 2^53: a double's whole numbers */
#define MAX_MSG 4611686018427387904.0 /* 2^62 bytes */
#define MAX_US 1e12                   /* 11.6 days for one call */
#define MAX_BUSBW 1e6                 /* GB/s: 1000x any link */

static int whole(double v, double lo, double hi) {
  return v >= lo && v <= hi && v == floor(v);
}

/* A figure from 0 to hi, or NaN (Inspector's "nan": not timed). */
static int figure(double v, double hi) {
  return isnan(v) || (v >= 0 && v <= hi);
}

static int number(json_t *o, const char *key, double *v) {
  json_t *x = json_object_get(o, key);
  if (json_is_number(x))
    *v = json_number_value(x);
  else if (json_is_string(x) && strcmp(json_string_value(x), "nan") == 0)
    *v = NAN; /* inspector_json.cc's jsonDouble writes NaN as "nan" */
  else
    return -1;
  return 0;
}

/* One line: an event appended, a p2p line counted, or why it is not one
 * (why[0] set); CB_RUNTIME when memory ran out. */
static int take_line(const char *text, struct events *e, long *p2p, char *why, size_t n) {
  json_t *o = json_loads(text, 0, NULL), *h = json_object_get(o, "header");
  json_t *coll = json_object_get(o, "coll_perf");
  double nranks, nnodes, rank = NAN, sn, msg, us, busbw;
  const char *id = json_string_value(json_object_get(h, "id"));
  const char *name = json_string_value(json_object_get(coll, "coll"));
  int rc = CB_OK;
  why[0] = '\0';
  if (!json_is_object(o))
    snprintf(why, n, "not a JSON object");
  else if (!json_is_object(h) || !id || number(h, "n_ranks", &nranks) ||
           number(h, "nnodes", &nnodes))
    snprintf(why, n, "no header with id, n_ranks and nnodes");
  else if (!whole(nranks, 1, CB_CALLS_MAX_RANKS) || !whole(nnodes, 1, nranks))
    snprintf(why, n, "n_ranks %.17g and nnodes %.17g: whole numbers, 1 <= nnodes <= n_ranks <= %d",
             nranks, nnodes, CB_CALLS_MAX_RANKS);
  else if (json_object_get(h, "rank") && (number(h, "rank", &rank) || !whole(rank, 0, nranks - 1)))
    snprintf(why, n, "rank %.17g: not a whole number from 0 to n_ranks - 1 (%.17g)", rank,
             nranks - 1);
  else if (json_is_object(json_object_get(o, "p2p_perf")))
    ++*p2p;
  else if (!json_is_object(coll) || !name || number(coll, "coll_sn", &sn) ||
           number(coll, "coll_msg_size_bytes", &msg) || number(coll, "coll_exec_time_us", &us) ||
           number(coll, "coll_busbw_gbs", &busbw))
    snprintf(why, n,
             "neither coll_perf (coll, coll_sn, coll_msg_size_bytes, coll_exec_time_us, "
             "coll_busbw_gbs) nor p2p_perf");
  else if (!whole(sn, 0, MAX_SN) || !whole(msg, 1, MAX_MSG) || !figure(us, MAX_US) ||
           !figure(busbw, MAX_BUSBW))
    snprintf(why, n,
             "coll_sn %.17g, coll_msg_size_bytes %.17g, coll_exec_time_us %.17g, coll_busbw_gbs "
             "%.17g out of range (whole numbers from 0 and from 1 byte to 2^62; a time from 0 to "
             "1e12 us and a busbw from 0 to 1e6 GB/s, or \"nan\")",
             sn, msg, us, busbw);
  else {
    if (e->n == e->cap) {
      size_t cap = e->cap ? 2 * e->cap : 1024;
      struct event *v = realloc(e->v, cap * sizeof *v);
      if (!v)
        rc = CB_RUNTIME;
      else
        e->v = v, e->cap = cap;
    }
    if (rc == CB_OK) {
      struct event *ev = &e->v[e->n++];
      snprintf(ev->id, sizeof ev->id, "%s", id);
      /* a name from the file: shown in the table and written to the calls file */
      cb_text_terminal(ev->coll, sizeof ev->coll, name, 0);
      ev->sn = (long long)sn, ev->nranks = (int)nranks, ev->nnodes = (int)nnodes;
      ev->msg = (uint64_t)msg, ev->us = us, ev->busbw = busbw;
    }
  }
  json_decref(o);
  return rc;
}

static int read_file(const char *path, struct events *e, struct cb_calls *c, struct cb_error *err) {
  FILE *f = fopen(path, "r");
  if (!f)
    return cb_fail(err, CB_USAGE, "--import-inspector %s: %s", path, strerror(errno));
  char *line = NULL, why[320];
  size_t cap = 0;
  long at = 0, here = 0, len;
  int rc = CB_OK;
  while (rc == CB_OK && (len = cb_read_line(f, &line, &cap)) > 0) {
    at++;
    if ((e->bytes += len) > CB_INSPECTOR_MAX_BYTES) {
      rc = cb_fail(err, CB_USAGE,
                   "--import-inspector %s: line %ld: over %lld GiB of Inspector output in all: "
                   "give fewer files (one node's, or a shorter run's)",
                   path, at, (long long)CB_INSPECTOR_MAX_BYTES >> 30);
      break;
    }
    if ((size_t)len != strlen(line)) {
      rc = cb_fail(err, CB_USAGE,
                   "--import-inspector %s: line %ld holds a NUL byte: not NCCL Inspector output",
                   path, at);
      break;
    }
    if (line[strspn(line, " \t\r\n")] == '\0')
      continue;
    if (take_line(line, e, &c->p2p, why, sizeof why))
      rc = cb_fail(err, CB_RUNTIME, "--import-inspector %s: line %ld: out of memory", path, at);
    else if (why[0])
      rc =
          cb_fail(err, CB_USAGE, "--import-inspector %s: line %ld is not NCCL Inspector output: %s",
                  path, at, why);
    here++;
  }
  if (rc == CB_OK && len == CB_READ_LONG)
    rc = cb_fail(err, CB_USAGE,
                 "--import-inspector %s: line %ld: longer than %d MiB: not NCCL Inspector output",
                 path, at + 1, CB_MAX_LINE >> 20);
  else if (rc == CB_OK && len == CB_READ_NOMEM)
    rc = cb_fail(err, CB_RUNTIME, "--import-inspector %s: line %ld: out of memory", path, at + 1);
  else if (rc == CB_OK && ferror(f))
    rc = cb_fail(err, CB_USAGE, "--import-inspector %s: %s", path, strerror(errno));
  free(line);
  fclose(f);
  if (rc == CB_OK && here == 0)
    rc = cb_fail(err, CB_USAGE, "--import-inspector %s: empty, not NCCL Inspector output", path);
  c->lines += here;
  c->files++;
  return rc;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A folder: its regular files, in name order (Inspector's HOST-pidN.log). */
static int read_dir(const char *path, struct events *e, struct cb_calls *c, struct cb_error *err) {
  DIR *d = opendir(path);
  if (!d)
    return cb_fail(err, CB_USAGE, "--import-inspector %s: %s", path, strerror(errno));
  char **files = NULL;
  size_t n = 0;
  int rc = CB_OK;
  for (struct dirent *de; rc == CB_OK && (de = readdir(d));) {
    char full[4096];
    struct stat st;
    snprintf(full, sizeof full, "%s/%s", path, de->d_name);
    if (de->d_name[0] == '.' || stat(full, &st) || !S_ISREG(st.st_mode))
      continue;
    char **more = realloc(files, (n + 1) * sizeof *more);
    if (more)
      files = more;
    if (!more || !(files[n] = strdup(full)))
      rc = cb_fail(err, CB_RUNTIME, "--import-inspector %s: out of memory", path);
    else
      n++;
  }
  closedir(d);
  if (n)
    qsort(files, n, sizeof *files, by_name);
  if (rc == CB_OK && n == 0)
    rc = cb_fail(err, CB_USAGE, "--import-inspector %s: a folder with no files", path);
  for (size_t i = 0; i < n; i++) {
    if (rc == CB_OK)
      rc = read_file(files[i], e, c, err);
    free(files[i]);
  }
  free(files);
  return rc;
}

static int by_call(const void *a, const void *b) {
  const struct event *x = a, *y = b;
  int k = strcmp(x->id, y->id);
  return k ? k : (x->sn > y->sn) - (x->sn < y->sn);
}

/* The row a call belongs to: op, ranks, nodes, size; then communicator. */
static int by_row(const void *a, const void *b) {
  const struct event *x = a, *y = b;
  int k = strcmp(x->coll, y->coll);
  if (!k)
    k = x->nranks != y->nranks ? x->nranks - y->nranks : x->nnodes - y->nnodes;
  if (!k)
    k = (x->msg > y->msg) - (x->msg < y->msg);
  return k ? k : strcmp(x->id, y->id);
}

static double median_of(double *v, size_t n) {
  cb_sort_doubles(v, n);
  return cb_median_sorted(v, n);
}

/* Events -> calls (a communicator's call once: its slowest rank's time and
 * the lowest busbw) -> rows. */
static int group(struct events *e, struct cb_calls *c, struct cb_error *err) {
  if (e->n) /* qsort's base must not be NULL, even for none */
    qsort(e->v, e->n, sizeof *e->v, by_call);
  size_t ncalls = 0;
  for (size_t i = 0; i < e->n; i++) {
    struct event *last = ncalls ? &e->v[ncalls - 1] : NULL;
    if (last && strcmp(last->id, e->v[i].id) == 0 && last->sn == e->v[i].sn) {
      last->us = e->v[i].us > last->us ? e->v[i].us : last->us;
      last->busbw = e->v[i].busbw < last->busbw ? e->v[i].busbw : last->busbw;
    } else
      e->v[ncalls++] = e->v[i];
  }
  if (ncalls == 0)
    return cb_fail(err, CB_USAGE,
                   "--import-inspector: no collective calls in %d file%s (%ld p2p lines)", c->files,
                   c->files == 1 ? "" : "s", c->p2p);
  qsort(e->v, ncalls, sizeof *e->v, by_row);
  double *us = malloc(ncalls * sizeof *us), *bw = malloc(ncalls * sizeof *bw);
  c->v = calloc(ncalls, sizeof *c->v);
  if (!us || !bw || !c->v) {
    free(us), free(bw);
    return cb_fail(err, CB_RUNTIME, "--import-inspector: out of memory");
  }
  c->calls = (long)ncalls;
  for (size_t i = 0, j; i < ncalls; i = j) {
    struct cb_call *r = &c->v[c->n++];
    const struct event *a = &e->v[i];
    size_t k = 0;
    for (j = i; j < ncalls && strcmp(e->v[j].coll, a->coll) == 0 && e->v[j].nranks == a->nranks &&
                e->v[j].nnodes == a->nnodes && e->v[j].msg == a->msg;
         j++, k++) {
      us[k] = e->v[j].us, bw[k] = e->v[j].busbw;
      r->comms += j == i || strcmp(e->v[j].id, e->v[j - 1].id) != 0;
    }
    snprintf(r->op, sizeof r->op, "%s", a->coll);
    r->bytes = a->msg;
    for (size_t n = 0; n < sizeof names / sizeof *names; n++)
      if (strcmp(a->coll, names[n].nccl) == 0) {
        snprintf(r->op, sizeof r->op, "%s", names[n].op);
        r->known = 1;
        r->bytes = a->msg * (names[n].per_rank ? (uint64_t)a->nranks : 1);
      }
    r->nranks = a->nranks, r->nnodes = a->nnodes;
    r->calls = (long)k;
    r->share = (double)k / (double)ncalls;
    r->time_us = median_of(us, k);
    r->busbw_GBps = median_of(bw, k);
  }
  free(us), free(bw);
  return CB_OK;
}

int cb_inspector_read(const char *const *paths, int npaths, struct cb_calls *c,
                      struct cb_error *err) {
  memset(c, 0, sizeof *c);
  struct events e = {0};
  int rc = CB_OK;
  for (int i = 0; i < npaths && rc == CB_OK; i++) {
    struct stat st;
    rc = stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode) ? read_dir(paths[i], &e, c, err)
                                                         : read_file(paths[i], &e, c, err);
  }
  if (rc == CB_OK)
    rc = group(&e, c, err);
  free(e.v);
  return rc;
}

static json_t *real_or_null(double v) {
  return isfinite(v) ? json_real(v) : json_null();
}

static int write_lines(void *state, FILE *f) {
  const struct cb_calls *c = state;
  json_t *h = json_pack("{s:s, s:s, s:i, s:I, s:I, s:I}", "type", "calls", "source",
                        "nccl-inspector", "files", c->files, "lines", (json_int_t)c->lines,
                        "p2p_lines", (json_int_t)c->p2p, "calls", (json_int_t)c->calls);
  int bad = !h || json_dumpf(h, f, JSON_COMPACT | JSON_REAL_PRECISION(10)) || fputc('\n', f) == EOF;
  json_decref(h);
  for (int i = 0; i < c->n && !bad; i++) {
    const struct cb_call *r = &c->v[i];
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:i, s:f}", "type", "call", "op", r->op,
                          "nranks", r->nranks, "nnodes", r->nnodes, "bytes", (json_int_t)r->bytes,
                          "calls", (json_int_t)r->calls, "comms", r->comms, "share", r->share);
    if (o) {
      json_object_set_new(o, "time_us_nccl", real_or_null(r->time_us));
      json_object_set_new(o, "busbw_GBps_nccl", real_or_null(r->busbw_GBps));
    }
    bad = !o || json_dumpf(o, f, JSON_COMPACT | JSON_REAL_PRECISION(10)) || fputc('\n', f) == EOF;
    json_decref(o);
  }
  return bad;
}

int cb_calls_write(const char *path, const char *option, const struct cb_calls *c,
                   struct cb_error *err) {
  return cb_replace_write(path, option, write_lines, (void *)c, err);
}

/* A figure of a calls line: absent or null (not timed), or from 0 to hi. */
static int calls_figure(json_t *o, const char *key, double hi, double *v) {
  json_t *x = json_object_get(o, key);
  *v = NAN;
  if (!x || json_is_null(x))
    return 0;
  if (!json_is_number(x) || !figure(json_number_value(x), hi))
    return -1;
  *v = json_number_value(x);
  return 0;
}

static int calls_line(const char *path, long at, json_t *o, struct cb_calls *c, size_t *cap,
                      struct cb_error *err) {
  struct cb_call r = {0};
  json_int_t ranks = 0, nodes = 0, bytes = -1, calls = 0;
  const char *op = NULL;
  double t, bw, share = 0;
  if (json_unpack(o, "{s:s, s:I, s:I, s:I, s:I, s?F}", "op", &op, "nranks", &ranks, "nnodes",
                  &nodes, "bytes", &bytes, "calls", &calls, "share", &share) ||
      ranks < 1 || ranks > CB_CALLS_MAX_RANKS || nodes < 1 || nodes > ranks || bytes < 1 ||
      (double)bytes > MAX_MSG || calls < 1 || !(share >= 0 && share <= 1) ||
      strlen(op) >= sizeof r.op || calls_figure(o, "time_us_nccl", MAX_US, &t) ||
      calls_figure(o, "busbw_GBps_nccl", MAX_BUSBW, &bw))
    return cb_fail(err, CB_USAGE,
                   "--calls %s: line %ld: a call needs op (under %zu characters), 1 <= nnodes <= "
                   "nranks <= %d, bytes from 1 to 2^62, calls >= 1, a share from 0 to 1, and "
                   "time_us_nccl and busbw_GBps_nccl from 0 (up to 1e12 us and 1e6 GB/s) or null",
                   path, at, sizeof r.op, CB_CALLS_MAX_RANKS);
  cb_text_terminal(r.op, sizeof r.op, op, 0); /* shown in --calls' notes */
  for (size_t n = 0; n < sizeof names / sizeof *names; n++)
    r.known |= strcmp(op, names[n].op) == 0;
  r.nranks = (int)ranks, r.nnodes = (int)nodes, r.bytes = (uint64_t)bytes;
  r.calls = (long)calls, r.share = share, r.time_us = t, r.busbw_GBps = bw;
  if ((size_t)c->n == *cap) {
    size_t more = *cap ? 2 * *cap : 64;
    struct cb_call *v = realloc(c->v, more * sizeof *v);
    if (!v)
      return cb_fail(err, CB_RUNTIME, "--calls %s: line %ld: out of memory", path, at);
    c->v = v, *cap = more;
  }
  c->v[c->n++] = r, c->calls += r.calls;
  return CB_OK;
}

int cb_calls_read(const char *path, struct cb_calls *c, struct cb_error *err) {
  memset(c, 0, sizeof *c);
  FILE *f = fopen(path, "r");
  if (!f)
    return cb_fail(err, CB_USAGE, "--calls %s: %s", path, strerror(errno));
  char *line = NULL;
  size_t cap = 0, ncap = 0;
  long at = 0, len;
  long long total = 0;
  int rc = CB_OK, header = 0;
  while (rc == CB_OK && (len = cb_read_line(f, &line, &cap)) > 0) {
    at++;
    if ((total += len) > CB_CALLS_MAX_BYTES) {
      rc = cb_fail(err, CB_USAGE, "--calls %s: line %ld: over %lld MiB: not a calls file", path, at,
                   CB_CALLS_MAX_BYTES >> 20);
      break;
    }
    /* a NUL byte would end the text jansson reads: a line cut short */
    json_t *o = (size_t)len == strlen(line) ? json_loads(line, 0, NULL) : NULL;
    const char *type = json_string_value(json_object_get(o, "type"));
    if (at == 1 && type && strcmp(type, "calls") == 0)
      header = 1;
    else if (!header || !type || strcmp(type, "call") != 0)
      rc = cb_fail(err, CB_USAGE, "--calls %s: line %ld is not %s", path, at,
                   header ? "a call" : "the calls header (write one with --import-inspector)");
    else
      rc = calls_line(path, at, o, c, &ncap, err);
    json_decref(o);
  }
  if (rc == CB_OK && len == CB_READ_LONG)
    rc = cb_fail(err, CB_USAGE, "--calls %s: line %ld: longer than %d MiB: not a calls file", path,
                 at + 1, CB_MAX_LINE >> 20);
  else if (rc == CB_OK && len == CB_READ_NOMEM)
    rc = cb_fail(err, CB_RUNTIME, "--calls %s: line %ld: out of memory", path, at + 1);
  else if (rc == CB_OK && ferror(f))
    rc = cb_fail(err, CB_USAGE, "--calls %s: %s", path, strerror(errno));
  free(line);
  fclose(f);
  if (rc == CB_OK && c->n == 0)
    rc = cb_fail(err, CB_USAGE, "--calls %s: no calls in it", path);
  if (rc)
    cb_calls_free(c);
  return rc;
}

void cb_calls_free(struct cb_calls *c) {
  free(c->v);
  memset(c, 0, sizeof *c);
}

int cb_inspector_run(const struct cb_inspector_cli *cli) {
  struct cb_error err = {0};
  struct cb_calls c;
  int rc = cli->out ? cb_output_check(cli->out, "--out", CB_OUT_REPLACE, &err) : CB_OK;
  if (rc == CB_OK)
    rc = cb_inspector_read(cli->inputs, cli->ninputs, &c, &err);
  if (rc != CB_OK) {
    cb_error_print(&err);
    return rc;
  }
  printf("# what the job called: %ld collective calls in %ld lines of %d file%s (%ld p2p lines "
         "passed over)\n",
         c.calls, c.lines, c.files, c.files == 1 ? "" : "s", c.p2p);
  printf("# %-14s %6s %6s %14s %9s %6s %7s %12s %10s\n", "op", "ranks", "nodes", "bytes", "calls",
         "comms", "share", "NCCL time us", "busbw GB/s");
  for (int i = 0; i < c.n; i++) {
    const struct cb_call *r = &c.v[i];
    printf("  %-14s %6d %6d %14llu %9ld %6d %6.1f%% %12.1f %10.2f%s\n", r->op, r->nranks, r->nnodes,
           (unsigned long long)r->bytes, r->calls, r->comms, 100 * r->share, r->time_us,
           r->busbw_GBps, r->known ? "" : "  (no collbench op: not measured)");
  }
  if (cli->out && (rc = cb_calls_write(cli->out, "--out", &c, &err)) != CB_OK)
    cb_error_print(&err);
  else if (cli->out)
    printf("wrote %s\n", cli->out);
  cb_calls_free(&c);
  return rc;
}
