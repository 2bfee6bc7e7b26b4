/* --accept's [step] checks: the reference training step measured on the
 * cluster under test (the tuner's engine, tuner/step_check.h) and judged
 * on its communication overhead, (T_step - T_compute) / T_step, against
 * the check's limit; the verdict goes to every sink like any check's. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "base/timer.h"
#include "base/units.h"
#include "train_step.h"
#include "tuner/step_check.h"

int cb_accept_steps_validate(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                             struct cb_error *err) {
  for (int i = 0; i < t->nsteps; i++)
    if (cb_step_check_validate(cl, &t->steps[i], err)) {
      char why[sizeof err->msg];
      snprintf(why, sizeof why, "%s", err->msg);
      err->status = CB_OK; /* the same failure, said with the file */
      return cb_fail(err, CB_USAGE, "%s: %s", t->system.path, why);
    }
  return CB_OK;
}

/* Percent, lower is better, judged on the paired overhead's 95% interval
 * (overhead.h); a step that gave no overhead fails. */
static void judge(const struct cb_step_check *c, const struct cb_step_measured *m, int nranks,
                  struct cb_verdict *v) {
  const struct cb_overlap_result *r = &m->res;
  char sz[32], o[80];
  memset(v, 0, sizeof *v);
  v->name = c->name;
  v->line = c->line;
  v->unit = "%";
  v->warn = NAN;
  v->fail = 100 * c->limit;
  v->measured = 100 * r->overhead.value;
  snprintf(v->what, sizeof v->what,
           "step %s, bucket %s, %d ranks (%s): overhead %s (95%% CI %.1f%% to %.1f%%) of T_step "
           "%.3f ms (T_compute %.3f ms, T_comm %.3f ms)",
           c->model.name, cb_format_size(m->bucket_bytes, sz, sizeof sz), nranks, m->where,
           cb_overhead_format(r->overhead, o, sizeof o), 100 * r->overhead.lo, 100 * r->overhead.hi,
           r->t[CB_PHASE_STEP].median * 1e3, r->t[CB_PHASE_COMPUTE].median * 1e3,
           r->t[CB_PHASE_COMM].median * 1e3);
  if (isnan(v->measured)) {
    v->status = CB_FAIL;
    v->margin = NAN;
    return;
  }
  cb_verdict_set_interval(v, 100 * r->overhead.lo, 100 * r->overhead.hi);
  cb_verdict_judge(v, 1, "more rounds (reps =) or a quieter machine would settle it");
  if (cb_overhead_judge(r->overhead, c->limit) == CB_INCONCLUSIVE && v->status != CB_INCONCLUSIVE) {
    /* every plausible round had the step shorter than its compute */
    v->status = CB_INCONCLUSIVE;
    size_t n = strlen(v->what);
    snprintf(v->what + n, sizeof v->what - n,
             ": INCONCLUSIVE, the step measured shorter than its compute: a quieter machine "
             "would settle it");
  }
}

/* Without reps = in the file, an INCONCLUSIVE step is measured again with
 * twice the rounds (as -n auto samples until its interval settles) while
 * the next round fits in CB_STEP_BUDGET_S from the check's start: a
 * quieter interval, not a different verdict rule. */
#define CB_STEP_BUDGET_S 60.0

int cb_accept_steps_run(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                        const struct cb_settings *base, struct cb_verdict *verdicts,
                        double *compute_s, struct cb_error *err) {
  for (int i = 0; i < t->nsteps; i++) {
    struct cb_step_check c = t->steps[i];
    struct cb_step_measured m;
    double start = cb_now();
    for (;;) {
      double round = cb_now();
      if (cb_step_check_measure(cl, base, &c, &m, err))
        return err->status;
      judge(&t->steps[i], &m, cl->nranks, &verdicts[i]);
      double now = cb_now(), took = now - round;
      int again = !c.reps_given && verdicts[i].status == CB_INCONCLUSIVE &&
                  now - start + 2 * took <= CB_STEP_BUDGET_S;
      MPI_Bcast(&again, 1, MPI_INT, 0, cl->comm); /* rank 0's clock and verdict decide */
      if (!again)
        break;
      c.reps *= 2;
    }
    if (c.reps != t->steps[i].reps) { /* said in the verdict: how many rounds it took */
      size_t n = strlen(verdicts[i].what);
      snprintf(verdicts[i].what + n, sizeof verdicts[i].what - n, " [%d rounds]", c.reps);
    }
    compute_s[i] = m.res.t[CB_PHASE_COMPUTE].median;
  }
  return CB_OK;
}
