/* Whether a run would measure anything, known before it starts: each
 * requested series against the reasons the engine would skip it for that
 * need no running backend (rank count, the backend's fixed limits, sizes
 * below one element per rank). Asked before any output is opened. */
#ifndef CB_PLAN_H
#define CB_PLAN_H

#include "base/error.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"

/* CB_OK when at least one series has a size to measure; else CB_USAGE
 * naming the first series' reason. */
int cb_engine_plan_check(const struct cb_cluster *cl, const struct cb_settings *s,
                         struct cb_error *err);

#endif
