/* A burn-in of --accept or --matrix (judged.h): the mode's passes through
 * a relay sink that keeps each pass's verdicts, then one verdict per
 * check over the intervals and the drift of every measured case. */
#include "judged.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/interrupt.h"
#include "base/timer.h"
#include "burnin.h"
#include "readback/drift.h"

/* One check, link or node over the intervals. */
struct judged {
  char name[160], unit[8];
  int line;
  double warn, fail;
  int n, count[4]; /* intervals judged, by status */
  int worst;       /* the worst status: FAIL, INCONCLUSIVE, WARN, PASS */
  int worst_interval;
  double worst_measured, worst_margin;
  char worst_what[512];
  int failed[8], nfailed;  /* the intervals that failed (the first 8) */
  struct cb_causes causes; /* the worst interval's likely causes (issue 41) */
  int has_causes;
};

struct relay {
  struct cb_sink *out;
  int nout;
  int interval, ran;
  /* this pass's verdicts, kept until it ends whole (a signal voids them) */
  struct cb_verdict *pending;
  char (*names)[160];
  struct cb_causes *causes; /* n = -1: none sought */
  int npending, cap;
  struct judged *j;
  int nj, jcap;
  struct cb_burnin_tally tally; /* the measured rows, as a sweep's burn-in keeps them */
  struct cb_summary total;
  int oom; /* no room for a pass's verdicts */
};

/* The table (out[0]) shows the first pass; later ones go to the files only. */
static int from(const struct relay *r) {
  return r->interval > 1 ? 1 : 0;
}

static int r_run(void *state, const struct cb_run_info *ri, struct cb_error *err) {
  struct relay *r = state;
  return r->ran++ ? CB_OK : cb_sinks_run(r->out, r->nout, ri, err);
}

static int r_series_begin(void *state, const struct cb_series *s, struct cb_error *err) {
  struct relay *r = state;
  for (int k = from(r); k < r->nout; k++)
    if (r->out[k].series_begin && r->out[k].series_begin(r->out[k].state, s, err))
      return err->status;
  return CB_OK;
}

static int r_series_end(void *state, const struct cb_series *s, struct cb_error *err) {
  struct relay *r = state;
  for (int k = from(r); k < r->nout; k++)
    if (r->out[k].series_end && r->out[k].series_end(r->out[k].state, s, err))
      return err->status;
  return CB_OK;
}

static int r_row(void *state, const struct cb_row *row, struct cb_error *err) {
  struct relay *r = state;
  cb_burnin_tally_row(&r->tally, row);
  for (int k = from(r); k < r->nout; k++)
    if (r->out[k].row && r->out[k].row(r->out[k].state, row, err))
      return err->status;
  return CB_OK;
}

static int r_note(void *state, const char *text, struct cb_error *err) {
  struct relay *r = state;
  for (int k = from(r); k < r->nout; k++)
    if (r->out[k].note && r->out[k].note(r->out[k].state, text, err))
      return err->status;
  return CB_OK;
}

static int r_pair(void *state, const struct cb_pair *p, struct cb_error *err) {
  struct relay *r = state;
  for (int k = 0; r->interval == 1 && k < r->nout; k++) /* the first pass's matrix only */
    if (r->out[k].pair && r->out[k].pair(r->out[k].state, p, err))
      return err->status;
  return CB_OK;
}

static int r_verdict(void *state, const struct cb_verdict *v, struct cb_error *err) {
  (void)err;
  struct relay *r = state;
  if (r->npending == r->cap) {
    int cap = r->cap ? 2 * r->cap : 32;
    void *p = realloc(r->pending, (size_t)cap * sizeof *r->pending);
    void *q = p ? realloc(r->names, (size_t)cap * sizeof *r->names) : NULL;
    if (p)
      r->pending = p;
    if (q)
      r->names = q;
    void *c = q ? realloc(r->causes, (size_t)cap * sizeof *r->causes) : NULL;
    if (!c)
      return r->oom = 1, CB_OK;
    r->causes = c, r->cap = cap;
  }
  /* the name may live in the pass's own storage: copied */
  snprintf(r->names[r->npending], sizeof r->names[0], "%s", v->name ? v->name : "");
  r->pending[r->npending] = *v;
  /* the causes live in the pass's result: copied (their strings are static) */
  if (v->causes)
    r->causes[r->npending] = *v->causes;
  else
    r->causes[r->npending].n = -1;
  r->pending[r->npending].causes = NULL, r->pending[r->npending].record = NULL;
  r->npending++;
  return CB_OK;
}

static int r_finish(void *state, const struct cb_summary *sum, struct cb_error *err) {
  (void)err;
  struct relay *r = state;
  r->total.rows += sum->rows, r->total.records += sum->records, r->total.wrong += sum->wrong;
  r->total.unchecked += sum->unchecked, r->total.skipped += sum->skipped;
  return CB_OK;
}

/* The pass's verdicts into the series of their checks. */
static void commit(struct relay *r) {
  for (int i = 0; i < r->npending; i++) {
    const struct cb_verdict *v = &r->pending[i];
    struct judged *j = NULL;
    for (int k = 0; k < r->nj && !j; k++)
      if (strcmp(r->j[k].name, r->names[i]) == 0)
        j = &r->j[k];
    if (!j) {
      if (r->nj == r->jcap) {
        int cap = r->jcap ? 2 * r->jcap : 16;
        void *p = realloc(r->j, (size_t)cap * sizeof *r->j);
        if (!p) {
          r->oom = 1;
          return;
        }
        r->j = p, r->jcap = cap;
      }
      j = &r->j[r->nj++];
      memset(j, 0, sizeof *j);
      snprintf(j->name, sizeof j->name, "%s", r->names[i]);
      snprintf(j->unit, sizeof j->unit, "%s", v->unit ? v->unit : "");
      j->line = v->line, j->warn = v->warn, j->fail = v->fail;
      j->worst = -1;
    }
    int st = v->status >= 0 && v->status < 4 ? v->status : CB_INCONCLUSIVE;
    j->n++;
    j->count[st]++;
    if (st == CB_FAIL && j->nfailed++ < 8)
      j->failed[j->nfailed - 1] = r->interval;
    double m = isnan(v->margin) ? INFINITY : v->margin;
    if (j->worst < 0 || cb_verdict_severity(st) > cb_verdict_severity(j->worst) ||
        (cb_verdict_severity(st) == cb_verdict_severity(j->worst) && m < j->worst_margin)) {
      j->worst = st, j->worst_interval = r->interval;
      j->worst_measured = v->measured, j->worst_margin = m;
      snprintf(j->worst_what, sizeof j->worst_what, "%s", v->what);
      j->has_causes = r->causes[i].n >= 0;
      if (j->has_causes)
        j->causes = r->causes[i];
    }
  }
  r->npending = 0;
}

/* One verdict over the intervals: the worst interval's status, said with
 * how many intervals had each. */
static void over_run(const struct judged *j, int intervals, int partial, struct cb_verdict *v) {
  memset(v, 0, sizeof *v);
  v->name = j->name, v->line = j->line, v->unit = j->unit;
  v->warn = j->warn, v->fail = j->fail;
  v->status = j->worst;
  v->measured = j->worst_measured;
  v->margin = isinf(j->worst_margin) ? NAN : j->worst_margin;
  v->partial = partial;
  v->causes = j->has_causes ? &j->causes : NULL;
  char counts[96] = "", failed[64] = "";
  for (int s = 0; s < 4; s++)
    if (j->count[s])
      snprintf(counts + strlen(counts), sizeof counts - strlen(counts), "%s%s in %d",
               counts[0] ? ", " : "", cb_verdict_names[s], j->count[s]);
  for (int i = 0; i < j->nfailed && i < 8; i++)
    snprintf(failed + strlen(failed), sizeof failed - strlen(failed), "%s%d", i ? "," : "",
             j->failed[i]);
  /* a link or node has a verdict only in the passes that flag it (and the
   * matrix's own only in those that flag none) */
  char unjudged[64] = "";
  if (intervals > j->n)
    snprintf(unjudged, sizeof unjudged, " (no verdict of its own in %d)", intervals - j->n);
  snprintf(v->what, sizeof v->what, "%s of %d intervals%s%s%s%s; worst, interval %d: %.100s",
           counts, intervals, unjudged, j->nfailed ? " (FAIL in " : "", failed,
           j->nfailed ? (j->nfailed > 8 ? ",...)" : ")") : "", j->worst_interval, j->worst_what);
}

/* "; worst so far: CHECK FAIL in 2" (the worst status, then the most
 * intervals with it), or "" */
static void worst_so_far(const struct relay *r, char *buf, size_t len) {
  const struct judged *w = NULL;
  for (int i = 0; i < r->nj; i++) {
    const struct judged *j = &r->j[i];
    if (!w || cb_verdict_severity(j->worst) > cb_verdict_severity(w->worst) ||
        (j->worst == w->worst && j->count[j->worst] > w->count[w->worst]))
      w = j;
  }
  buf[0] = '\0';
  if (w)
    snprintf(buf, len, "; worst so far: %s %s in %d", w->name, cb_verdict_names[w->worst],
             w->count[w->worst]);
}

static int emit(struct relay *r, const struct cb_verdict *v, int *nfail, int *ninc,
                struct cb_error *err) {
  *nfail += v->status == CB_FAIL;
  *ninc += v->status == CB_INCONCLUSIVE;
  for (int k = 0; k < r->nout; k++)
    if (r->out[k].verdict && r->out[k].verdict(r->out[k].state, v, err))
      return err->status;
  return CB_OK;
}

/* A sink of the final verdicts: what they came to. */
static int tally_answer(void *state, const struct cb_verdict *v, struct cb_error *err) {
  (void)err;
  struct cb_burnin_answer *a = state;
  a->total++;
  a->warn += v->status == CB_WARN;
  a->unjudged += v->unjudged;
  a->not_passed += v->status == CB_FAIL || v->status == CB_INCONCLUSIVE;
  cb_verdict_name_not_passed(a->names, sizeof a->names, v);
  return CB_OK;
}

int cb_burnin_judged_run(const struct cb_cluster *cl, const struct cb_settings *s,
                         struct cb_sink *sinks, int nsinks, cb_burnin_pass_fn pass_fn, void *state,
                         struct cb_burnin_answer *answer, struct cb_error *err) {
  memset(answer, 0, sizeof *answer);
  struct relay r = {.out = sinks, .nout = nsinks, .tally.first_start = cb_wall_now()};
  struct cb_sink relay = {.state = &r,
                          .run = r_run,
                          .series_begin = r_series_begin,
                          .row = r_row,
                          .series_end = r_series_end,
                          .note = r_note,
                          .verdict = r_verdict,
                          .pair = r_pair,
                          .finish = r_finish};
  int nrelay = cl->rank == 0 ? 1 : 0;
  double limit = s->drift_limit > 0 ? s->drift_limit : CB_DRIFT_LIMIT, t0 = cb_now();
  cb_interrupt_soft(); /* SIGTERM and the like: end after the row, then judge */
  struct cb_settings pass = *s;
  struct cb_contention load; /* the nodes' CPU time others took, around every pass */
  int rc = cb_contention_start(cl, &load, err), stop = 0, asked = 0;
  for (pass.interval = 1; !rc && !stop; pass.interval++) {
    pass.interval_start = cb_wall_now();
    r.interval = pass.interval, r.tally.wrong_now = 0, r.npending = 0;
    rc = pass_fn(state, &pass, &relay, nrelay, err);
    rc = cb_cluster_agree(cl, rc == CB_FAILED ? CB_OK : rc); /* a failed pass is data */
    if (rc)
      break;
    double elapsed = cb_now() - t0;
    stop =
        cl->rank == 0 && (elapsed >= s->duration || r.tally.wrong_now > 0 || r.oom || r.tally.oom);
    stop = cb_cluster_agree(cl, cb_interrupt_stop_asked() ? 2 : stop);
    asked = stop == 2;
    if (asked) /* a pass cut short: its verdicts judged part of it */
      break;
    char busy[512];
    if ((rc = cb_contention_interval(cl, pass.interval, &load, busy, sizeof busy, err)))
      break;
    if (cl->rank == 0 && busy[0] && nsinks > 0) {
      char line[600];
      snprintf(line, sizeof line, "interval %d: host contention: %s", pass.interval, busy);
      if (cb_sinks_note(sinks, nsinks, line, err))
        rc = err->status;
    }
    commit(&r);
    if (cl->rank == 0 && cb_sinks_interval(sinks, nsinks, &r.total, err))
      rc = err->status;
    if (cl->rank == 0 && nsinks > 0 && !rc) {
      char line[400], worst[200];
      worst_so_far(&r, worst, sizeof worst);
      snprintf(line, sizeof line, "interval %d done: %.0f of %.0f s, %ld records, %ld wrong%s",
               pass.interval, elapsed, s->duration, r.tally.records, r.total.wrong, worst);
      if (sinks[0].note && sinks[0].note(sinks[0].state, line, err))
        rc = err->status;
    }
  }
  int nfail = 0, ninc = 0, done = pass.interval - 1; /* whole: a cut one is not counted */
  if (!rc && cl->rank == 0) {
    char text[300];
    snprintf(text, sizeof text, "burn-in: %d whole intervals in %.0f s%s", done, cb_now() - t0,
             r.tally.wrong_now > 0  ? ", stopped after the interval with wrong values"
             : r.oom || r.tally.oom ? ", stopped: out of memory for the series"
             : asked ? ", stopped by a signal: the verdicts below are partial, over the whole "
                       "intervals (the cut one's verdicts are left out, its records kept)"
                     : "");
    if (cb_sinks_note(sinks, nsinks, text, err))
      rc = err->status;
    /* the verdicts over the run, and what they came to */
    struct cb_sink all[9];
    int nall = nsinks < 8 ? nsinks : 8;
    memcpy(all, sinks, (size_t)nall * sizeof *sinks);
    all[nall++] = (struct cb_sink){.state = answer, .verdict = tally_answer};
    r.out = all, r.nout = nall;
    struct cb_causes busy = {0}; /* contention: beside each worst interval's own causes */
    cb_contention_causes(&load, &busy);
    for (int i = 0; !rc && i < r.nj; i++) {
      struct cb_verdict v;
      over_run(&r.j[i], done, asked, &v);
      struct cb_causes both = busy;
      cb_causes_append(&both, v.causes);
      if (v.status != CB_PASS && both.n > 0)
        v.causes = &both;
      rc = emit(&r, &v, &nfail, &ninc, err);
    }
    if (!rc)
      rc = cb_burnin_judge(&r.tally.store, limit, asked, busy.n ? &busy : NULL, NULL, all, nall,
                           &nfail, &ninc, err);
    if (!rc && cb_sinks_finish(sinks, nsinks, &r.total, err))
      rc = err->status;
    answer->intervals = done;
  }
  cb_contention_free(&load);
  cb_burnin_free(&r.tally.store);
  free(r.pending), free(r.names), free(r.causes), free(r.j);
  return cb_burnin_outcome(cl, rc, asked, done, 0, nfail, ninc, err);
}
