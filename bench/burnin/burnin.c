/* The burn-in's passes and its verdicts (burnin.h). */
#include "burnin.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accept/causes.h"
#include "backends/backend.h"
#include "base/interrupt.h"
#include "base/timer.h"
#include "probe/contention.h"
#include "engine/engine.h"
#include "readback/drift.h"
#include "rises.h"

void cb_burnin_tally_row(struct cb_burnin_tally *t, const struct cb_row *row) {
  const struct cb_record *r[2] = {row->outofplace, row->inplace};
  for (int i = 0; i < 2; i++)
    if (r[i]) {
      t->records++;
      t->wrong_now += r[i]->wrong > 0 ? r[i]->wrong : 0;
      if (cb_burnin_add(&t->store, r[i], r[i]->interval_start - t->first_start))
        t->oom = 1;
    }
}

/* A sink of our own beside the run's: every record into the tally. */
static int collect(void *state, const struct cb_row *row, struct cb_error *err) {
  (void)err;
  cb_burnin_tally_row(state, row);
  return CB_OK;
}

/* "; worst so far: CASE +12% on its first interval" (the largest slowdown
 * of a case's latest interval over its first), or "" */
static void worst_so_far(const struct cb_burnin_store *b, char *buf, size_t len) {
  double worst = 0;
  const struct cb_burnin_series *w = NULL;
  for (int i = 0; i < b->n; i++) {
    const struct cb_burnin_series *s = &b->s[i];
    if (s->n < 2 || s->p[0].time_us <= 0)
      continue;
    double r = s->p[s->n - 1].time_us / s->p[0].time_us - 1;
    if (!w || r > worst)
      worst = r, w = s;
  }
  buf[0] = '\0';
  if (w)
    snprintf(buf, len, "; worst so far: %s %+.0f%% on its first interval",
             w->name + strlen("burn-in "), 100 * worst);
}

void cb_burnin_causes(const struct cb_contention *load, const struct cb_rises *rises,
                      const struct cb_probe *probe, struct cb_causes *out) {
  struct cb_causes rose;
  cb_rises_causes(rises, probe, &rose);
  memset(out, 0, sizeof *out);
  cb_contention_causes(load, out);
  cb_causes_append(out, &rose);
}

/* Whether the causes hold a counter that rose: such a run is never a plain PASS. */
static int counters_rose(const struct cb_causes *causes) {
  for (int i = 0; causes && i < causes->n; i++)
    if (strcmp(causes->c[i].rule, "counters-rose-in-burn-in") == 0)
      return 1;
  return 0;
}

/* A case's causes: what rose or ran on the nodes meanwhile, then what the
 * nodes' evidence says of the links its record crossed, by acceptance's
 * rules (accept/causes.h), most likely first in each. */
static void case_causes(const struct cb_causes *during, const struct cb_probe *probe,
                        const struct cb_verdict *v, const struct cb_record *rec,
                        struct cb_causes *out) {
  memset(out, 0, sizeof *out);
  cb_causes_append(out, during);
  if (!probe || probe->nnodes <= 0)
    return;
  struct cb_causes found;
  cb_causes_find(probe->nodes, probe->nnodes, v->name, rec, NULL, &found);
  cb_causes_append(out, &found);
}

int cb_burnin_judge(const struct cb_burnin_store *b, double limit, int partial,
                    const struct cb_causes *causes, const struct cb_probe *probe,
                    struct cb_sink *sinks, int nsinks, int *nfail, int *ninc,
                    struct cb_error *err) {
  int rose = counters_rose(causes);
  struct cb_causes all;
  for (int i = 0; i < b->n; i++) {
    struct cb_verdict v;
    cb_burnin_verdict(&b->s[i], limit, &v);
    v.partial = partial;
    if (v.status == CB_PASS && rose) { /* timing held, but errors were counted: say so */
      v.status = CB_WARN;
      size_t at = strlen(v.what);
      snprintf(v.what + at, sizeof v.what - at, "; WARN: error counters rose during the run");
    }
    if (v.status != CB_PASS)
      case_causes(causes, probe, &v, &b->s[i].first, &all);
    if (v.status != CB_PASS && all.n > 0)
      v.causes = &all;
    *nfail += v.status == CB_FAIL;
    *ninc += v.status == CB_INCONCLUSIVE;
    for (int k = 0; k < nsinks; k++)
      if (sinks[k].verdict && sinks[k].verdict(sinks[k].state, &v, err))
        return err->status;
  }
  return CB_OK;
}

/* An output could not be written (a full disk): what was measured is
 * sound, so the verdicts over the intervals done go to the table (not to
 * the file that failed), and the error says them and how to go on. */
static void written_off(const struct cb_burnin_store *b, double limit,
                        const struct cb_causes *causes, const struct cb_probe *probe,
                        struct cb_sink *sinks, int nsinks, int intervals, struct cb_error *err) {
  int nfail = 0, ninc = 0;
  struct cb_error e = {0};
  int shown = nsinks > 0 && sinks[0].verdict &&
              cb_burnin_judge(b, limit, 1, causes, probe, sinks, 1, &nfail, &ninc, &e) == CB_OK;
  size_t at = strlen(err->msg);
  if (!shown)
    nfail = ninc = 0, cb_burnin_judge(b, limit, 1, causes, probe, NULL, 0, &nfail, &ninc, &e);
  snprintf(err->msg + at, sizeof err->msg - at,
           "; the burn-in stopped after %d intervals: %d verdicts FAILED, %d INCONCLUSIVE over "
           "them (partial verdicts%s); make room and give the same command with --resume to go on",
           intervals, nfail, ninc, shown ? ", on the table" : "");
}

/* After interval k (collective): the nodes' error counters and CPU time
 * read again, and a line for what rose or changed. */
static int interval_evidence(const struct cb_cluster *cl, const struct cb_run_info *ri, int k,
                             struct cb_rises *rises, struct cb_contention *load,
                             struct cb_sink *sinks, int nsinks, struct cb_error *err) {
  char rose[512], busy[512];
  if (cb_rises_interval(cl, ri->probe, k, rises, rose, sizeof rose, err) ||
      cb_contention_interval(cl, k, load, busy, sizeof busy, err))
    return err->status;
  const char *what[2] = {"error counters rose", "host contention"}, *text[2] = {rose, busy};
  for (int i = 0; i < 2; i++) {
    char line[600];
    if (cl->rank != 0 || !text[i][0] || nsinks == 0)
      continue;
    snprintf(line, sizeof line, "interval %d: %s: %s", k, what[i], text[i]);
    if (cb_sinks_note(sinks, nsinks, line, err))
      return err->status;
  }
  return CB_OK;
}

int cb_burnin_run(const struct cb_cluster *cl, const struct cb_settings *s,
                  const struct cb_run_info *ri, struct cb_burnin_prior *prior,
                  struct cb_sink *sinks, int nsinks, struct cb_summary *sum, struct cb_error *err) {
  memset(sum, 0, sizeof *sum);
  const struct cb_backend *backends[CB_MAX_LIST];
  for (int b = 0; b < s->nbackends; b++)
    backends[b] = cb_backends[s->backends[b]];
  struct cb_sink all[8];
  if (nsinks >= (int)(sizeof all / sizeof all[0]))
    return cb_fail(err, CB_RUNTIME, "--duration: too many outputs");
  struct cb_burnin_tally c = {.first_start = cb_wall_now()};
  double t0 = cb_now(); /* this part's start */
  double limit = s->drift_limit > 0 ? s->drift_limit : CB_DRIFT_LIMIT;
  int first = 1;             /* this part's first interval */
  double left = s->duration; /* what this part measures */
  if (prior && prior->last_interval > 0) {
    first = prior->last_interval + 1;
    left = s->duration - prior->measured_s;
    c.first_start = prior->first_start;
    if (cl->rank == 0)
      cb_burnin_resume_load(prior, &c.store);
  }
  memcpy(all, sinks, (size_t)nsinks * sizeof *sinks);
  all[nsinks] = (struct cb_sink){.state = &c, .row = collect};
  if (cl->rank == 0 && cb_sinks_run(sinks, nsinks, ri, err))
    return err->status;
  if (cl->rank == 0) {
    char text[384];
    snprintf(text, sizeof text,
             "burn-in: passes (intervals) until %.0f s have passed (--duration); each case "
             "judged over them: any wrong value fails, and a slowdown over the run past %+.0f%%",
             s->duration, 100 * limit);
    if (cb_sinks_note(sinks, nsinks, text, err))
      return err->status;
    if (first > 1) {
      char cut[96] = "";
      if (prior->cut_line)
        snprintf(cut, sizeof cut, "; line %d, cut by the interruption, dropped", prior->cut_line);
      snprintf(text, sizeof text,
               "burn-in resumed: intervals 1 to %d read back (%ld records, about %.0f s)%s; "
               "going on from interval %d for %.0f s",
               first - 1, prior->records, prior->measured_s, cut, first, left > 0 ? left : 0);
      if (cb_sinks_note(sinks, nsinks, text, err))
        return err->status;
    }
  }
  cb_interrupt_soft();   /* SIGTERM and the like: end after the row, then judge */
  struct cb_rises rises; /* the nodes' error counters, read after every interval */
  if (cb_rises_start(cl, &rises, err)) {
    cb_burnin_free(&c.store);
    return err->status;
  }
  struct cb_contention load; /* the nodes' CPU time others took, around every interval */
  if (cb_contention_start(cl, &load, err)) {
    cb_rises_free(&rises);
    cb_burnin_free(&c.store);
    return err->status;
  }
  struct cb_settings pass = *s;
  int rc = CB_OK, stop = left <= 0, asked = 0; /* the first part measured it all: judge only */
  for (pass.interval = first; !rc && !stop; pass.interval++) {
    pass.interval_start = cb_wall_now();
    c.wrong_now = 0;
    long records_before = c.records;
    /* the table (sinks[0]) shows this part's first pass; later ones get a line each */
    int skip = pass.interval == first ? 0 : 1;
    rc = cb_engine_measure(cl, &pass, ri, backends, s->nbackends, all + skip, nsinks + 1 - skip,
                           sum, err);
    rc = cb_cluster_agree(cl, rc);
    if (rc)
      break;
    double elapsed = cb_now() - t0;
    /* rank 0 decides (its clock and its records); every rank learns it, and
     * whether a signal on any rank asked to end (2) */
    stop = cl->rank == 0 &&
           (elapsed >= left || c.wrong_now > 0 || c.oom || pass.interval >= CB_BURNIN_MAX_INTERVAL);
    stop = cb_cluster_agree(cl, sum->stopped || cb_interrupt_stop_asked() ? 2 : stop);
    asked = stop == 2;
    if ((rc = interval_evidence(cl, ri, pass.interval, &rises, &load, sinks, nsinks, err)))
      break;
    /* cut before its first row (rank 0 has the records): not an interval */
    if (asked && cb_cluster_agree(cl, cl->rank == 0 && c.records == records_before))
      break;
    if (cl->rank == 0 && cb_sinks_interval(sinks, nsinks, sum, err))
      rc = err->status;
    if (cl->rank == 0 && nsinks > 0 && !rc) {
      char line[320], worst[160];
      worst_so_far(&c.store, worst, sizeof worst);
      snprintf(line, sizeof line, "interval %d %s: %.0f of %.0f s, %ld records, %ld wrong%s",
               pass.interval, sum->stopped ? "cut short" : "done", s->duration - left + elapsed,
               s->duration, c.records, sum->wrong, worst);
      if (sinks[0].note && sinks[0].note(sinks[0].state, line, err))
        rc = err->status;
    }
  }
  int nfail = 0, ninc = 0;
  struct cb_causes causes; /* the host's contention first: the likelier cause of a slowdown */
  cb_burnin_causes(&load, &rises, ri->probe, &causes);
  cb_contention_free(&load);
  cb_rises_free(&rises);
  if (rc && cl->rank == 0 && err->output && c.store.n > 0)
    written_off(&c.store, limit, &causes, ri->probe, sinks, nsinks, pass.interval - 1, err);
  if (!rc && cl->rank == 0) {
    char text[256];
    snprintf(text, sizeof text, "burn-in: %d intervals, this part %.0f s%s", pass.interval - 1,
             cb_now() - t0,
             c.wrong_now > 0 ? ", stopped after the interval with wrong values"
             : c.oom         ? ", stopped: out of memory for the series"
             : asked         ? ", stopped by a signal: the verdicts below are partial, over the "
                               "intervals done (the same command with --resume goes on)"
                             : "");
    if (cb_sinks_note(sinks, nsinks, text, err) ||
        cb_burnin_judge(&c.store, limit, asked, &causes, ri->probe, sinks, nsinks, &nfail, &ninc,
                        err) ||
        cb_sinks_finish(sinks, nsinks, sum, err))
      rc = err->status;
  }
  cb_burnin_free(&c.store);
  return cb_burnin_outcome(cl, rc, asked, pass.interval - 1, 1, nfail, ninc, err);
}

int cb_burnin_outcome(const struct cb_cluster *cl, int rc, int asked, int intervals, int resumable,
                      int nfail, int ninc, struct cb_error *err) {
  /* every rank calls this once, whatever happened on rank 0 */
  int bad = cb_cluster_agree(cl, rc == CB_OK && (nfail || ninc));
  if (rc)
    return rc;
  if (asked) /* every rank gets here with it (cb_cluster_agree above) */
    err->agreed = 1;
  if (asked && cl->rank != 0) /* rank 0 says it, once */
    return err->msg[0] = '\0', err->status = CB_RUNTIME;
  if (asked) {
    /* Ctrl-C reaches the ranks as mpirun's SIGTERM, and Open MPI's mpirun
     * then exits 1 whatever they return (its clean_abort; measured with
     * 4.1.4 in tests/burnin.t), so the message says how to get 3 */
    int sig = cb_interrupt_stop_asked();
    const char *ompi = sig == SIGTERM && getenv("OMPI_COMM_WORLD_RANK")
                           ? " (after a Ctrl-C mpirun exits 1 whatever the ranks return; "
                             "kill -USR1 on mpirun stops a burn-in with its exit status 3)"
                           : "";
    return cb_fail(err, CB_RUNTIME,
                   "burn-in stopped by %s after %d intervals: %d verdicts FAILED, %d INCONCLUSIVE "
                   "over them (partial verdicts)%s%s",
                   cb_interrupt_signame(sig), intervals, nfail, ninc,
                   resumable ? "; the same command with --resume goes on" : "", ompi);
  }
  if (bad)
    return cb_fail(err, CB_FAILED, "burn-in: %d verdicts FAILED, %d INCONCLUSIVE%s", nfail, ninc,
                   cl->rank ? " (rank 0 has the verdicts)" : "");
  return CB_OK;
}
