/* --accept's [step] check: the tuner's reference step, run once on the
 * cluster under test with the library's launch settings and the check's
 * bucket size, all three phases interleaved (tuner/overlap.h). Collective. */
#ifndef CB_STEP_CHECK_H
#define CB_STEP_CHECK_H

#include "kernels/transformer.h"
#include "overlap.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"
#include "topology/topology.h"

/* A [step NAME] check (or [step]): the reference training step of --tune
 * run on the cluster under test (accept/spec.c reads it), judged on its communication overhead,
 * (T_step - T_compute) / T_step, against `limit`. */
struct cb_step_check {
  char name[CB_TOPO_NAME_MAX];
  int line;
  int model_set;
  struct cb_model model; /* model = preset, then model_config = hidden=,... */
  uint64_t bucket_bytes; /* default DDP's 25 MiB, capped at the gradients */
  int ranks;             /* the rank count the check is for; 0: any */
  int reps;              /* rounds of the three phases (default 10) */
  int reps_given;        /* reps = in the file: exactly that many, never more */
  double limit;          /* a share of the step, 0 < limit < 1 */
  /* seconds of compute a step takes on one GPU (or rank), for pricing
   * defects at `scale`; 0: the step's T_compute as measured in the run */
  double compute_s;
};

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
