/* Backends built into this binary. configure decides which exist. */
#include <string.h>

#include "backend.h"
#include "config.h"

extern const struct cb_backend cb_backend_mpi, cb_backend_ucx, cb_backend_verbs, cb_backend_nccl;

const struct cb_backend *const cb_backends[] = {
    &cb_backend_mpi,
#if CB_HAVE_NCCL
    &cb_backend_nccl,
#endif
#if CB_HAVE_UCX
    &cb_backend_ucx,
#endif
#if CB_HAVE_VERBS
    &cb_backend_verbs,
#endif
};
const int cb_nbackends = sizeof cb_backends / sizeof cb_backends[0];
_Static_assert(CB_BACKEND_MPI == 0, "defaults.c's default backend is the table's first");

const struct cb_unbuilt_backend cb_unbuilt_backends[] = {
#if !CB_HAVE_NCCL
    {"nccl", "configure found no NCCL/CUDA (or --without-cuda/--without-nccl)"},
#endif
#if !CB_HAVE_UCX
    {"ucx", "configure found no UCX (install libucx-dev)"},
#endif
#if !CB_HAVE_VERBS
    {"verbs", "configure found no libibverbs (install libibverbs-dev)"},
#endif
    {NULL, NULL},
};

int cb_backend_lookup(const char *name) {
  for (int i = 0; i < cb_nbackends; i++)
    if (strcmp(name, cb_backends[i]->name) == 0)
      return i;
  return -1;
}
