/* Continuing a burn-in from its --json file (resume.h). */
#define _DEFAULT_SOURCE /* timegm */
#include "resume.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  char a[96] = "", b[96] = "";
  if (key) {
    char *x = json_dumps(json_object_get(cfg, key), JSON_ENCODE_ANY | JSON_COMPACT);
    char *y = json_dumps(json_object_get(mine, key), JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(a, sizeof a, "%s", x ? x : "null");
    snprintf(b, sizeof b, "%s", y ? y : "null");
    free(x), free(y);
  }
  json_decref(mine);
  if (key)
    return cb_fail(err, CB_USAGE,
                   "--resume: %s was another configuration: its %s is %s, this run's %s (give the "
                   "command line it was started with)",
                   path, key, a, b);
  return CB_OK;
}

static int read_file(const struct cb_cluster *cl, const struct cb_settings *s, const char *path,
                     struct cb_burnin_prior *p, struct cb_error *err) {
  FILE *f = fopen(path, "r");
  if (!f)
    return cb_fail(err, CB_USAGE, "--resume: cannot read '%s' (the burn-in's --json file): %s",
                   path, strerror(errno));
  json_t *lines = json_array();
  char *line = NULL;
  size_t cap = 0;
  int lineno = 0, bad_at = 0, rc = CB_OK;
  double last_start = 0;
  while (rc == CB_OK && getline(&line, &cap, f) > 0) {
    lineno++;
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    const char *type = json_string_value(json_object_get(o, "type"));
    if (!o || !type) {
      /* a line cut by the interruption can only be the last: dropped */
      json_decref(o);
      if (lineno == 1)
        rc = cb_fail(err, CB_USAGE, "--resume: %s: its first line is not a run record", path);
      bad_at = bad_at ? bad_at : lineno;
      continue;
    }
    if (bad_at) {
      json_decref(o);
      rc = cb_fail(err, CB_USAGE, "--resume: %s:%d is not a JSON line (only the last may be cut)",
                   path, bad_at);
      break;
    }
    if (lineno == 1 && strcmp(type, "run") != 0)
      rc = cb_fail(err, CB_USAGE, "--resume: %s: its first line is not a run record", path);
    else if (lineno == 1)
      rc = check_run(cl, s, path, o, err);
    else if (strcmp(type, "result") == 0 &&
             json_integer_value(json_object_get(o, "interval")) > 0) {
      int k = (int)json_integer_value(json_object_get(o, "interval"));
      double t = cb_utc_parse(json_string_value(json_object_get(o, "interval_start")));
      if (t < 0)
        rc = cb_fail(err, CB_USAGE, "--resume: %s:%d: a result without its interval's start", path,
                     lineno);
      if (!p->records || t < p->first_start)
        p->first_start = t;
      if (k > p->last_interval)
        p->last_interval = k, last_start = t;
      p->records++;
      json_array_append(lines, o);
    } else if (strcmp(type, "verdict") == 0 && !json_is_true(json_object_get(o, "partial")))
      rc = cb_fail(err, CB_USAGE,
                   "--resume: %s:%d: the burn-in ended already (its verdicts are written)", path,
                   lineno);
    json_decref(o);
  }
  free(line);
  fclose(f);
  if (rc == CB_OK && lineno == 0)
    rc = cb_fail(err, CB_USAGE, "--resume: %s is empty", path);
  if (rc) {
    json_decref(lines);
    return rc;
  }
  p->lines = lines;
  /* the first part measured from its first interval's start to the last's
   * end; an interval lasts about the mean gap between starts */
  double span = last_start - p->first_start;
  p->measured_s = p->last_interval > 1 ? span * p->last_interval / (p->last_interval - 1) : 0;
  return CB_OK;
}

int cb_burnin_resume_read(const struct cb_cluster *cl, const struct cb_settings *s,
                          const char *path, struct cb_burnin_prior *p, struct cb_error *err) {
  memset(p, 0, sizeof *p);
  int rc = cl->rank == 0 ? read_file(cl, s, path, p, err) : CB_OK;
  if (cb_cluster_agree(cl, rc) != CB_OK)
    return rc ? rc : cb_fail(err, CB_USAGE, "--resume: rank 0 refused '%s'", path);
  /* every rank needs where the first part stopped */
  double d[3] = {p->last_interval, p->first_start, p->measured_s};
  MPI_Bcast(d, 3, MPI_DOUBLE, 0, cl->comm);
  p->last_interval = (int)d[0], p->first_start = d[1], p->measured_s = d[2];
  return CB_OK;
}

int cb_burnin_resume_load(const struct cb_burnin_prior *p, struct cb_burnin_store *b) {
  json_t *lines = p->lines;
  size_t i;
  json_t *o;
  json_array_foreach(lines, i, o) {
    struct cb_record r;
    if (cb_record_from_json(o, &r))
      continue; /* not one of ours: the reader names the field */
    if (cb_burnin_add(b, &r, r.interval_start - p->first_start))
      return -1;
  }
  return 0;
}

void cb_burnin_resume_free(struct cb_burnin_prior *p) {
  json_decref(p->lines);
  p->lines = NULL;
}

#else

int cb_burnin_resume_read(const struct cb_cluster *cl, const struct cb_settings *s,
                          const char *path, struct cb_burnin_prior *p, struct cb_error *err) {
  (void)cl, (void)s, (void)p;
  return cb_fail(err, CB_USAGE, "--resume %s: this collbench was configured without a JSON library",
                 path);
}
int cb_burnin_resume_load(const struct cb_burnin_prior *p, struct cb_burnin_store *b) {
  (void)p, (void)b;
  return 0;
}
void cb_burnin_resume_free(struct cb_burnin_prior *p) {
  (void)p;
}

#endif
