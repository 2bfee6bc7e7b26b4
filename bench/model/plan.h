/* --predict's planning table: per bucket size, the largest GPU count whose
 * predicted step overhead stays within --max-overhead, beside the measured
 * overhead of a --tune --trials file when one gave the step. */
#ifndef CB_MODEL_PLAN_H
#define CB_MODEL_PLAN_H

#include "config.h"
#if CB_HAVE_JANSSON
#include <jansson.h>

#include "model.h"
#include "model_options.h"
#include "results/overhead.h"

struct cb_plan_measured {
  int set;
  long nranks;
  uint64_t bucket_bytes;
  struct cb_overhead overhead;
  const char *path;
};

/* Prints the table and returns its JSON ("max_overhead", "rows", and
 * "measured" when set). */
json_t *cb_plan_print(const struct cb_model_cli *m, const struct cb_system *allreduce,
                      double compute_s, uint64_t grad_bytes, const struct cb_step_opts *opt,
                      const struct cb_plan_measured *meas);

#endif
#endif
