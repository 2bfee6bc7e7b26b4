/* --tune: the reference step, the overlap engine and the search, driven
 * together; called from main on every rank after MPI_Init. */
#ifndef CB_TUNE_H
#define CB_TUNE_H

#include "cluster.h"
#include "options.h"

/* The environment --tune needs before MPI_Init (coll/tuned's dynamic rules). */
void cb_tune_pre_mpi_init(void);

int cb_tune_run(const struct cb_cluster *cl, const struct cb_tune_options *opt, int argc,
                char **argv, struct cb_error *err);

#endif
