/* --accept: a topology file's checks measured through the engine (each
 * series relayed to the run's sinks), judged against their thresholds,
 * the fleet and their ceilings, with the matrix and stragglers beside. */
#include "accept.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/units.h"
#include "bisect.h"
#include "ceiling.h"
#include "cost.h"
#include "engine/engine.h"
#include "expected.h"
#include "fleet_verdict.h"
#include "hang.h"
#include "matrix.h"
#include "membw.h"
#include "runtime/gpu.h"
#include "runtime/watchdog.h"
#include "stragglers.h"
#include "train_step.h"

/* The engine reports each check's series through this relay: it passes
 * everything on to the run's sinks (so --json keeps every measurement)
 * and keeps the record the check judges. The run record and the final
 * summary are sent once for the whole acceptance run, not per check. */
struct relay {
  struct cb_sink *sinks;
  int nsinks;
  const struct cb_check *check;
  const struct cb_expected *expected; /* the model's figure, for "80% model" levels */
  struct cb_record rec;
  int have;
  int confirmed;  /* times a FAIL was measured again (confirm_fail) */
  char note[256]; /* why the check's record is missing, if the engine said */
};

#define RELAY(method, ...)                                                                         \
  do {                                                                                             \
    for (int i_ = 0; i_ < r->nsinks; i_++)                                                         \
      if (r->sinks[i_].method && r->sinks[i_].method(r->sinks[i_].state, __VA_ARGS__))             \
        return err->status;                                                                        \
    return CB_OK;                                                                                  \
  } while (0)

static int relay_series_begin(void *state, const struct cb_series *s, struct cb_error *err) {
  struct relay *r = state;
  RELAY(series_begin, s, err);
}

static int relay_row(void *state, const struct cb_row *row, struct cb_error *err) {
  struct relay *r = state;
  const struct cb_record *want = r->check->inplace ? row->inplace : row->outofplace;
  if (want && want->bytes == r->check->bytes) {
    r->rec = *want;
    r->have = 1;
  }
  RELAY(row, row, err);
}

static int relay_series_end(void *state, const struct cb_series *s, struct cb_error *err) {
  struct relay *r = state;
  RELAY(series_end, s, err);
}

static int relay_note(void *state, const char *text, struct cb_error *err) {
  struct relay *r = state;
  snprintf(r->note, sizeof r->note, "%s", text);
  RELAY(note, text, err);
}

int cb_accept_validate(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                       const struct cb_settings *base, struct cb_error *err) {
  int nranks = cl->nranks;
  if (t->nchecks == 0 && !t->matrix.set && t->nsteps == 0)
    return cb_fail(err, CB_USAGE,
                   "%s: no [check NAME] or [step NAME] sections and no [matrix]: nothing to "
                   "accept",
                   t->system.path);
  if (t->matrix.set && cb_matrix_validate(cl, &t->matrix, err)) {
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    err->status = CB_OK; /* the same failure, said with the file */
    return cb_fail(err, CB_USAGE, "%s: [matrix]: %s", t->system.path, why);
  }
  for (int i = 0; i < t->nchecks; i++) {
    const struct cb_check *c = &t->checks[i];
    const char *backend = c->backend_name;
    int b = cb_backend_lookup(backend);
    char why[160] = "";
    if (b < 0)
      return cb_fail(err, CB_USAGE,
                     "%s:%d: check '%s' needs the %s backend, which this build lacks (see --list)",
                     t->system.path, c->line, c->name, backend);
    if (cb_backends[b]->probe && !cb_backends[b]->probe(why, sizeof why))
      return cb_fail(err, CB_USAGE, "%s:%d: check '%s' needs the %s backend: %s", t->system.path,
                     c->line, c->name, backend, why);
    if (!cb_gpu_mem_usable(c->mem, why, sizeof why))
      return cb_fail(err, CB_USAGE, "%s:%d: check '%s' needs %s memory: %s", t->system.path,
                     c->line, c->name, cb_mem_names[c->mem], why);
    if (nranks < cb_ops[c->op]->min_ranks)
      return cb_fail(err, CB_USAGE, "%s:%d: check '%s' (%s) needs at least %d ranks",
                     t->system.path, c->line, c->name, cb_ops[c->op]->name,
                     cb_ops[c->op]->min_ranks);
    struct cb_expected e; /* a model level the model cannot answer for this run */
    if (cb_check_uses_model(c) && cb_expected_for(t, c, nranks, cl->nnodes, &e, err))
      return err->status;
    /* a size whose buffers cannot fit is the file's mistake for this
     * cluster, not a failed check: refused like -e is (every rank agrees) */
    struct cb_settings s = *base;
    s.max_bytes = c->bytes;
    if (cb_engine_validate(cl, &s, err)) {
      char why[sizeof err->msg];
      snprintf(why, sizeof why, "%s", err->msg);
      err->status = CB_OK; /* the same failure, said with the check's place */
      return cb_fail(err, CB_USAGE, "%s:%d: check '%s': %s", t->system.path, c->line, c->name, why);
    }
  }
  return cb_accept_steps_validate(cl, t, err);
}

static void judge(const struct cb_check *c, const struct relay *r, const double *refs,
                  struct cb_verdict *v) {
  char size[32];
  int is_time = c->metric == CB_METRIC_TIME;
  memset(v, 0, sizeof *v);
  v->name = c->name;
  v->line = c->line;
  v->unit = is_time ? "us" : "GB/s";
  v->fail = cb_level_value(c, &c->fail, refs, r->expected);
  v->warn = cb_level_value(c, &c->warn, refs, r->expected);
  v->expected = r->expected;
  snprintf(v->what, sizeof v->what, "%s %s %s %s %s %s", cb_ops[c->op]->name, c->backend_name,
           cb_mem_names[c->mem], cb_format_size(c->bytes, size, sizeof size),
           cb_metric_names[c->metric], c->inplace ? "in-place" : "out-of-place");
  if (!r->have) {
    v->status = CB_FAIL;
    v->measured = NAN;
    v->margin = NAN;
    snprintf(v->what + strlen(v->what), sizeof v->what - strlen(v->what), ": not measured%s%s",
             r->note[0] ? ": " : "", r->note);
    return;
  }
  v->record = &r->rec;
  v->measured = cb_check_figure(c, &r->rec);
  cb_verdict_record_interval(v, &r->rec, is_time);
  if (r->confirmed) /* said before the judge adds its own words */
    snprintf(v->what + strlen(v->what), sizeof v->what - strlen(v->what),
             " (the fastest of %d measurements)", r->confirmed + 1);
  cb_verdict_judge(v, is_time, CB_SETTLE_ENGINE);
  if (r->rec.wrong != 0) { /* a fast wrong answer is no pass */
    v->status = CB_FAIL;
    snprintf(v->what + strlen(v->what), sizeof v->what - strlen(v->what), ": %ld wrong values",
             r->rec.wrong);
  }
}

/* Keeps the matrix's pairs (rank 0) for the fleet's verdicts. */
struct pair_capture {
  struct cb_pair *pairs;
  int n, cap;
};

static int capture_pair(void *state, const struct cb_pair *p, struct cb_error *err) {
  struct pair_capture *c = state;
  if (c->n == c->cap) {
    struct cb_pair *more = realloc(c->pairs, (c->cap ? 2 * c->cap : 64) * sizeof *more);
    if (!more)
      return cb_fail(err, CB_RUNTIME, "out of memory keeping the matrix's pairs");
    c->pairs = more;
    c->cap = c->cap ? 2 * c->cap : 64;
  }
  c->pairs[c->n++] = *p; /* host names live as long as the cluster */
  return CB_OK;
}

/* The matrix, its pairs kept when a fleet judges them too. */
static int run_matrix(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                      const struct cb_fleet *fleet, const struct cb_settings *base,
                      struct cb_sink *sinks, int nsinks, struct cb_accept_result *res,
                      struct cb_error *err) {
  if (!fleet || !fleet->b)
    return cb_matrix_measure(cl, base, &t->matrix, sinks, nsinks, res, err);
  struct pair_capture cap = {0};
  struct cb_sink all[8];
  int n = nsinks < 7 ? nsinks : 7;
  memcpy(all, sinks, n * sizeof *sinks);
  all[n] = (struct cb_sink){.state = &cap, .pair = capture_pair};
  int rc = cb_matrix_measure(cl, base, &t->matrix, all, n + (cl->rank == 0), res, err);
  if (rc == CB_OK)
    rc = cb_fleet_judge_pairs(cl, fleet, cap.pairs, cap.n, sinks, nsinks, res, err);
  free(cap.pairs);
  return rc;
}

/* One check measured (again) through a fresh relay into r. */
static int measure_check(const struct cb_cluster *cl, const struct cb_settings *base,
                         const struct cb_run_info *ri, struct relay *r, struct cb_summary *total,
                         struct cb_error *err) {
  struct cb_sink relay_sink = {.state = r,
                               .series_begin = relay_series_begin,
                               .row = relay_row,
                               .series_end = relay_series_end,
                               .note = relay_note};
  struct cb_settings s;
  cb_check_settings(r->check, base, &s);
  struct cb_summary sum;
  if (cb_engine_run(cl, &s, ri, &relay_sink, cl->rank == 0, &sum, err))
    return err->status;
  total->rows += sum.rows;
  total->records += sum.records;
  total->wrong += sum.wrong;
  total->unchecked += sum.unchecked;
  total->skipped += sum.skipped;
  return CB_OK;
}

/* One more measurement of r's check into *again, said on rank 0 (text). */
static int measure_again(const struct cb_cluster *cl, const struct cb_settings *s,
                         const struct cb_run_info *ri, struct relay *r, const char *text,
                         struct relay *again, struct cb_summary *total, struct cb_error *err) {
  *again = *r;
  again->have = 0;
  if (measure_check(cl, s, ri, again, total, err))
    return err->status;
  if (cl->rank == 0 && cb_sinks_note(r->sinks, r->nsinks, text, err))
    return err->status;
  return CB_OK;
}

/* A check the fleet finds slow is measured again, up to fleet->repeat
 * times, and judged by its best figure: one slow moment of a shared
 * machine is not a slow machine. Rank 0 judges, every rank measures. */
static int repeat_suspect(const struct cb_cluster *cl, const struct cb_fleet *fleet,
                          const struct cb_settings *base, const struct cb_run_info *ri,
                          struct relay *r, struct cb_summary *total, struct cb_error *err) {
  for (long rep = 0; fleet && fleet->b && rep < fleet->repeat; rep++) {
    int suspect = cl->rank == 0 && r->have && cb_fleet_suspect(fleet, r->check, &r->rec);
    MPI_Bcast(&suspect, 1, MPI_INT, 0, cl->comm);
    if (!suspect)
      return CB_OK;
    char text[160];
    snprintf(text, sizeof text,
             "fleet: check '%s' slower than the fleet allows: measured again (%ld of %ld)",
             r->check->name, rep + 1, fleet->repeat);
    struct relay again;
    if (measure_again(cl, base, ri, r, text, &again, total, err))
      return err->status;
    if (again.have && again.rec.time_us < r->rec.time_us && again.rec.wrong == 0)
      r->rec = again.rec;
  }
  return CB_OK;
}

/* A check that FAILs is measured again, up to CONFIRM_ROUNDS times, and
 * its fastest measurement is judged, whole, with its own interval. Load
 * on a shared machine only ever slows a measurement; it never makes a link
 * faster than it is. So a slow link fails every time, while a loaded moment
 * does not repeat: README's example once failed a healthy 2-core VM one
 * run in six, on an all-gather measured at 12 ms where 0.15 ms is usual.
 * Wrong values are never measured away; a fixed -n run is judged as asked. */
#define CONFIRM_ROUNDS 2
static int confirm_fail(const struct cb_cluster *cl, const struct cb_settings *base,
                        const struct cb_run_info *ri, const double *refs, struct relay *r,
                        struct cb_summary *total, struct cb_error *err) {
  for (int round = 1; round <= CONFIRM_ROUNDS && base->iters == 0; round++) {
    int failing = 0;
    if (cl->rank == 0 && r->have && r->rec.wrong == 0) {
      struct cb_verdict v;
      judge(r->check, r, refs, &v);
      failing = v.status == CB_FAIL;
    }
    MPI_Bcast(&failing, 1, MPI_INT, 0, cl->comm);
    if (!failing)
      return CB_OK;
    char text[200];
    snprintf(text, sizeof text,
             "check '%s': FAIL: measured again, to tell a slow link from a loaded moment (%d of "
             "%d)",
             r->check->name, round, CONFIRM_ROUNDS);
    struct relay again;
    if (measure_again(cl, base, ri, r, text, &again, total, err))
      return err->status;
    r->confirmed = round;
    if (again.have && (again.rec.wrong != 0 || again.rec.time_us < r->rec.time_us))
      r->rec = again.rec; /* the faster, or a wrong answer, which stands */
  }
  return CB_OK;
}

/* A check whose interval still contains its level is measured again with
 * four times the time budget each round (up to SETTLE_ROUNDS), as a user would
 * settle it by hand: a loaded moment widens the interval, and a verdict
 * that only says "not shown" should first be given the time to show.
 * The new record replaces the old (not the better of the two: the interval
 * must come from one measurement). Rank 0 judges, every rank measures. */
#define SETTLE_ROUNDS 3
static int settle_inconclusive(const struct cb_cluster *cl, const struct cb_settings *base,
                               const struct cb_run_info *ri, const double *refs, struct relay *r,
                               struct cb_summary *total, struct cb_error *err) {
  struct cb_settings s = *base;
  for (int round = 1; round <= SETTLE_ROUNDS; round++) {
    struct cb_verdict v;
    int open = 0;
    if (cl->rank == 0 && r->have) {
      judge(r->check, r, refs, &v);
      open = v.status == CB_INCONCLUSIVE;
    }
    MPI_Bcast(&open, 1, MPI_INT, 0, cl->comm);
    if (!open || s.iters > 0) /* a fixed -n run is judged as asked */
      return CB_OK;
    s.max_time *= 4; /* the median's CI narrows with the square root of the samples */
    char text[200];
    snprintf(text, sizeof text,
             "check '%s': INCONCLUSIVE (the interval contains the level): measured again with "
             "--max-time %g (%d of %d)",
             r->check->name, s.max_time, round, SETTLE_ROUNDS);
    struct relay again;
    if (measure_again(cl, &s, ri, r, text, &again, total, err))
      return err->status;
    if (again.have)
      r->rec = again.rec;
  }
  return CB_OK;
}

/* A check that FAILed over all nodes, where neither the matrix nor the
 * evidence names a node: bisected (bisect.h). Rank 0 decides, every rank
 * measures. */
static int bisect(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                  const struct cb_settings *base, const struct cb_run_info *ri,
                  struct cb_sink *sinks, int nsinks, const struct cb_accept_result *res, int i,
                  const struct cb_verdict *v, struct cb_bisect_found *found, struct cb_error *err) {
  const struct cb_check *c = &t->checks[i];
  double go[3] = {0, v->fail, v->measured}; /* whether, the level, the figure */
  found->n = 0;
  if (cl->rank == 0 && v->status == CB_FAIL && v->record && v->record->wrong == 0 &&
      cb_bisect_applies(cl, c) && base->iters == 0) {
    int named = 0;
    for (int k = 0; res->hosts && res->probe && k < res->probe->nnodes; k++)
      named |= res->hosts[k].failed; /* the matrix named a node already */
    struct cb_causes cs = {0};
    if (res->probe && res->probe->nnodes > 0)
      cb_causes_find(res->probe->nodes, res->probe->nnodes, v->name, v->record,
                     i < res->nwindows ? &res->windows[i] : NULL, &cs);
    for (int k = 0; k < cs.n; k++)
      named |= cs.c[k].host[0] != '\0'; /* the evidence did */
    go[0] = !named;
  }
  MPI_Bcast(go, 3, MPI_DOUBLE, 0, cl->comm);
  if (!go[0])
    return CB_OK;
  return cb_bisect_run(cl, t, c, go[1], go[2], base, ri, sinks, nsinks, found, err);
}

/* One check measured, as many times as its verdict needs, inside its
 * watchdog phase; then the window of counters and the hosts' contention
 * around it (collective; rank 0 notes a change of contention). */
static int measure_one(const struct cb_cluster *cl, const struct cb_fleet *fleet,
                       const struct cb_settings *base, const struct cb_run_info *ri,
                       const double *refs, struct relay *r, int i, struct cb_counters *before,
                       struct cb_summary *total, struct cb_accept_result *res,
                       struct cb_sink *sinks, int nsinks, struct cb_error *err) {
  char phase[CB_TOPO_NAME_MAX + 96], busy[512];
  snprintf(phase, sizeof phase, "check %s (between its measurements: retests, bisection)",
           r->check->name);
  cb_watchdog_phase(phase);
  if (i == 0) /* later windows start where the one before ended */
    cb_counters_gather(cl, before);
  if (measure_check(cl, base, ri, r, total, err) ||
      repeat_suspect(cl, fleet, base, ri, r, total, err) ||
      confirm_fail(cl, base, ri, refs, r, total, err) ||
      settle_inconclusive(cl, base, ri, refs, r, total, err) ||
      cb_accept_window(cl, before, res->windows ? &res->windows[i] : NULL, err) ||
      cb_contention_interval(cl, i + 1, &res->load, busy, sizeof busy, err) ||
      (cl->rank == 0 && busy[0] && cb_sinks_note(sinks, nsinks, busy, err)))
    return err->status;
  return CB_OK;
}

/* Rank 0: each check's own FAIL or WARN priced in step time at the file's
 * scale, when a [step] says what to price it in (cost.h). */
static void price(const struct cb_accept_spec *t, const struct cb_cluster *cl,
                  const double *compute_s, const int *own, struct cb_verdict *verdicts) {
  static struct cb_cost costs[CB_ACCEPT_MAX_CHECKS];
  struct cb_pricing p;
  if (cl->rank != 0 || cb_pricing_of(t, compute_s, cl->nranks, &p))
    return;
  for (int i = 0; i < t->nchecks; i++) {
    struct cb_verdict *v = &verdicts[own[i]];
    if (cb_cost_price(&p, t, &t->checks[i], v, v->expected, cl->nranks, cl->nnodes, &costs[i]) == 0)
      v->cost = &costs[i];
  }
}

int cb_accept_run(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                  const struct cb_fleet *fleet, const struct cb_settings *base,
                  const struct cb_run_info *ri, struct cb_sink *sinks, int nsinks,
                  struct cb_accept_result *res, struct cb_error *err) {
  memset(res, 0, sizeof *res);
  res->probe = ri->probe; /* rank 0: the evidence causes are found in */
  double *refs = res->reference_Bps;
  if (cb_accept_spec_uses(t, CB_REF_MEMBW) && cb_membw_measure(cl, &refs[CB_REF_MEMBW], err))
    return err->status;
  static struct cb_summary total; /* static: a hang's exit hook reads it (res->measured) */
  total = (struct cb_summary){0};
  res->measured = &total;
  if (cl->rank == 0) {
    if (cb_sinks_run(sinks, nsinks, ri, err))
      return err->status;
    char text[1024];
    snprintf(text, sizeof text, "acceptance: %s (%s), %d check%s%s", t->system.path, t->system.name,
             t->nchecks + t->nsteps, t->nchecks + t->nsteps == 1 ? "" : "s",
             refs[CB_REF_MEMBW] > 0 ? "; memory bandwidth reference " : "");
    if (refs[CB_REF_MEMBW] > 0)
      snprintf(text + strlen(text), sizeof text - strlen(text),
               "(membw) %.2f GB/s (memcpy, per rank, all ranks at once)",
               refs[CB_REF_MEMBW] * 1e-9);
    if (cb_sinks_note(sinks, nsinks, text, err))
      return err->status;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0 && cl->local_size > cores) { /* busy-polling ranks then take turns */
      snprintf(text, sizeof text,
               "warning: %d ranks share %ld cores on %s: collectives measure time-sharing, "
               "not the links, and may fail checks a healthy host passes",
               cl->local_size, cores, cl->hostname);
      if (cb_sinks_note(sinks, nsinks, text, err))
        return err->status;
    }
  }
  /* The matrix first: checks may be judged against its median pair. */
  int rc = t->matrix.set ? run_matrix(cl, t, fleet, base, sinks, nsinks, res, err) : 0;
  if (cb_cluster_agree(cl, rc))
    return rc ? rc : cb_fail(err, CB_RUNTIME, "the matrix failed on another rank");
  /* each check's own, fleet and ceiling verdicts, and what bisection found */
  static struct cb_verdict verdicts[(3 + CB_BISECT_MAX_FOUND) * CB_ACCEPT_MAX_CHECKS];
  static struct relay relays[CB_ACCEPT_MAX_CHECKS];
  static char names[CB_ACCEPT_MAX_CHECKS][CB_TOPO_NAME_MAX + 8];
  static char ceiling_names[CB_ACCEPT_MAX_CHECKS][CB_TOPO_NAME_MAX + 8];
  static struct cb_expected expected[CB_ACCEPT_MAX_CHECKS];
  int nverdicts = 0, own[CB_ACCEPT_MAX_CHECKS]; /* each check's own verdict among them */
  /* issue 41: every node's error counters before and after each check */
  struct cb_counters *before = malloc((size_t)(cl->rank == 0 ? cl->nnodes : 1) * sizeof *before);
  if (cl->rank == 0 && t->nchecks)
    res->windows = calloc((size_t)t->nchecks, sizeof *res->windows);
  res->nwindows = res->windows ? t->nchecks : 0;
  if (!before)
    return cb_fail(err, CB_RUNTIME, "out of memory for %d nodes' counters", cl->nnodes);
  if (cb_contention_start(cl, &res->load, err)) { /* collective: every rank fails alike */
    free(before);
    return err->status;
  }
  res->load.step = "check";
  for (int i = 0; i < t->nchecks; i++) {
    struct relay *r = &relays[i];
    memset(r, 0, sizeof *r);
    r->sinks = sinks;
    r->nsinks = nsinks;
    r->check = &t->checks[i];
    if (cb_check_uses_model(r->check)) { /* cb_accept_validate refused what it cannot answer */
      if (cb_expected_for(t, r->check, cl->nranks, cl->nnodes, &expected[i], err)) {
        free(before);
        return err->status;
      }
      r->expected = &expected[i];
    }
    if (measure_one(cl, fleet, base, ri, refs, r, i, before, &total, res, sinks, nsinks, err)) {
      free(before);
      return err->status;
    }
    int first = nverdicts;
    own[i] = first;
    judge(r->check, r, refs, &verdicts[nverdicts++]);
    if (fleet && fleet->b)
      cb_fleet_judge_check(fleet, r->check, r->have ? &r->rec : NULL, names[i], sizeof names[i],
                           &verdicts[nverdicts++]);
    if (r->check->ceiling[0])
      cb_ceiling_judge(t, r->check, r->have ? &r->rec : NULL, ceiling_names[i],
                       sizeof ceiling_names[i], &verdicts[nverdicts++]);
    static struct cb_bisect_found found[CB_ACCEPT_MAX_CHECKS];
    if (bisect(cl, t, base, ri, sinks, nsinks, res, i, &verdicts[first], &found[i], err)) {
      free(before);
      return err->status;
    }
    for (int k = 0; k < found[i].n; k++)
      verdicts[nverdicts++] = found[i].v[k];
    for (int k = first; k < nverdicts; k++)
      verdicts[k].window = i + 1;
    cb_hang_publish(res, verdicts, nverdicts); /* what a hang keeps */
  }
  free(before);
  cb_watchdog_phase("acceptance after the checks ([step] checks, stragglers, the verdicts)");
  struct cb_verdict steps[CB_ACCEPT_MAX_STEPS];
  double compute_s[CB_ACCEPT_MAX_STEPS];
  if (cb_accept_steps_run(cl, t, base, steps, compute_s, err))
    return err->status;
  price(t, cl, compute_s, own, verdicts);
  /* Verdicts after all measurements, so the table prints them together. */
  cb_hang_publish(res, verdicts, 0);
  for (int i = 0; i < nverdicts; i++)
    if (cb_accept_emit(cl, sinks, nsinks, &verdicts[i], res, err))
      return err->status;
  for (int i = 0; i < t->nsteps; i++)
    if (cb_accept_emit(cl, sinks, nsinks, &steps[i], res, err))
      return err->status;
  if (cb_stragglers_measure(cl, sinks, nsinks, res, err))
    return err->status;
  return cb_accept_finish(cl, base, sinks, nsinks, &total, res, err);
}
