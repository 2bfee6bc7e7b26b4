/* What the tuner's two NCCL users share (comm_nccl.c, the DDP step's
 * all-reduce; layout_nccl.c, a parallel layout's step): a communicator
 * over every rank from rank 0's unique id, and an NCCL variable set for
 * one communicator's init (NCCL reads NCCL_ALGO and NCCL_PROTO then). */
#ifndef CB_NCCL_WORLD_H
#define CB_NCCL_WORLD_H

#include <nccl.h>

#include "base/error.h"
#include "runtime/cluster.h"

/* ncclCommInitRankConfig over cl's ranks (config NULL: NCCL's defaults),
 * watched by the watchdog as `what`. On failure err names `where` and
 * NCCL's text, and *comm is what NCCL left (NULL or a handle to abort).
 * Every rank calls it; a rank without a unique id fails them all. */
int cb_nccl_world_init(const struct cb_cluster *cl, const char *where, const char *what,
                       ncclConfig_t *config, ncclComm_t *comm, struct cb_error *err);

/* Sets (value) or removes (NULL) one variable for the next communicator;
 * returns the value it had, for cb_nccl_env_restore. */
char *cb_nccl_env_swap(const char *name, const char *value);
void cb_nccl_env_restore(const char *name, char *saved);

#endif
