/* --duration TIME (issue 42): the sweep run again and again as passes
 * ("intervals") until TIME has passed, one run record, every record
 * carrying its interval and the interval's wall-clock start, each line
 * written as it is measured; then each measured case judged as a series
 * (records/drift.h): wrong results, and the drift of its time over the run.
 * A pass with wrong results is the last. */
#ifndef CB_BURNIN_H
#define CB_BURNIN_H

#include "core/cluster.h"
#include "core/runinfo.h"
#include "core/settings.h"
#include "output/sink.h"
#include "resume.h"

/* Runs the burn-in and feeds the sinks on rank 0 (run record, records,
 * one verdict per series, finish); `prior` (NULL: a new burn-in) is the
 * first part of a resumed one, whose intervals the verdicts cover too.
 * Returns CB_OK, CB_FAILED when a verdict is FAIL or INCONCLUSIVE (err says
 * which), or the error that stopped it. */
int cb_burnin_run(const struct cb_cluster *cl, const struct cb_settings *s,
                  const struct cb_run_info *ri, const struct cb_burnin_prior *prior,
                  struct cb_sink *sinks, int nsinks, struct cb_summary *sum, struct cb_error *err);

#endif
