/* nccl_world.h. */
#include "nccl_world.h"

#include <stdlib.h>
#include <string.h>

#include "nccl_choice.h"
#include "runtime/watchdog.h"

int cb_nccl_world_init(const struct cb_cluster *cl, const char *where, const char *what,
                       ncclConfig_t *config, ncclComm_t *comm, struct cb_error *err) {
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  *comm = NULL;
  ncclResult_t r = cl->rank == 0 ? ncclGetUniqueId(&id) : ncclSuccess;
  /* NCCL's own text too: ncclGetLastError returns the process-wide last
   * WARN (init.cc), fetched before anything else can call NCCL */
  int status = r == ncclSuccess ? CB_OK
                                : cb_nccl_fail(err, where, "ncclGetUniqueId", (int)r,
                                               ncclGetErrorString(r), ncclGetLastError(NULL));
  if (cb_cluster_agree(cl, status))
    return status ? status : cb_fail(err, CB_RUNTIME, "%s: rank 0 has no unique id", what);
  MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, cl->comm);
  cb_watchdog_arm(what);
  r = config ? ncclCommInitRankConfig(comm, cl->nranks, id, cl->rank, config)
             : ncclCommInitRank(comm, cl->nranks, id, cl->rank);
  cb_watchdog_disarm();
  if (r == ncclSuccess)
    return CB_OK;
  return cb_nccl_fail(err, where, config ? "ncclCommInitRankConfig" : "ncclCommInitRank", (int)r,
                      ncclGetErrorString(r), ncclGetLastError(NULL));
}

char *cb_nccl_env_swap(const char *name, const char *value) {
  const char *old = getenv(name);
  char *saved = old ? strdup(old) : NULL;
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
  return saved;
}

void cb_nccl_env_restore(const char *name, char *saved) {
  if (saved)
    setenv(name, saved, 1);
  else
    unsetenv(name);
  free(saved);
}
