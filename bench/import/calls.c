/* --calls: a job's collectives measured here (calls.h says how). */
#include "calls.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/op.h"

static int fits(const struct cb_cluster *cl, const struct cb_call *r) {
  return r->known && r->nranks == cl->nranks; /* known: r->op is collbench's */
}

int cb_calls_fit(const struct cb_cluster *cl, const struct cb_calls *c, const char *path,
                 struct cb_error *err) {
  char ranks[128] = "";
  for (int i = 0; i < c->n; i++) {
    if (fits(cl, &c->v[i]))
      return CB_OK;
    char one[16];
    snprintf(one, sizeof one, "%d", c->v[i].nranks);
    if (!strstr(ranks, one) && strlen(ranks) + strlen(one) + 3 < sizeof ranks)
      snprintf(ranks + strlen(ranks), sizeof ranks - strlen(ranks), "%s%s", ranks[0] ? ", " : "",
               one);
  }
  return cb_fail(err, CB_USAGE,
                 "--calls %s: no call collbench can measure was made on %d ranks (its calls were "
                 "on %s); launch as many ranks as the communicator had",
                 path, cl->nranks, ranks);
}

int cb_calls_measure(const struct cb_cluster *cl, const struct cb_settings *s,
                     const struct cb_calls *c, const struct cb_run_info *ri, struct cb_sink *sinks,
                     int nsinks, long *wrong, struct cb_error *err) {
  struct cb_sink all[16];
  double time_us = NAN; /* each row's, for the totals */
  if (nsinks >= 16)
    return cb_fail(err, CB_RUNTIME, "--calls: too many outputs");
  memcpy(all, sinks, (size_t)nsinks * sizeof *sinks);
  all[nsinks] = cb_sink_row_time(&time_us);
  const struct cb_backend *backends[CB_MAX_LIST];
  for (int b = 0; b < s->nbackends; b++)
    backends[b] = cb_backends[s->backends[b]];
  struct cb_summary sum = {0};
  double here = 0, there = 0; /* weighted by calls: measured here, logged by NCCL */
  long counted = 0;
  int rc = cl->rank == 0 ? cb_sinks_run(sinks, nsinks, ri, err) : CB_OK;
  for (int i = 0; i < c->n && rc == CB_OK; i++) {
    const struct cb_call *r = &c->v[i];
    char line[256];
    if (!fits(cl, r)) {
      snprintf(line, sizeof line, "--calls: %s of %llu B on %d ranks (%ld calls) left out: %s",
               r->op, (unsigned long long)r->bytes, r->nranks, r->calls,
               r->known ? "another rank count than this run's" : "no collbench op");
      rc = cl->rank == 0 ? cb_sinks_note(sinks, nsinks, line, err) : CB_OK;
      continue;
    }
    struct cb_settings one = *s;
    one.ops[0] = cb_op_lookup(r->op), one.nops = 1;
    one.min_bytes = one.max_bytes = r->bytes;
    time_us = NAN;
    rc = cb_engine_measure(cl, &one, ri, backends, s->nbackends, all, nsinks + 1, &sum, err);
    if (rc == CB_OK && isfinite(time_us) && isfinite(r->time_us)) {
      here += (double)r->calls * time_us;
      there += (double)r->calls * r->time_us;
      counted += r->calls;
    }
  }
  if (rc == CB_OK && cl->rank == 0 && counted) {
    char line[256];
    snprintf(line, sizeof line,
             "--calls: the %ld calls measured take %.4g ms here, %.4g ms as NCCL logged them in "
             "the job (here/job x%.3g)",
             counted, here / 1e3, there / 1e3, there > 0 ? here / there : NAN);
    rc = cb_sinks_note(sinks, nsinks, line, err);
  }
  if (rc == CB_OK && cl->rank == 0)
    rc = cb_sinks_finish(sinks, nsinks, &sum, err);
  *wrong = sum.wrong;
  return rc;
}
