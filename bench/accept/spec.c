/* The acceptance spec's sections of a topology file (spec.h says more). */
#include "spec.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/robust.h"
#include "base/units.h"
#include "fleet/baseline.h"
#include "ops/op.h"
#include "results/overhead.h"
#include "runtime/memory.h"
#include "runtime/settings.h"

const char *const cb_metric_names[] = {"busbw", "algbw", "time"};
const char *const cb_reference_names[CB_NREFS] = {"", "membw", "pairbw", "model", "healthy"};

/* Backends a file may name, built here or not: a preset for GPU clusters
 * must parse on a host without NCCL; --accept refuses unbuilt ones later. */
static const char *const known_backends[] = {"mpi", "nccl", "ucx", "verbs"};

static void copy_text(char *dst, size_t len, const char *src) {
  snprintf(dst, len, "%s", src);
}

/* A threshold: a topology quantity ("460 GB/s", "4.2 us"), or a share of a
 * reference measured at run time ("5% membw", "40% pairbw") or of the
 * model's figure ("80% model"; a time's only reference). `bandwidth` says
 * which family is expected. As cb_topo_quantity: 0, -1, -2. */
#define CB_LEVEL_MIN_PCT 0.01
#define CB_LEVEL_MAX_PCT 1000.0
/* "N% healthy": beyond half, the level fails most healthy systems */
#define CB_HEALTHY_MAX_PCT 50.0

static int threshold(const char *text, int bandwidth, struct cb_threshold *th) {
  double v;
  const char *end = cb_topo_number(text, &v);
  if (!end)
    return -1;
  th->set = 1;
  th->reference = CB_REF_NONE;
  if (*end != '%')
    return cb_topo_quantity(text, bandwidth, &th->value);
  end++;
  while (*end == ' ' || *end == '\t')
    end++;
  for (int r = CB_REF_MEMBW; r < CB_NREFS; r++)
    if ((bandwidth || r == CB_REF_MODEL || r == CB_REF_HEALTHY) &&
        strcmp(end, cb_reference_names[r]) == 0) {
      /* a hundredth of a percent to ten times the reference: beyond, a
       * typo (1e-300% model is a level nothing falls under) */
      if (v < CB_LEVEL_MIN_PCT || v > CB_LEVEL_MAX_PCT)
        return -3;
      if (r == CB_REF_HEALTHY && v > CB_HEALTHY_MAX_PCT)
        return -4;
      th->value = v / 100;
      th->reference = r;
      return 0;
    }
  return -1;
}

/* A [check] key that is not the check's own: a command-line option the
 * check takes (struct cb_check_reader), read by the option parser now, so
 * a bad value is refused with the file, and applied again per run. */
static int option_key(struct cb_accept_spec *s, const struct cb_topo_at *at, struct cb_check *c,
                      const char *key, const char *value) {
  static const char own[] = "op, backend, mem, dtype, transport, size, metric, variant, warn, "
                            "fail, ceiling, ceiling_fraction";
  int code = s->reader ? s->reader->find(key) : -1;
  if (code < 0) {
    char fmt[768];
    snprintf(fmt, sizeof fmt, "unknown key '%%s' (%s%s%s)", own, s->reader ? "; options: " : "",
             s->reader ? s->reader->names() : "");
    return cb_topo_bad(at, key, fmt, key);
  }
  if (c->noptions == CB_CHECK_MAX_OPTIONS)
    return cb_topo_bad(at, key, "'%s': a check takes at most " CB_CHECK_MAX_OPTIONS_TEXT " options",
                       value);
  struct cb_check_option *o = &c->options[c->noptions];
  if (strlen(value) >= sizeof o->value)
    return cb_topo_bad(at, key, "'%s' is too long", value);
  struct cb_settings scratch = {0};
  struct cb_error e = {0};
  if (s->reader->apply(code, value, &scratch, &e))
    return cb_topo_bad(at, key, "%s", e.msg);
  o->code = code;
  copy_text(o->key, sizeof o->key, key);
  copy_text(o->value, sizeof o->value, value);
  c->noptions++;
  c->reader = s->reader;
  return 1;
}

static int check_key(struct cb_accept_spec *s, const struct cb_topo_at *at, const char *key,
                     const char *value) {
  struct cb_check *c = &s->checks[s->nchecks - 1];
  if (strcmp(key, "op") == 0) {
    if ((c->op = cb_op_lookup(value)) < 0)
      return cb_topo_bad(at, key, "unknown op '%s'", value);
  } else if (strcmp(key, "backend") == 0) {
    c->backend_name = NULL;
    for (size_t i = 0; i < sizeof known_backends / sizeof known_backends[0]; i++)
      if (strcmp(value, known_backends[i]) == 0)
        c->backend_name = known_backends[i];
    if (!c->backend_name)
      return cb_topo_bad(at, key, "unknown backend '%s' (mpi, nccl, ucx, verbs)", value);
  } else if (strcmp(key, "mem") == 0) {
    if ((c->mem = cb_mem_lookup(value)) < 0)
      return cb_topo_bad(at, key, "unknown memory kind '%s' (host, pinned, device)", value);
  } else if (strcmp(key, "dtype") == 0) {
    if ((c->dtype = cb_dtype_lookup(value)) < 0)
      return cb_topo_bad(at, key, "unknown dtype '%s'", value);
  } else if (strcmp(key, "transport") == 0) {
    if (!*value || strlen(value) >= sizeof c->transport)
      return cb_topo_bad(at, key, "'%s' is not a transport name", value);
    copy_text(c->transport, sizeof c->transport, value);
  } else if (strcmp(key, "size") == 0) {
    struct cb_error size_err = {0};
    if (cb_parse_size(value, "size", &c->bytes, &size_err))
      return cb_topo_bad(at, key, "'%s' is not a size such as 8, 64K or 16G", value);
  } else if (strcmp(key, "metric") == 0) {
    c->metric = -1;
    for (int i = 0; i <= CB_METRIC_TIME; i++)
      if (strcmp(value, cb_metric_names[i]) == 0)
        c->metric = i;
    if (c->metric < 0)
      return cb_topo_bad(at, key, "unknown metric '%s' (busbw, algbw, time)", value);
  } else if (strcmp(key, "variant") == 0) {
    if (strcmp(value, "in-place") == 0)
      c->inplace = 1;
    else if (strcmp(value, "out-of-place") == 0)
      c->inplace = 0;
    else
      return cb_topo_bad(at, key, "'%s': expected out-of-place or in-place", value);
  } else if (strcmp(key, "warn") == 0 || strcmp(key, "fail") == 0) {
    /* The unit family follows the metric, so the metric must come first. */
    struct cb_threshold *th = key[0] == 'w' ? &c->warn : &c->fail;
    int bandwidth = c->metric != CB_METRIC_TIME, got = threshold(value, bandwidth, th);
    th->line = at->line;
    if (got == -2)
      return cb_topo_bad(at, key, cb_topo_range_text(bandwidth, 0), value);
    if (got == -3)
      return cb_topo_bad(at, key, "'%s' is out of range (0.01%% to 1000%% of what it refers to)",
                         value);
    if (got == -4)
      return cb_topo_bad(
          at, key, "'%s' is out of range: a share of healthy systems from 0.01%% to 50%%", value);
    if (got)
      return cb_topo_bad(
          at, key,
          bandwidth ? "'%s': expected a bandwidth (460 GB/s, 400 Gb/s), a fraction of "
                      "the measured memory or pair bandwidth (5%% membw, 40%% pairbw) or of the "
                      "model's figure (80%% model), or where a share of healthy systems measure "
                      "(1%% healthy); metric comes first"
                    : "'%s': expected a time such as 4.2 us, a multiple of the model's (150%% "
                      "model), or where a share of healthy systems measure (1%% healthy)",
          value);
  } else if (strcmp(key, "ceiling") == 0) {
    if (!*value || strlen(value) >= sizeof c->ceiling)
      return cb_topo_bad(at, key, "'%s' is not a tier name", value);
    copy_text(c->ceiling, sizeof c->ceiling, value);
  } else if (strcmp(key, "ceiling_fraction") == 0) {
    if (cb_topo_real(value, &c->ceiling_fraction) ||
        !(c->ceiling_fraction > 0 && c->ceiling_fraction <= 1))
      return cb_topo_bad(at, key, "'%s' is not a fraction over 0, at most 1", value);
  } else
    return option_key(s, at, c, key, value);
  return 1;
}

static int matrix_key(struct cb_accept_spec *s, const struct cb_topo_at *at, const char *key,
                      const char *value) {
  struct cb_matrix_rules *m = &s->matrix;
  if (strcmp(key, "size") == 0) {
    struct cb_error size_err = {0};
    if (cb_parse_size(value, "size", &m->bytes, &size_err))
      return cb_topo_bad(at, key, "'%s' is not a size such as 1M", value);
  } else if (strcmp(key, "bw_fraction") == 0) {
    if (cb_topo_real(value, &m->bw_fraction) || !(m->bw_fraction > 0 && m->bw_fraction < 1))
      return cb_topo_bad(at, key, "'%s': expected a fraction between 0 and 1, e.g. 0.9", value);
  } else if (strcmp(key, "lat_factor") == 0) {
    if (cb_topo_real(value, &m->lat_factor) || !(m->lat_factor > 1 && m->lat_factor < 1000))
      return cb_topo_bad(at, key, "'%s': expected a factor over 1, e.g. 2.1", value);
  } else
    return cb_topo_bad(at, key, "unknown key '%s' (size, bw_fraction, lat_factor)", key);
  return 1;
}

static int step_key(struct cb_accept_spec *s, const struct cb_topo_at *at, const char *key,
                    const char *value) {
  struct cb_step_check *c = &s->steps[s->nsteps - 1];
  struct cb_error e = {0};
  if (strcmp(key, "workload") == 0) {
    if (cb_model_preset(value, &c->model, &e))
      return cb_topo_bad(at, key, "unknown workload '%s' (tiny, gpt2-124m, gpt-1.3b, llama-7b)",
                         value);
    c->model_set = 1;
  } else if (strcmp(key, "workload_config") == 0) {
    if (!c->model_set)
      return cb_topo_bad(at, key, "'%s': workload comes first", value);
    if (cb_model_config_parse(value, &c->model, &e))
      return cb_topo_bad(at, key, "'%s': expected hidden=,layers=,heads=,seq=,batch=,dtype= values",
                         value);
  } else if (strcmp(key, "bucket") == 0) {
    if (cb_parse_size(value, "bucket", &c->bucket_bytes, &e))
      return cb_topo_bad(at, key, "'%s' is not a size such as 25M", value);
  } else if (strcmp(key, "ranks") == 0) {
    if (cb_topo_int(value, 1, 1 << 24, &c->ranks))
      return cb_topo_bad(at, key, "'%s' is not a rank count (1 or more)", value);
  } else if (strcmp(key, "reps") == 0) {
    if (cb_topo_int(value, 2, 10000, &c->reps))
      return cb_topo_bad(at, key, "'%s' is not a repetition count (2 to 10000)", value);
    c->reps_given = 1;
  } else if (strcmp(key, "limit") == 0) {
    if (cb_overhead_parse(value, "limit", &c->limit, &e))
      return cb_topo_bad(at, key, "'%s': expected a share of the step such as 20%% or 0.2", value);
  } else if (strcmp(key, "compute_time") == 0) {
    struct cb_threshold q;
    int got = threshold(value, 0, &q);
    if (got == -2)
      return cb_topo_bad(at, key, cb_topo_range_text(0, 0), value);
    if (got || q.reference != CB_REF_NONE)
      return cb_topo_bad(
          at, key, "'%s': expected the step's compute time on one GPU, such as 250 ms", value);
    c->compute_s = q.value;
  } else
    return cb_topo_bad(at, key,
                       "unknown key '%s' (workload, workload_config, bucket, ranks, reps, limit, "
                       "compute_time)",
                       key);
  return 1;
}

static int baseline_key(struct cb_accept_spec *s, const struct cb_topo_at *at, const char *key,
                        const char *value) {
  struct cb_baseline_rules *b = &s->baseline;
  struct cb_error e = {0};
  if (strcmp(key, "file") == 0) {
    if (!*value || strlen(value) >= sizeof b->file)
      return cb_topo_bad(at, key, "'%s': expected a file name", value);
    copy_text(b->file, sizeof b->file, value);
  } else if (strcmp(key, "k") == 0) {
    if (cb_topo_real(value, &b->k) || !(b->k >= 1 && b->k <= 100))
      return cb_topo_bad(at, key, "'%s': expected a z-score limit between 1 and 100, e.g. 5",
                         value);
  } else if (strcmp(key, "min_runs") == 0) {
    if (cb_parse_long(value, "min_runs", 2, 1000000, &b->min_runs, &e))
      return cb_topo_bad(at, key, "'%s': expected a count of 2 or more", value);
  } else if (strcmp(key, "repeat") == 0) {
    if (cb_parse_long(value, "repeat", 0, 100, &b->repeat, &e))
      return cb_topo_bad(at, key, "'%s': expected 0 to 100 re-measures", value);
  } else
    return cb_topo_bad(at, key, "unknown key '%s' (file, k, min_runs, repeat)", key);
  return 1;
}

/* A new [check NAME] or [step NAME] (kind) in its table of *n entries of
 * `size` bytes: the name not taken, room left; the entry zeroed, with its
 * name (which each kind's struct begins with). NULL after saying why. */
_Static_assert(offsetof(struct cb_check, name) == 0 && offsetof(struct cb_step_check, name) == 0,
               "new_named writes the name at the entry's start");
static void *new_named(const struct cb_topo_at *at, const char *kind, const char *name, void *table,
                       size_t size, int *n, int max) {
  char fmt[64];
  for (int i = 0; i < *n; i++)
    if (strcmp((const char *)table + i * size, name) == 0) {
      snprintf(fmt, sizeof fmt, "%s '%%s' is defined twice", kind);
      cb_topo_bad(at, "section", fmt, name);
      return NULL;
    }
  if (*n == max) {
    snprintf(fmt, sizeof fmt, "'%%s': too many %ss", kind);
    cb_topo_bad(at, "section", fmt, name);
    return NULL;
  }
  char *e = (char *)table + (size_t)(*n)++ * size;
  memset(e, 0, size);
  copy_text(e, CB_TOPO_NAME_MAX, name);
  return e;
}

void cb_baseline_rules_defaults(struct cb_baseline_rules *b) {
  if (!(b->k > 0))
    b->k = CB_BASELINE_K;
  if (!b->min_runs)
    b->min_runs = CB_BASELINE_MIN_N;
  if (b->repeat < 0)
    b->repeat = CB_BASELINE_REPEAT;
}

void cb_matrix_rules_defaults(struct cb_matrix_rules *m) {
  if (!m->bytes)
    m->bytes = 1 << 20;
  if (!m->bw_fraction)
    m->bw_fraction = 0.9; /* mpiGraph/ClusterKit practice: 0.9-0.93 of the typical pair */
  if (!m->lat_factor)
    m->lat_factor = 2.1; /* ClusterKit: over 2.1x the best latency */
}

double cb_threshold_value(const struct cb_threshold *th, const double *reference_Bps) {
  return th->reference == CB_REF_NONE ? th->value : th->value * reference_Bps[th->reference];
}

int cb_accept_spec_uses(const struct cb_accept_spec *s, int reference) {
  for (int i = 0; i < s->nchecks; i++)
    if (s->checks[i].fail.reference == reference || s->checks[i].warn.reference == reference)
      return 1;
  return 0;
}

enum { SINGLE_MATRIX = 1, SINGLE_BASELINE = 2 };

/* [check NAME], [step NAME] (or [step]), [matrix] or [baseline] begins. */
static int begin(void *user, const struct cb_topo_at *at, const char *section) {
  struct cb_accept_spec *s = user;
  const char *name = strchr(section, ' ');
  name = name ? name + 1 : "";
  int single = strcmp(section, "matrix") == 0     ? SINGLE_MATRIX
               : strcmp(section, "baseline") == 0 ? SINGLE_BASELINE
                                                  : 0;
  if (single && s->singles & single)
    return cb_topo_bad(at, "section", "[%s] is given twice; write its keys in one section",
                       section);
  if (single) {
    s->singles |= single;
    s->matrix.set |= single == SINGLE_MATRIX;
    s->baseline.set |= single == SINGLE_BASELINE;
    return 1;
  }
  int is_check = strncmp(section, "check ", 6) == 0;
  int is_step = strcmp(section, "step") == 0 || strncmp(section, "step ", 5) == 0;
  if (!is_check && !is_step)
    return -1;
  if (strcmp(section, "step") == 0)
    name = "step";
  if (!cb_topo_section_name(at, name))
    return 0;
  if (is_step) {
    struct cb_step_check *c =
        new_named(at, "step", name, s->steps, sizeof *s->steps, &s->nsteps, CB_ACCEPT_MAX_STEPS);
    if (!c)
      return 0;
    c->line = at->line;
    c->bucket_bytes = 25u << 20; /* PyTorch DDP's bucket_cap_mb default */
    c->reps = 10;
    return 1;
  }
  struct cb_check *c =
      new_named(at, "check", name, s->checks, sizeof *s->checks, &s->nchecks, CB_ACCEPT_MAX_CHECKS);
  if (!c)
    return 0;
  c->line = at->line;
  c->op = c->metric = -1;
  c->mem = cb_mem_lookup("host");
  c->dtype = cb_dtype_lookup("float");
  copy_text(c->transport, sizeof c->transport, "auto");
  return 1;
}

/* [step]'s old keys (issue 44: "model" is the performance model's word):
 * read as the new ones, and said once (renamed) */
static const char *key_name(void *user, const struct cb_topo_at *at, const char *key) {
  struct cb_accept_spec *s = user;
  static const char *const renames[][2] = {{"model", "workload"},
                                           {"model_config", "workload_config"}};
  for (size_t i = 0; strncmp(at->section, "step", 4) == 0 && i < 2; i++)
    if (strcmp(key, renames[i][0]) == 0) {
      if (!s->renamed[0])
        snprintf(s->renamed, sizeof s->renamed,
                 "%s:%d: [%s] %s is now %s (the old name works for this release)", at->file,
                 at->line, at->section, key, renames[i][1]);
      return renames[i][1];
    }
  return key;
}

static int on_key(void *user, const struct cb_topo_at *at, const char *key, const char *value) {
  struct cb_accept_spec *s = user;
  if (strcmp(at->section, "matrix") == 0)
    return matrix_key(s, at, key, value);
  if (strcmp(at->section, "baseline") == 0)
    return baseline_key(s, at, key, value);
  if (strncmp(at->section, "step", 4) == 0)
    return step_key(s, at, key, value);
  return check_key(s, at, key, value);
}

/* The whole file read: each check and step complete and consistent. */
static int finish(void *user, const struct cb_topology *t, struct cb_error *err) {
  struct cb_accept_spec *s = user;
  const char *file = t->path;
  for (int i = 0; i < s->nchecks; i++) {
    struct cb_check *c = &s->checks[i];
    const char *missing = c->op < 0          ? "op"
                          : !c->backend_name ? "backend"
                          : !c->bytes        ? "size"
                          : c->metric < 0    ? "metric"
                          : !c->fail.set     ? "fail"
                                             : NULL;
    if (missing)
      return cb_fail(err, CB_USAGE, "%s:%d: [check %s]: key '%s' is missing", file, c->line,
                     c->name, missing);
    if (c->ceiling[0] && (c->ceiling_tier = cb_topology_find_tier(t, c->ceiling)) < 0)
      return cb_fail(err, CB_USAGE, "%s:%d: [check %s]: ceiling '%s' names no [tier] of the file",
                     file, c->line, c->name, c->ceiling);
    if (c->ceiling[0] && c->metric == CB_METRIC_TIME)
      return cb_fail(err, CB_USAGE,
                     "%s:%d: [check %s]: a ceiling is a bandwidth, and the metric is time", file,
                     c->line, c->name);
    if (!c->ceiling[0] && c->ceiling_fraction > 0)
      return cb_fail(err, CB_USAGE, "%s:%d: [check %s]: ceiling_fraction without a ceiling", file,
                     c->line, c->name);
    if (!(c->ceiling_fraction > 0))
      c->ceiling_fraction = CB_CEILING_FRACTION;
    /* A warn level must be the stricter one, or it could never fire. */
    if (c->warn.set && c->warn.reference == c->fail.reference &&
        (c->metric == CB_METRIC_TIME ? c->warn.value > c->fail.value
                                     : c->warn.value < c->fail.value))
      return cb_fail(err, CB_USAGE,
                     "%s:%d: [check %s]: warn is beyond fail (warn must be the stricter level)",
                     file, c->line, c->name);
  }
  for (int i = 0; i < s->nsteps; i++) {
    const struct cb_step_check *c = &s->steps[i];
    const char *missing = !c->model_set ? "workload" : !(c->limit > 0) ? "limit" : NULL;
    if (missing)
      return cb_fail(err, CB_USAGE, "%s:%d: [step %s]: key '%s' is missing", file, c->line, c->name,
                     missing);
  }
  cb_matrix_rules_defaults(&s->matrix);
  if (s->baseline.set && !s->baseline.file[0])
    return cb_fail(err, CB_USAGE, "%s: [baseline] needs file = BASELINE.json", file);
  cb_baseline_rules_defaults(&s->baseline);
  if (cb_accept_spec_uses(s, CB_REF_PAIRBW) && !s->matrix.set)
    return cb_fail(err, CB_USAGE,
                   "%s: a threshold is relative to pairbw, the matrix's median pair bandwidth, "
                   "but there is no [matrix] section",
                   file);
  return CB_OK;
}

const struct cb_topo_part *cb_accept_spec_part(struct cb_accept_spec *s, struct cb_topo_part *part,
                                               const struct cb_check_reader *reader) {
  memset(s, 0, sizeof *s);
  s->reader = reader;
  s->baseline.repeat = -1; /* not given */
  *part = (struct cb_topo_part){.user = s,
                                .sections = "[check NAME], [step NAME], [matrix] or [baseline]",
                                .begin = begin,
                                .key_name = key_name,
                                .key = on_key,
                                .finish = finish};
  return part;
}

int cb_accept_spec_parse(const char *text, const char *name, struct cb_accept_spec *s,
                         const struct cb_check_reader *reader, struct cb_error *err) {
  struct cb_topo_part part;
  return cb_topology_parse(text, name, &s->system, cb_accept_spec_part(s, &part, reader), err);
}

int cb_accept_spec_load(const char *path, struct cb_accept_spec *s,
                        const struct cb_check_reader *reader, struct cb_error *err) {
  struct cb_topo_part part;
  return cb_topology_load(path, &s->system, cb_accept_spec_part(s, &part, reader), err);
}

int cb_accept_spec_baseline(struct cb_accept_spec *s, const char *given, long repeat,
                            struct cb_baseline *out, struct cb_error *err) {
  const char *file = s->system.path, *slash = strrchr(file, '/');
  char path[2 * CB_TOPO_TEXT_MAX];
  if (repeat >= 0)
    s->baseline.repeat = repeat;
  if (given)
    snprintf(path, sizeof path, "%s", given);
  else if (!s->baseline.file[0] || s->baseline.file[0] == '/' || !slash)
    snprintf(path, sizeof path, "%s", s->baseline.file);
  else
    snprintf(path, sizeof path, "%.*s/%s", (int)(slash - file), file, s->baseline.file);
  if (!path[0])
    return repeat >= 0 ? cb_fail(err, CB_USAGE,
                                 "--repeat %ld goes with a baseline (--baseline FILE, or "
                                 "[baseline] in %s)",
                                 repeat, file)
                       : CB_OK;
  const char *opt = given ? "--baseline" : "[baseline] file";
  if (cb_baseline_load(opt, path, out, err))
    return err->status;
  int shared = 0;
  for (int i = 0; i < out->nentries; i++) {
    const struct cb_bl_entry *e = &out->entries[i];
    shared |= e->kind != CB_BL_RESULT && s->matrix.set;
    for (int c = 0; c < s->nchecks && e->kind == CB_BL_RESULT; c++)
      shared |= !strcmp(e->op, cb_ops[s->checks[c].op]->name) &&
                !strcmp(e->backend, s->checks[c].backend_name) &&
                !strcmp(e->mem, cb_mem_names[s->checks[c].mem]) &&
                !strcmp(e->dtype, cb_dtypes[s->checks[c].dtype].name);
  }
  if (!shared) {
    char has[512];
    cb_baseline_summary(out, has, sizeof has);
    cb_baseline_free(out);
    return cb_fail(err, CB_USAGE,
                   "%s %s: nothing in it for the checks of %s (it holds %s): a baseline of "
                   "another op set?",
                   opt, path, file, has);
  }
  return CB_OK;
}
