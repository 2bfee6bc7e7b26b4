/* Acceptance testing: a topology file's checks (--accept), the all-pairs
 * matrix with outlier finding (--matrix) and straggler finding. Each runs
 * measurements through the engine or the cluster's communicator, judges
 * them, and hands records and verdicts to the same sinks as a sweep. */
#ifndef CB_ACCEPT_H
#define CB_ACCEPT_H

#include "output/runinfo.h"
#include "runtime/settings.h"
#include "spec.h"
#include "verdicts.h"

/* Refuses (CB_USAGE) a file whose checks this build, launch or memory
 * cannot run, before anything is measured. Collective. */
int cb_accept_validate(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                       const struct cb_settings *base, struct cb_error *err);

/* Runs every check of `t` with `base` as the template settings (timing
 * options from the command line); sinks get the run record once, each
 * check's series, then the verdicts. */
int cb_accept_run(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                  const struct cb_fleet *fleet, const struct cb_settings *base,
                  const struct cb_run_info *ri, struct cb_sink *sinks, int nsinks,
                  struct cb_accept_result *res, struct cb_error *err);

#endif
