/* The --trials file: setup, one line per configuration measured, the summary; and --resume's
 * reading of it (trials.h says more). */
#include "trials.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/readbound.h"
#include "config.h"

#if CB_HAVE_JANSSON
#include <jansson.h>

#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(9))

static int remember(struct cb_trials *t, const struct cb_trial *tr) {
  struct cb_trial *c = realloc(t->cache, (size_t)(t->ncache + 1) * sizeof *c);
  if (!c)
    return 0;
  t->cache = c;
  t->cache[t->ncache++] = *tr;
  return 1;
}

static int parse_trial(json_t *j, struct cb_trial *tr) {
  json_int_t batch, alg, seg, bucket, proto = 0, ctas = 0;
  double med, ci;
  /* protocol and ctas (nccl) are absent from host trials */
  if (json_unpack(j, "{s:I, s:I, s:I, s:I, s:F, s:F, s?:I, s?:I}", "batch", &batch, "algorithm",
                  &alg, "segsize", &seg, "bucket_bytes", &bucket, "t_step_us", &med, "ci95_us", &ci,
                  "protocol", &proto, "ctas", &ctas))
    return 0;
  *tr = (struct cb_trial){(int)batch,
                          {(int)alg, (long)seg, (uint64_t)bucket, (int)proto, (int)ctas},
                          {med * 1e-6, ci * 1e-6}};
  return 1;
}

/* One whole line (cb_lines: never torn). */
static int put_line(struct cb_trials *t, json_t *j, struct cb_error *err) {
  return cb_lines_put_text(&t->out, json_dumps(j, DUMP_FLAGS), err);
}

/* Reads an earlier file: its setup must match; returns the valid lines
 * (to be written back) in `keep`. Anything but a trials file (a --json
 * results file, say) is refused whole: its lines would be dropped. */
static int load(struct cb_trials *t, FILE *f, json_t *setup, json_t *keep, struct cb_error *err) {
  char *line = NULL;
  size_t cap = 0;
  long len;
  int lineno = 0, rc = CB_OK;
  while (rc == CB_OK && (len = cb_read_line(f, &line, &cap)) > 0) {
    lineno++;
    int torn = line[len - 1] != '\n';
    json_error_t je;
    json_t *j = json_loadb(line, (size_t)len, 0, &je);
    const char *type = j ? json_string_value(json_object_get(j, "type")) : NULL;
    struct cb_trial tr;
    if (!j || !type) {
      if (!torn) /* a killed run leaves at most a torn last line */
        rc = cb_fail(err, CB_USAGE, "--resume: %s:%d: not a trials line", t->path, lineno);
    } else if (lineno == 1 && strcmp(type, "tune") != 0) {
      rc = cb_fail(err, CB_USAGE,
                   "--resume: %s: not a trials file (its first line is a '%.32s' line, not "
                   "'tune'); nothing was changed",
                   t->path, type);
    } else if (strcmp(type, "tune") == 0) {
      if (!json_equal(json_object_get(j, "setup"), setup))
        rc = cb_fail(err, CB_USAGE,
                     "--resume: %s:%d was written for another setup (model, ranks, search "
                     "space or repetitions differ): use a new --trials file",
                     t->path, lineno);
      json_array_append(keep, j);
    } else if (strcmp(type, "trial") == 0) {
      if (!parse_trial(j, &tr))
        rc = cb_fail(err, CB_USAGE, "--resume: %s:%d: a trial without its fields", t->path, lineno);
      else if (!remember(t, &tr))
        rc = cb_fail(err, CB_RUNTIME, "out of memory reading %s", t->path);
      json_array_append(keep, j);
    } else if (strcmp(type, "summary") != 0) { /* an old summary is dropped: a new one follows */
      rc = cb_fail(err, CB_USAGE, "--resume: %s:%d: a '%.32s' line: not a trials file", t->path,
                   lineno, type);
    }
    json_decref(j);
  }
  if (rc == CB_OK && len == CB_READ_NOMEM)
    rc = cb_fail(err, CB_RUNTIME, "out of memory reading %s", t->path);
  if (rc == CB_OK && len == CB_READ_LONG)
    rc = cb_fail(err, CB_USAGE, "--resume: %s:%d: a line longer than %d MiB: not a trials file",
                 t->path, lineno + 1, CB_MAX_LINE >> 20);
  else if (rc == CB_OK && ferror(f))
    rc = cb_fail(err, CB_USAGE, "--resume: cannot read '%s': %s", t->path, strerror(errno));
  free(line);
  return rc;
}

int cb_trials_open(struct cb_trials *t, const char *path, int resume, const char *setup_text,
                   struct cb_error *err) {
  memset(t, 0, sizeof *t);
  t->path = path;
  json_error_t je;
  json_t *setup = json_loads(setup_text, 0, &je), *keep = json_array();
  if (!setup || !keep) {
    json_decref(setup), json_decref(keep);
    return cb_fail(err, CB_RUNTIME, "trials: bad setup text");
  }
  FILE *old = resume ? fopen(path, "r") : NULL;
  int rc = CB_OK;
  if (resume && !old && errno != ENOENT)
    rc = cb_fail(err, CB_USAGE, "--resume: cannot read '%s': %s", path, strerror(errno));
  else if (old)
    rc = load(t, old, setup, keep, err);
  if (old)
    fclose(old);
  /* said, not silent: a mistyped --trials name would otherwise start over */
  if (rc == CB_OK && resume && json_array_size(keep) == 0)
    fprintf(stderr, "collbench: --resume: %s %s: starting a fresh search\n", path,
            old ? "holds no trials" : "does not exist");
  if (rc == CB_OK && cb_lines_open(&t->out, path, "--trials", err) == CB_OK) {
    t->open = 1;
    rc = cb_lines_start(&t->out, err);
  } else {
    rc = err->status;
  }
  if (rc == CB_OK) {
    if (json_array_size(keep) == 0) {
      json_t *head = json_pack("{s:s, s:O}", "type", "tune", "setup", setup);
      json_array_append_new(keep, head);
    }
    size_t i;
    json_t *j;
    json_array_foreach(keep, i, j) {
      if (rc == CB_OK)
        rc = put_line(t, j, err);
    }
  }
  json_decref(setup);
  json_decref(keep);
  return rc;
}

int cb_trials_add(struct cb_trials *t, int batch, const char *phase,
                  const struct cb_tune_config *cfg, const struct cb_score *score, int reps,
                  struct cb_error *err) {
  struct cb_trial tr = {batch, *cfg, *score};
  remember(t, &tr);
  if (!t->open)
    return CB_OK;
  json_t *j =
      json_pack("{s:s, s:i, s:s, s:i, s:I, s:I, s:f, s:f, s:i}", "type", "trial", "batch", batch,
                "phase", phase, "algorithm", cfg->algorithm, "segsize", (json_int_t)cfg->segsize,
                "bucket_bytes", (json_int_t)cfg->bucket_bytes, "t_step_us", score->median * 1e6,
                "ci95_us", score->ci95 * 1e6, "reps", reps);
  if (cfg->protocol || cfg->ctas) {
    json_object_set_new(j, "protocol", json_integer(cfg->protocol));
    json_object_set_new(j, "ctas", json_integer(cfg->ctas));
  }
  int rc = put_line(t, j, err); /* a killed run leaves whole lines for --resume */
  json_decref(j);
  return rc;
}

#else /* no jansson: --trials is refused by the CLI */

int cb_trials_open(struct cb_trials *t, const char *path, int resume, const char *setup,
                   struct cb_error *err) {
  (void)resume, (void)setup;
  memset(t, 0, sizeof *t);
  return cb_fail(err, CB_USAGE, "--trials %s: this collbench was built without jansson", path);
}

int cb_trials_add(struct cb_trials *t, int batch, const char *phase,
                  const struct cb_tune_config *cfg, const struct cb_score *score, int reps,
                  struct cb_error *err) {
  (void)t, (void)batch, (void)phase, (void)cfg, (void)score, (void)reps, (void)err;
  return CB_OK;
}

#endif

int cb_trials_find(const struct cb_trials *t, int batch, const struct cb_tune_config *cfg,
                   struct cb_score *score) {
  for (int i = 0; i < t->ncache; i++)
    if (t->cache[i].batch == batch && cb_config_equal(&t->cache[i].cfg, cfg)) {
      *score = t->cache[i].score;
      return 1;
    }
  return 0;
}

int cb_trials_line(struct cb_trials *t, const char *json, struct cb_error *err) {
  if (!t->open)
    return CB_OK;
  size_t len = strlen(json);
  char *line = malloc(len + 1);
  if (!line)
    return cb_fail(err, CB_RUNTIME, "--trials: out of memory writing '%s'", t->path);
  memcpy(line, json, len);
  line[len] = '\n';
  int rc = cb_lines_put(&t->out, line, len + 1, err);
  free(line);
  return rc;
}

int cb_trials_close(struct cb_trials *t, struct cb_error *err) {
  int rc = t->open ? cb_lines_close(&t->out, err) : CB_OK;
  free(t->cache);
  memset(t, 0, sizeof *t);
  return rc;
}
