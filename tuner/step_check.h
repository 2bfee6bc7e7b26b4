/* --accept's [step] check: the tuner's reference step, run once on the
 * cluster under test with the library's launch settings and the check's
 * bucket size, all three phases interleaved (tuner/overlap.h). Collective. */
#ifndef CB_STEP_CHECK_H
#define CB_STEP_CHECK_H

#include "overlap.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"
#include "topology/topology.h"

struct cb_step_measured {
  struct cb_overlap_result res; /* T_compute, T_comm, T_step, rho, overhead */
  uint64_t bucket_bytes;        /* as run: capped at the gradient bytes */
  char where[64];               /* "mpi, float on host" */
};

/* Refuses (CB_USAGE) a check this launch cannot run: its rank count, no
 * step in this build, a model too large for the node. Collective. */
int cb_step_check_validate(const struct cb_cluster *cl, const struct cb_step_check *c,
                           struct cb_error *err);

/* s: the run's settings (--timeout, GPU binding). */
int cb_step_check_measure(const struct cb_cluster *cl, const struct cb_settings *s,
                          const struct cb_step_check *c, struct cb_step_measured *out,
                          struct cb_error *err);

#endif
