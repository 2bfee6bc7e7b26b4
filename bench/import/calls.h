/* --calls FILE (from --import-inspector): the collectives a real job made,
 * measured here at their own sizes, one row each through the engine, and
 * their total weighed by how often the job made them, beside the total
 * NCCL logged in the job. Calls on another rank count than the run's are
 * said and left out. */
#ifndef CB_CALLS_H
#define CB_CALLS_H

#include "engine/engine.h"
#include "inspector.h"

/* CB_USAGE when no call in c can be measured on cl's ranks (naming theirs). */
int cb_calls_fit(const struct cb_cluster *cl, const struct cb_calls *c, const char *path,
                 struct cb_error *err);

/* Runs every call that fits with s's backends, memory, dtype and timing;
 * feeds the sinks (their run record first) and ends them; *wrong: values
 * the checks found wrong. */
int cb_calls_measure(const struct cb_cluster *cl, const struct cb_settings *s,
                     const struct cb_calls *c, const struct cb_run_info *ri, struct cb_sink *sinks,
                     int nsinks, long *wrong, struct cb_error *err);

#endif
