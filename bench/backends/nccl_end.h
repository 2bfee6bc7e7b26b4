/* How an NCCL communicator ends: destroyed when healthy, aborted after any
 * failure on it. */
#ifndef CB_NCCL_END_H
#define CB_NCCL_END_H

#include <nccl.h>

/* After a failed launch, an asynchronous error or a failed stream query a
 * kernel may still wait on a peer: ncclCommDestroy would wait for the
 * communicator's work (and free memory under it) and the run would end
 * only through the watchdog, its message replacing NCCL's; ncclCommAbort
 * stops the work first (NVIDIA/nccl v2.28.9-1, src/init.cc: commDestroy
 * syncs the streams, ncclCommAbort sets the abort flag before freeing).
 * Returns 1 when the communicator was aborted, 0 when destroyed or NULL. */
int cb_nccl_comm_end(ncclComm_t comm, int failed);

#endif
