/* --tune: the reference step, the overlap engine and the search, driven
 * together; called from main on every rank after MPI_Init. */
#ifndef CB_TUNE_H
#define CB_TUNE_H

#include "core/cluster.h"
#include "options.h"
#include "core/settings.h"

/* The environment --tune needs before MPI_Init (coll/tuned's dynamic rules). */
void cb_tune_pre_mpi_init(void);

/* s: the run's settings, for the GPU binding (--gpu-list, --share-gpu)
 * and the sizes of the --plugin-out sweep. */

/* Which step and library: backend "nccl", "mpi", or NULL for nccl where
 * this build has the GPU step and a GPU is usable, else mpi. */
struct cb_compute;
struct cb_comm;
int cb_tune_choose(const char *backend, const struct cb_compute **compute,
                   const struct cb_comm **comm, struct cb_error *err);
/* Refuses (CB_USAGE) a host model the node's memory cannot hold. */
struct cb_model;
int cb_tune_check_memory(const struct cb_cluster *cl, const struct cb_model *m,
                         struct cb_error *err);

int cb_tune_run(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                const struct cb_settings *s, int argc, char **argv, struct cb_error *err);

#endif
