/* --duration TIME (issue 42): the sweep run again and again as passes
 * ("intervals") until TIME has passed, one run record, every record
 * carrying its interval and the interval's wall-clock start, each line
 * written as it is measured; then each measured case judged as a series
 * (readback/drift.h): wrong results, and the drift of its time over the run.
 * A pass with wrong results is the last. */
#ifndef CB_BURNIN_H
#define CB_BURNIN_H

#include "probe/contention.h"
#include "output/runinfo.h"
#include "output/sink.h"
#include "resume.h"
#include "rises.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"

/* Runs the burn-in and feeds the sinks on rank 0 (run record, records,
 * one verdict per series, finish); `prior` (NULL: a new burn-in) is the
 * first part of a resumed one, whose intervals the verdicts cover too
 * (its records move into the run's store).
 * Returns CB_OK, CB_FAILED when a verdict is FAIL or INCONCLUSIVE (err says
 * which), or the error that stopped it. */
int cb_burnin_run(const struct cb_cluster *cl, const struct cb_settings *s,
                  const struct cb_run_info *ri, struct cb_burnin_prior *prior,
                  struct cb_sink *sinks, int nsinks, struct cb_summary *sum, struct cb_error *err);

/* What both burn-ins (the sweep's here, --accept's and --matrix's in
 * judged.c) keep of the measured rows: each case's series over the
 * intervals, and the counts of the pass in progress. */
struct cb_burnin_tally {
  struct cb_burnin_store store;
  double first_start; /* the first interval's wall-clock start (Unix s) */
  long records;
  long wrong_now; /* wrong elements in this pass */
  int oom;        /* the store ran out of memory */
};
void cb_burnin_tally_row(struct cb_burnin_tally *t, const struct cb_row *row);

/* A burn-in's likely causes: each node whose CPUs other processes took
 * (contention.h), then the error counters that rose (rises.h). Pure. */
void cb_burnin_causes(const struct cb_contention *load, const struct cb_rises *rises,
                      const struct cb_probe *probe, struct cb_causes *out);

/* Each case's drift verdict (readback/drift.h) to the sinks, marked partial
 * after a signal, with `causes` (NULL: none) on those that do not pass,
 * then what `probe`'s evidence (NULL: none) says of what the case crossed,
 * by acceptance's rules; a PASS while error counters rose (a
 * counters-rose-in-burn-in cause) is a WARN naming them. Adds the FAIL and
 * INCONCLUSIVE ones to *nfail and *ninc. */
int cb_burnin_judge(const struct cb_burnin_store *b, double limit, int partial,
                    const struct cb_causes *causes, const struct cb_probe *probe,
                    struct cb_sink *sinks, int nsinks, int *nfail, int *ninc, struct cb_error *err);

/* How a burn-in ends, on every rank (collective): rc when it failed, else
 * CB_RUNTIME when a signal stopped it after `intervals` (rank 0 says so;
 * `resumable`: that --resume goes on), CB_FAILED when a verdict did not
 * pass, or CB_OK. */
int cb_burnin_outcome(const struct cb_cluster *cl, int rc, int asked, int intervals, int resumable,
                      int nfail, int ninc, struct cb_error *err);

#endif
