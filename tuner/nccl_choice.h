/* NCCL_ALGO and NCCL_PROTO as NCCL reads them, and the values --env-out
 * writes for them; the NCCL variables that fight --tune-ctas; NCCL's
 * error text in a message. Pure (no NCCL call): unit-tested. */
#ifndef CB_NCCL_CHOICE_H
#define CB_NCCL_CHOICE_H

#include <stddef.h>

#include "backends/nccl_env.h"
#include "base/error.h"
#include "envfile.h"

/* The first NCCL version that reads the per-collective form. */
#define CB_NCCL_PER_COLL_VERSION 22400

/* The launch setting for all-reduce: 1 + the index when the value leaves
 * all-reduce exactly one name, 0 when it leaves NCCL a choice (unset, a
 * list, a '^' exclusion); a usage error when it leaves none. */
int cb_nccl_launch_index(const char *var, const char *value, const char *const *names, int n,
                         int *index, struct cb_error *err);

/* The value a configuration is measured with (the tuner's communicator
 * for it is made with it in the environment): NULL (unset) for index 0
 * unless the launch value leaves NCCL a choice, which then stays in
 * effect; the bare name for a forced index (only all-reduce runs there). */
const char *cb_nccl_measure_value(const char *launch, int launch_index, int index,
                                  const char *const *names);

/* What --env-out writes for NCCL. */
struct cb_nccl_env_in {
  int version;                            /* ncclGetVersion(): 22809 for 2.28.9 */
  int algorithm, protocol;                /* tuned: 1 + index, 0 NCCL's choice */
  const char *launch_algo, *launch_proto; /* the user's values at launch, or NULL */
  int launch_algo_index, launch_proto_index;
  int ll128_proven; /* this run measured LL128 AND checked its results */
};

#define CB_NCCL_NOTES 4
struct cb_nccl_env_out {
  struct cb_env_var vars[2];
  int nvars;
  char values[2][256];
  char notes[CB_NCCL_NOTES][512]; /* comment lines for the file */
  int nnotes;
};

/* Fills NCCL_ALGO / NCCL_PROTO for the tuned all-reduce: on NCCL >= 2.24
 * the per-collective form "allreduce:Ring", after the user's launch value
 * when there was one, so only all-reduce changes; before 2.24 the bare
 * name. LL128 is never written unless proven. Notes say why. */
void cb_nccl_env_vars(const struct cb_nccl_env_in *in, struct cb_nccl_env_out *out);

/* The first of NCCL_MIN_CTAS, NCCL_MAX_CTAS, NCCL_MIN_NCHANNELS,
 * NCCL_MAX_NCHANNELS set in the environment, or NULL: each overrides or
 * clamps ncclConfig_t's minCTAs/maxCTAs (init.cc, graph/connect.cc). */
const char *cb_nccl_cta_env_set(void);

/* Whether a forced pair's first call failed because NCCL does not run
 * that pair (dropped from the search), rather than for a real failure
 * (sockets, memory, descriptors: the run fails). NCCL refuses at enqueue
 * with "no algorithm/protocol available" in its last error, and the code
 * is ncclInvalidUsage only while NCCL_ALGO or NCCL_PROTO is set, else
 * ncclInternalError (src/enqueue.cc:1848-1860 at v2.28.9-1): a split's
 * pair variables are set only for the split, so at the probe it is the
 * latter. Codes as nccl.h's ncclResult_t. */
int cb_nccl_pair_refused(int code, const char *last);

/* "CALL failed: TEXT (CODE): LAST" into err; LAST (ncclGetLastError)
 * omitted when empty, its control characters made spaces. */
int cb_nccl_fail(struct cb_error *err, const char *where, const char *call, int code,
                 const char *code_text, const char *last);

#endif
