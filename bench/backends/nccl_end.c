/* How an NCCL communicator ends (nccl_end.h): one rule for the nccl
 * backend and --tune's NCCL all-reduce. */
#include "nccl_end.h"

int cb_nccl_comm_end(ncclComm_t comm, int failed) {
  if (!comm)
    return 0;
  if (failed) {
    ncclCommAbort(comm);
    return 1;
  }
  ncclCommDestroy(comm);
  return 0;
}
