/* --tune: the reference step, the overlap engine and the search, driven
 * together; called from main on every rank after MPI_Init. */
#ifndef CB_TUNE_H
#define CB_TUNE_H

#include "options.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"

/* The environment --tune needs before MPI_Init (coll/tuned's dynamic rules). */
void cb_tune_pre_mpi_init(void);

/* s: the run's settings, for the GPU binding (--gpu-list, --share-gpu)
 * and the sizes of the --plugin-out sweep. */
int cb_tune_run(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                const struct cb_settings *s, int argc, char **argv, struct cb_error *err);

#endif
