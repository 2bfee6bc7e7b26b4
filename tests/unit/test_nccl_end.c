/* How an NCCL communicator ends (bench/backends/nccl_end.c): after a
 * failure it must be aborted, never destroyed (destroy waits for a kernel
 * that may be waiting on a peer, and the run then ends only through the
 * watchdog); a healthy one is destroyed. No GPU here, so ncclCommAbort and
 * ncclCommDestroy are stand-ins defined below (the test's own definitions
 * come before libnccl's) that count their calls. */
#include "config.h"
#include "tap.h"

#if CB_HAVE_NCCL
#include "backends/nccl_end.h"

static int destroyed, aborted;
static ncclComm_t last;

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  destroyed++, last = comm;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  aborted++, last = comm;
  return ncclSuccess;
}

int main(void) {
  ncclComm_t comm = (ncclComm_t)&destroyed; /* any non-NULL handle */
  int r = cb_nccl_comm_end(comm, 0);
  ok(r == 0 && destroyed == 1 && aborted == 0 && last == comm,
     "a healthy communicator is destroyed (destroyed %d, aborted %d)", destroyed, aborted);
  destroyed = aborted = 0, last = NULL;
  r = cb_nccl_comm_end(comm, 1);
  ok(r == 1 && aborted == 1 && destroyed == 0 && last == comm,
     "after a failure it is aborted, not destroyed (destroyed %d, aborted %d)", destroyed, aborted);
  destroyed = aborted = 0;
  r = cb_nccl_comm_end(NULL, 1);
  ok(r == 0 && aborted == 0 && destroyed == 0,
     "no communicator (already aborted, or never made): no call");
  done_testing();
  return exit_status();
}
#else
int main(void) {
  plan(1);
  printf("ok 1 # SKIP built without NCCL (no communicator to end)\n");
  return 0;
}
#endif
