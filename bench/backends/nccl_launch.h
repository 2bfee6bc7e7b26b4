/* Enqueueing one op with NCCL: the collectives, and the grouped sends and
 * receives of all-to-all(-v) and point-to-point, on a lane. The backend
 * (nccl.c) enqueues the run's ops on the world's lane and --concurrent's
 * on their groups'. */
#ifndef CB_NCCL_LAUNCH_H
#define CB_NCCL_LAUNCH_H

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "backend.h"

/* Where an op is enqueued: a communicator, its stream, this rank's place
 * in it and its size. */
struct cb_nccl_lane {
  ncclComm_t comm;
  cudaStream_t stream;
  int rank, nranks;
};

/* Enqueues args' op on lane l. On failure: NCCL's code, *call the call
 * that failed, *group 1 when a group is still open (the caller ends it
 * with ncclGroupEnd once it has read NCCL's error, or the thread's next
 * NCCL call would join the broken group). */
ncclResult_t cb_nccl_launch(const struct cb_nccl_lane *l, const struct cb_op_args *a,
                            const char **call, int *group);

#endif
