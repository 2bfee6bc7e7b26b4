/* Continuing a burn-in from its --json file (resume.h). */
#define _DEFAULT_SOURCE /* timegm */
#include "resume.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/readbound.h"
#include "base/timer.h"
#include "config.h"
#include "output/columns.h"
#include "output/sink.h"

#if CB_HAVE_JANSSON
#include <jansson.h>

/* The first key of `want` whose value differs in `got`, or NULL. */
static const char *differs(json_t *want, json_t *got) {
  const char *key;
  json_t *v;
  json_object_foreach(want, key, v) {
    if (!json_equal(v, json_object_get(got, key)))
      return key;
  }
  return NULL;
}

static int check_run(const struct cb_cluster *cl, const struct cb_settings *s, const char *path,
                     json_t *run, struct cb_error *err) {
  json_t *cfg = json_object_get(run, "burnin");
  const char *v = json_string_value(json_object_get(run, "collbench_version"));
  if (!json_is_object(cfg))
    return cb_fail(err, CB_USAGE, "--resume: %s: its run record is not a burn-in's (--duration)",
                   path);
  if (!v || strcmp(v, CB_VERSION) != 0)
    return cb_fail(err, CB_USAGE, "--resume: %s was written by collbench %s, this is %s", path,
                   v ? v : "(unknown)", CB_VERSION);
  json_t *hosts = json_object_get(run, "hostnames");
  int same = json_is_array(hosts) && (int)json_array_size(hosts) == cl->nnodes &&
             json_integer_value(json_object_get(run, "nranks")) == cl->nranks;
  for (int n = 0; same && n < cl->nnodes; n++)
    same = json_is_string(json_array_get(hosts, (size_t)n)) &&
           strcmp(json_string_value(json_array_get(hosts, (size_t)n)), cl->node_names[n]) == 0;
  if (!same)
    return cb_fail(err, CB_USAGE,
                   "--resume: %s was measured on other nodes or ranks (%d ranks on %s%s); this "
                   "run has %d ranks on %s%s",
                   path, (int)json_integer_value(json_object_get(run, "nranks")),
                   json_is_string(json_array_get(hosts, 0))
                       ? json_string_value(json_array_get(hosts, 0))
                       : "?",
                   json_array_size(hosts) > 1 ? ",..." : "", cl->nranks, cl->node_names[0],
                   cl->nnodes > 1 ? ",..." : "");
  json_t *mine = cb_burnin_config_json(s);
  const char *key = differs(mine, cfg);
  char k[64] = "", a[96] = "", b[96] = "";
  if (key) { /* copied out: the key lives in `mine` */
    char *x = json_dumps(json_object_get(cfg, key), JSON_ENCODE_ANY | JSON_COMPACT);
    char *y = json_dumps(json_object_get(mine, key), JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(k, sizeof k, "%s", key);
    snprintf(a, sizeof a, "%s", x ? x : "null");
    snprintf(b, sizeof b, "%s", y ? y : "null");
    free(x), free(y);
  }
  json_decref(mine);
  if (k[0])
    return cb_fail(err, CB_USAGE,
                   "--resume: %s was another configuration: its %s is %s, this run's %s (give the "
                   "command line it was started with)",
                   path, k, a, b);
  return CB_OK;
}

/* One result line into the store (t absolute for now); CB_OK or CB_USAGE. */
static int take_result(const char *path, int lineno, json_t *o, struct cb_burnin_prior *p,
                       struct cb_error *err) {
  json_t *iv = json_object_get(o, "interval");
  json_int_t k = json_integer_value(iv);
  if (!json_is_integer(iv) || k < 1 || k > CB_BURNIN_MAX_INTERVAL)
    return cb_fail(err, CB_USAGE,
                   "--resume: %s:%d: a result whose interval is not 1 to %d (a burn-in numbers "
                   "its intervals from 1)",
                   path, lineno, CB_BURNIN_MAX_INTERVAL);
  struct cb_record r;
  const char *bad = cb_record_from_json(o, &r);
  if (bad)
    return cb_fail(err, CB_USAGE, "--resume: %s:%d: a result whose \"%s\" is missing or not valid",
                   path, lineno, bad);
  double t = cb_utc_parse(json_string_value(json_object_get(o, "interval_start")));
  if (t < 0)
    return cb_fail(err, CB_USAGE, "--resume: %s:%d: a result without its interval's start", path,
                   lineno);
  if (!p->records || t < p->first_start)
    p->first_start = t;
  if (k > p->last_interval)
    p->last_interval = (int)k;
  p->records++;
  int cases = p->store.n;
  if (cb_burnin_add(&p->store, &r, t))
    return cb_fail(err, CB_RUNTIME, "--resume: %s: out of memory at line %d", path, lineno);
  /* a new case keeps its line: its first record's strings point into it */
  if (p->store.n > cases)
    json_array_append(p->firsts, o);
  return CB_OK;
}

/* Each line's check, in order; CB_OK or the refusal naming the line. */
static int take_line(const struct cb_cluster *cl, const struct cb_settings *s, const char *path,
                     int lineno, const char *line, struct cb_burnin_prior *p,
                     struct cb_error *err) {
  json_error_t je;
  json_t *o = json_loads(line, 0, &je);
  const char *type = json_string_value(json_object_get(o, "type"));
  int rc = CB_OK;
  if ((!o || !type) && lineno == 1)
    rc = cb_fail(err, CB_USAGE, "--resume: %s: its first line is not a run record", path);
  else if (!o || !type)
    rc = cb_fail(err, CB_USAGE,
                 "--resume: %s:%d is not a JSON line of collbench's (only an unterminated last "
                 "line, cut by a kill, may be dropped): the file was changed since; nothing is "
                 "written",
                 path, lineno);
  else if (lineno == 1 && strcmp(type, "run") != 0)
    rc = cb_fail(err, CB_USAGE, "--resume: %s: its first line is not a run record", path);
  else if (lineno == 1)
    rc = check_run(cl, s, path, o, err);
  else if (strcmp(type, "result") == 0)
    rc = take_result(path, lineno, o, p, err);
  else if (strcmp(type, "verdict") == 0 && !json_is_true(json_object_get(o, "partial")))
    rc = cb_fail(err, CB_USAGE,
                 "--resume: %s:%d: the burn-in ended already (its verdicts are written)", path,
                 lineno);
  json_decref(o);
  return rc;
}

int cb_burnin_resume_parse(const struct cb_cluster *cl, const struct cb_settings *s,
                           const char *path, struct cb_burnin_prior *p, struct cb_error *err) {
  memset(p, 0, sizeof *p);
  FILE *f = fopen(path, "r");
  if (!f)
    return cb_fail(err, CB_USAGE, "--resume: cannot read '%s' (the burn-in's --json file): %s",
                   path, strerror(errno));
  p->firsts = json_array();
  char *line = NULL;
  size_t cap = 0;
  long len = 0;
  int lineno = 0, rc = CB_OK;
  while (rc == CB_OK && (len = cb_read_line(f, &line, &cap)) > 0) {
    lineno++;
    if (line[len - 1] != '\n') { /* the last, cut by a kill: the continuation cuts it too */
      p->cut_line = lineno;
      break;
    }
    rc = take_line(cl, s, path, lineno, line, p, err);
  }
  if (rc == CB_OK && len == CB_READ_NOMEM)
    rc = cb_fail(err, CB_RUNTIME, "out of memory reading %s", path);
  if (rc == CB_OK && len == CB_READ_LONG)
    rc =
        cb_fail(err, CB_USAGE, "--resume: %s:%d: a line longer than %d bytes: not a burn-in's file",
                path, lineno + 1, CB_MAX_LINE);
  if (rc == CB_OK && ferror(f))
    rc = cb_fail(err, CB_USAGE, "--resume: cannot read '%s': %s", path, strerror(errno));
  free(line);
  fclose(f);
  if (rc == CB_OK && lineno == 0)
    rc = cb_fail(err, CB_USAGE, "--resume: %s is empty", path);
  if (rc == CB_OK && p->cut_line == 1)
    rc = cb_fail(err, CB_USAGE, "--resume: %s: its first line is not a run record", path);
  if (rc == CB_OK && p->last_interval >= CB_BURNIN_MAX_INTERVAL)
    rc =
        cb_fail(err, CB_USAGE, "--resume: %s: the burn-in reached interval %d, the last it numbers",
                path, p->last_interval);
  if (rc)
    return rc;
  /* the time axis: seconds from the first interval's start */
  double last_start = p->first_start;
  for (int i = 0; i < p->store.n; i++)
    for (int j = 0; j < p->store.s[i].n; j++) {
      struct cb_burnin_point *q = &p->store.s[i].p[j];
      if (q->interval == p->last_interval && q->t > last_start)
        last_start = q->t;
      q->t -= p->first_start;
    }
  /* the first part measured from its first interval's start to the last's
   * end; an interval lasts about the mean gap between starts */
  double span = last_start - p->first_start;
  p->measured_s = p->last_interval > 1 ? span * p->last_interval / (p->last_interval - 1) : 0;
  return CB_OK;
}

int cb_burnin_resume_read(const struct cb_cluster *cl, const struct cb_settings *s,
                          const char *path, struct cb_burnin_prior *p, struct cb_error *err) {
  memset(p, 0, sizeof *p);
  int rc = cl->rank == 0 ? cb_burnin_resume_parse(cl, s, path, p, err) : CB_OK;
  if (rc)
    cb_burnin_resume_free(p);
  if (cb_cluster_agree(cl, rc) != CB_OK)
    return rc ? rc : cb_fail(err, CB_USAGE, "--resume: rank 0 refused '%s'", path);
  /* every rank needs where the first part stopped */
  double d[3] = {p->last_interval, p->first_start, p->measured_s};
  MPI_Bcast(d, 3, MPI_DOUBLE, 0, cl->comm);
  p->last_interval = (int)d[0], p->first_start = d[1], p->measured_s = d[2];
  return CB_OK;
}

void cb_burnin_resume_load(struct cb_burnin_prior *p, struct cb_burnin_store *b) {
  *b = p->store;
  memset(&p->store, 0, sizeof p->store);
}

void cb_burnin_resume_free(struct cb_burnin_prior *p) {
  cb_burnin_free(&p->store);
  json_decref(p->firsts);
  p->firsts = NULL;
}

#else

int cb_burnin_resume_parse(const struct cb_cluster *cl, const struct cb_settings *s,
                           const char *path, struct cb_burnin_prior *p, struct cb_error *err) {
  (void)cl, (void)s;
  memset(p, 0, sizeof *p);
  return cb_fail(err, CB_USAGE, "--resume %s: this collbench was configured without a JSON library",
                 path);
}

int cb_burnin_resume_read(const struct cb_cluster *cl, const struct cb_settings *s,
                          const char *path, struct cb_burnin_prior *p, struct cb_error *err) {
  return cb_burnin_resume_parse(cl, s, path, p, err);
}
void cb_burnin_resume_load(struct cb_burnin_prior *p, struct cb_burnin_store *b) {
  (void)p, (void)b;
}
void cb_burnin_resume_free(struct cb_burnin_prior *p) {
  (void)p;
}

#endif
