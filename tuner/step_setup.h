/* What the reference step runs on: the compute and communication
 * backends chosen, and whether the node's memory holds the host model
 * (step_setup.c). --tune and --accept's [step] checks both start here. */
#ifndef CB_STEP_SETUP_H
#define CB_STEP_SETUP_H

#include <stdint.h>

#include "base/error.h"
#include "runtime/cluster.h"

/* Which step and library: backend "nccl", "mpi", or NULL for nccl where
 * this build has the GPU step and a GPU is usable, else mpi. */
struct cb_compute;
struct cb_comm;
int cb_tune_choose(const char *backend, const struct cb_compute **compute,
                   const struct cb_comm **comm, struct cb_error *err);
/* After the GPU is bound, for NCCL: the GPU step, or where collbench's GPU kernels cannot run
 * there (their self-check fails), the host's step with its gradients on the GPU, said on rank
 * 0; CB_USAGE when neither can run. */
int cb_tune_device_step(const struct cb_cluster *cl, const struct cb_compute **compute,
                        struct cb_error *err);
/* Refuses (CB_USAGE) a host model the node's memory cannot hold. */
struct cb_model;
int cb_tune_check_memory(const struct cb_cluster *cl, const struct cb_model *m,
                         struct cb_error *err);

/* MemAvailable of this node in bytes; 0 when unknown. */
uint64_t cb_mem_available_bytes(void);

#endif
