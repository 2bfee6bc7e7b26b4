/* [step] checks: the reference training step's communication ratio. */
#ifndef CB_ACCEPT_TRAIN_STEP_H
#define CB_ACCEPT_TRAIN_STEP_H

#include "results/verdict.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"
#include "spec.h"

/* [step] checks (train_step.c): refused before anything runs when this launch
 * cannot run them; measured and judged, one verdict each (not emitted). */
int cb_accept_steps_validate(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                             struct cb_error *err);
int cb_accept_steps_run(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                        const struct cb_settings *base, struct cb_verdict *verdicts,
                        double *compute_s, struct cb_error *err);

#endif
