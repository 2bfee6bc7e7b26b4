/* A baseline as JSON: written for people as much as for collbench (keys
 * in a fixed order, indented), read back with every field checked. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/readbound.h"
#include "base/text.h"
#include "baseline.h"
#include "config.h"
#include "output/replace.h"

#if CB_HAVE_JANSSON
#include <jansson.h>

static const char *const dist_keys[] = {"n",   "median", "mad", "p5",  "p10",
                                        "p90", "p95",    "min", "max", "ci95"};
#define NDIST (int)(sizeof dist_keys / sizeof dist_keys[0])

static double *dist_field(struct cb_dist *d, int i) {
  double *f[NDIST] = {NULL,    &d->median, &d->mad, &d->p5,  &d->p10,
                      &d->p90, &d->p95,    &d->min, &d->max, &d->ci95};
  return f[i];
}

static json_t *dist_json(const struct cb_dist *d) {
  struct cb_dist c = *d;
  json_t *o = json_object();
  json_object_set_new(o, "n", json_integer(c.n));
  for (int i = 1; i < NDIST; i++)
    json_object_set_new(o, dist_keys[i],
                        isnan(*dist_field(&c, i)) ? json_null() /* ci95 of one figure without one */
                                                  : json_real(*dist_field(&c, i)));
  return o;
}

static json_t *entry_json(const struct cb_bl_entry *e) {
  json_t *o = json_object();
  json_object_set_new(o, "kind", cb_json_text(cb_bl_kind_names[e->kind]));
  if (e->kind == CB_BL_RESULT) {
    const char *keys[] = {"op", "backend", "mem", "transport", "dtype", "redop"};
    const char *vals[] = {e->op, e->backend, e->mem, e->transport, e->dtype, e->redop};
    for (int i = 0; i < 6; i++)
      json_object_set_new(o, keys[i], cb_json_text(vals[i]));
    json_object_set_new(o, "inplace", json_boolean(e->inplace));
    json_object_set_new(o, "nranks", json_integer(e->nranks));
    json_object_set_new(o, "nnodes", json_integer(e->nnodes));
  } else if (e->kind == CB_BL_PAIR) {
    json_object_set_new(o, "src_host", cb_json_text(e->src));
    json_object_set_new(o, "dst_host", cb_json_text(e->dst));
  } else
    json_object_set_new(o, "host", cb_json_text(e->src));
  json_object_set_new(o, "bytes", json_integer((json_int_t)e->bytes));
  for (int m = 0; m < CB_BL_NMETRICS; m++)
    if (e->d[m].n > 0)
      json_object_set_new(o, cb_bl_metrics[m].name, dist_json(&e->d[m]));
  json_t *runs = json_array();
  for (int i = 0; i < e->nruns; i++)
    json_array_append_new(runs, json_integer(e->runs[i]));
  json_object_set_new(o, "runs", runs);
  return o;
}

static int write_json(void *state, FILE *f) {
  const struct cb_baseline *b = state;
  json_t *o = json_object();
  json_object_set_new(o, "format", cb_json_text(CB_BASELINE_FORMAT));
  json_object_set_new(o, "version", json_integer(CB_BASELINE_VERSION));
  json_object_set_new(o, "collbench_version", cb_json_text(b->collbench_version));
  json_t *runs = json_array();
  for (int i = 0; i < b->nruns; i++) {
    const struct cb_bl_run *r = &b->runs[i];
    json_array_append_new(runs, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I}", "file", r->file,
                                          "start_time", r->start_time, "git_commit", r->git_commit,
                                          "hostnames", r->hostnames, "nranks",
                                          (json_int_t)r->nranks, "nnodes", (json_int_t)r->nnodes));
  }
  json_object_set_new(o, "runs", runs);
  json_t *entries = json_array();
  for (int i = 0; i < b->nentries; i++)
    json_array_append_new(entries, entry_json(&b->entries[i]));
  json_object_set_new(o, "entries", entries);
  int rc = json_dumpf(o, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(7));
  json_decref(o);
  return rc || fputc('\n', f) == EOF;
}

int cb_baseline_write(const struct cb_baseline *b, const char *path, struct cb_error *err) {
  if (cb_output_check(path, "--baseline-out", CB_OUT_REPLACE, err))
    return err->status;
  return cb_replace_write(path, "--baseline-out", write_json, (void *)b, err);
}

/* ---- reading ---- */

static int str_field(json_t *o, const char *key, char *out, size_t size) {
  const char *s = json_string_value(json_object_get(o, key));
  if (!s || strlen(s) >= size)
    return -1;
  cb_text_terminal(out, size, s, 0); /* --compare prints it */
  return 0;
}

static const char *read_dist(json_t *o, struct cb_dist *d) {
  json_t *n = json_object_get(o, "n");
  if (!json_is_object(o) || !json_is_integer(n) || json_integer_value(n) < 1 ||
      json_integer_value(n) > 1000000000)
    return "a distribution without a positive 'n'";
  d->n = (int)json_integer_value(n);
  for (int i = 1; i < NDIST; i++) {
    json_t *x = json_object_get(o, dist_keys[i]);
    if (i == NDIST - 1 && json_is_null(x)) { /* ci95: none, from one figure without one */
      *dist_field(d, i) = NAN;
      continue;
    }
    if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0)
      return "a distribution field missing or not a number >= 0 (n, median, mad, p5, p10, "
             "p90, p95, min, max, ci95)";
    *dist_field(d, i) = json_number_value(x);
  }
  return NULL;
}

static const char *read_entry(json_t *o, int nruns, struct cb_bl_entry *e) {
  memset(e, 0, sizeof *e);
  const char *kind = json_string_value(json_object_get(o, "kind"));
  json_t *bytes = json_object_get(o, "bytes");
  for (e->kind = 0; kind && e->kind < CB_BL_NKINDS; e->kind++)
    if (!strcmp(kind, cb_bl_kind_names[e->kind]))
      break;
  if (!kind || e->kind == CB_BL_NKINDS)
    return "an entry whose 'kind' is not result, pair or node";
  if (!json_is_integer(bytes) || json_integer_value(bytes) <= 0)
    return "an entry without a positive 'bytes'";
  e->bytes = (uint64_t)json_integer_value(bytes);
  if (e->kind == CB_BL_RESULT) {
    json_int_t nr, nn;
    if (str_field(o, "op", e->op, sizeof e->op) ||
        str_field(o, "backend", e->backend, sizeof e->backend) ||
        str_field(o, "mem", e->mem, sizeof e->mem) ||
        str_field(o, "transport", e->transport, sizeof e->transport) ||
        str_field(o, "dtype", e->dtype, sizeof e->dtype) ||
        str_field(o, "redop", e->redop, sizeof e->redop) ||
        !json_is_boolean(json_object_get(o, "inplace")) ||
        json_unpack(o, "{s:I, s:I}", "nranks", &nr, "nnodes", &nn) || nr < 1 || nn < 1)
      return "a result entry without op, backend, mem, transport, dtype, redop, inplace, "
             "nranks and nnodes";
    e->inplace = json_is_true(json_object_get(o, "inplace"));
    e->nranks = (long)nr, e->nnodes = (long)nn;
  } else if (e->kind == CB_BL_PAIR ? str_field(o, "src_host", e->src, sizeof e->src) ||
                                         str_field(o, "dst_host", e->dst, sizeof e->dst)
                                   : str_field(o, "host", e->src, sizeof e->src))
    return "a pair entry without 'src_host' and 'dst_host', or a node entry without 'host'";
  int any = 0;
  for (int m = 0; m < CB_BL_NMETRICS; m++) {
    json_t *x = json_object_get(o, cb_bl_metrics[m].name);
    if (!x)
      continue;
    const char *why = read_dist(x, &e->d[m]);
    if (why)
      return why;
    any = 1;
  }
  if (!any)
    return "an entry without a distribution (time_us, busbw_GBps, bw_GBps ...)";
  json_t *runs = json_object_get(o, "runs"), *r;
  size_t i;
  if (!json_is_array(runs))
    return "an entry without a 'runs' list";
  e->runs = calloc(json_array_size(runs) + 1, sizeof *e->runs);
  json_array_foreach(runs, i, r) {
    if (!json_is_integer(r) || json_integer_value(r) < 0 || json_integer_value(r) >= nruns)
      return "an entry whose 'runs' names a run the baseline does not list";
    e->runs[e->nruns++] = (int)json_integer_value(r);
  }
  return NULL;
}

static int load(const char *opt, const char *path, json_t *o, struct cb_baseline *b,
                struct cb_error *err) {
  const char *format = json_string_value(json_object_get(o, "format"));
  json_t *version = json_object_get(o, "version"), *runs = json_object_get(o, "runs");
  json_t *entries = json_object_get(o, "entries"), *x;
  if (!json_is_object(o) || !format || strcmp(format, CB_BASELINE_FORMAT) != 0)
    return cb_fail(err, CB_USAGE, "%s %s: not a collbench baseline (no \"format\": \"%s\")", opt,
                   path, CB_BASELINE_FORMAT);
  if (!json_is_integer(version) || json_integer_value(version) != CB_BASELINE_VERSION)
    return cb_fail(err, CB_USAGE,
                   "%s %s: baseline format version %s%lld; this collbench (%s) reads version %d: "
                   "build it again with this collbench's --baseline",
                   opt, path, json_is_integer(version) ? "" : "(not a number) ",
                   (long long)json_integer_value(version), CB_VERSION, CB_BASELINE_VERSION);
  if (!json_is_array(runs) || !json_is_array(entries))
    return cb_fail(err, CB_USAGE, "%s %s: no 'runs' and 'entries' lists", opt, path);
  if (json_array_size(entries) == 0)
    return cb_fail(err, CB_USAGE, "%s %s: an empty baseline (no entries)", opt, path);
  str_field(o, "collbench_version", b->collbench_version, sizeof b->collbench_version);
  size_t i;
  b->nruns = (int)json_array_size(runs);
  b->runs = calloc(b->nruns + 1, sizeof *b->runs);
  json_array_foreach(runs, i, x) {
    struct cb_bl_run *r = &b->runs[i];
    str_field(x, "file", r->file, sizeof r->file);
    str_field(x, "start_time", r->start_time, sizeof r->start_time);
    str_field(x, "git_commit", r->git_commit, sizeof r->git_commit);
    str_field(x, "hostnames", r->hostnames, sizeof r->hostnames);
    r->nranks = (long)json_integer_value(json_object_get(x, "nranks"));
    r->nnodes = (long)json_integer_value(json_object_get(x, "nnodes"));
  }
  b->entries = calloc(json_array_size(entries), sizeof *b->entries);
  json_array_foreach(entries, i, x) {
    const char *why = read_entry(x, b->nruns, &b->entries[i]);
    b->nentries = (int)i + 1;
    if (why)
      return cb_fail(err, CB_USAGE, "%s %s: entry %zu: %s", opt, path, i + 1, why);
  }
  return CB_OK;
}

int cb_baseline_load(const char *opt, const char *path, struct cb_baseline *b,
                     struct cb_error *err) {
  memset(b, 0, sizeof *b);
  snprintf(b->path, sizeof b->path, "%s", path);
  FILE *f = fopen(path, "r");
  if (!f)
    return cb_fail(err, CB_USAGE, "%s %s: cannot read it: %s", opt, path, strerror(errno));
  int c = fgetc(f), isdir = ferror(f); /* a folder opens, then fails to read */
  if (c == EOF) {
    fclose(f);
    return cb_fail(err, CB_USAGE, "%s %s: %s", opt, path,
                   isdir ? "cannot read it (a folder?)" : "an empty file, not a baseline");
  }
  ungetc(c, f);
  json_error_t jerr;
  int too_big; /* an endless input (a pipe, a device) stops at the bound */
  json_t *o = cb_json_load_bounded(f, &jerr, &too_big);
  fclose(f);
  if (!o && too_big)
    return cb_fail(err, CB_USAGE, "%s %s: over %ld MiB: not a baseline", opt, path,
                   CB_MAX_DOC >> 20);
  if (!o)
    return cb_fail(err, CB_USAGE, "%s %s: not a baseline: line %d: %s", opt, path, jerr.line,
                   jerr.text);
  int rc = load(opt, path, o, b, err);
  json_decref(o);
  if (rc)
    cb_baseline_free(b);
  return rc;
}

#else

int cb_baseline_write(const struct cb_baseline *b, const char *path, struct cb_error *err) {
  (void)b, (void)path;
  return cb_fail(err, CB_USAGE, "--out: this collbench was built without jansson");
}
int cb_baseline_load(const char *opt, const char *path, struct cb_baseline *b,
                     struct cb_error *err) {
  (void)path;
  memset(b, 0, sizeof *b);
  return cb_fail(err, CB_USAGE, "%s: this collbench was built without a JSON library (jansson)",
                 opt);
}

#endif
