/* --tune --calls CALLS (issue 59 item 5): the collectives a job made (from
 * NCCL Inspector, --import-inspector --out), tuned at exactly their sizes on
 * the host: for each call on as many ranks as the run has, every Open MPI
 * coll/tuned algorithm of its op measured through the engine (exact
 * checks included), interleaved over --tune-reps rounds, the fastest kept
 * only beyond the noise; the totals weighted by how often the job made
 * each call; --env-out exports an algorithm only where every call of the
 * op agrees. Not built: the same for NCCL (algorithm and protocol by size
 * through the plugin's rules). */
#ifndef CB_TUNE_CALLS_H
#define CB_TUNE_CALLS_H

#include "options.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"

int cb_tune_calls(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                  const struct cb_settings *s, int argc, char **argv, struct cb_error *err);

#endif
