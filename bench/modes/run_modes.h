/* What the measuring modes' file (mode_run.c) lends --tune's
 * (mode_tune.c): the steps before MPI_Init, and --junit on an error. */
#ifndef CB_MODES_RUN_MODES_H
#define CB_MODES_RUN_MODES_H

#include "mode.h"

/* The run plan built from what parsed (cb_run_plan_build: --accept's file, a
 * sweep's probing); then backends that fix their path at MPI_Init (MPI's
 * shm or tcp) set it, and --share-gpu its NCCL variables; rank is the
 * launcher's. */
int cb_run_pre_mpi(struct cb_run_mode *r, int rank, struct cb_error *err);

void cb_run_on_error(const union cb_mode_options *o, const struct cb_error *err);

#endif
