/* Whether a run would measure anything, known before it starts (plan_check.h says more). */
#include "plan_check.h"

#include <stdio.h>

#include "backends/backend.h"
#include "base/dtype.h"
#include "ops/op.h"
#include "ops/skew.h"

/* The reason the engine would skip both variants of a series (NULL: one
 * runs), as run_series() in engine.c decides it before a backend starts. */
static const char *series_skipped(const struct cb_cluster *cl, const struct cb_backend *be,
                                  const struct cb_op *op, int mem, int dtype, int redop) {
  const char *why[2] = {NULL, NULL};
  for (int ip = 0; ip < 2; ip++)
    why[ip] = ip && !op->has_inplace       ? "no in-place variant"
              : cl->nranks < op->min_ranks ? "needs at least 2 ranks"
                                           : be->unsupported(NULL, op, mem, dtype, redop, ip);
  return why[0] && why[1] ? why[op->has_inplace ? 1 : 0] : NULL;
}

/* Whether some size gives the op at least one element per rank within
 * the backend's largest call. */
static int has_size(const struct cb_cluster *cl, const struct cb_backend *be,
                    const struct cb_op *op, const struct cb_skew *skew, int dtype,
                    const uint64_t *sizes, int nsizes) {
  for (int i = 0; i < nsizes; i++) {
    struct cb_shape sh;
    op->shape(sizes[i], cb_dtypes[dtype].size, cl->nranks, skew, &sh);
    if (sh.count > 0 && sh.count <= be->max_count)
      return 1;
  }
  return 0;
}

int cb_engine_plan_check(const struct cb_cluster *cl, const struct cb_settings *s,
                         struct cb_error *err) {
  uint64_t sizes[CB_MAX_SIZES];
  int nsizes = cb_settings_sizes(s, sizes, CB_MAX_SIZES);
  if (s->skew && cb_skew_bind(s->skew, cl->nranks, err)) /* a matrix too small for the job */
    return err->status;
  if (s->nconcurrent) /* the layout against the job: its rank count, its nodes */
    return cb_parallel_fit(&s->parallel, cl->nranks, cl->node_of_rank, err);
  char first[256] = "";
  for (int b = 0; b < s->nbackends; b++) {
    const struct cb_backend *be = cb_backends[s->backends[b]];
    for (int m = 0; m < s->nmems; m++)
      for (int o = 0; o < s->nops; o++)
        for (int d = 0; d < s->ndtypes; d++) {
          const struct cb_op *op = cb_ops[s->ops[o]];
          int nredops = op->uses_redop ? s->nredops : 1;
          for (int r = 0; r < nredops; r++) {
            int redop = op->uses_redop ? s->redops[r] : CB_NOREDOP;
            const char *why = series_skipped(cl, be, op, s->mems[m], s->dtypes[d], redop);
            if (!why && !has_size(cl, be, op, s->skew, s->dtypes[d], sizes, nsizes))
              why = "every size is below one element per rank or over the backend's largest call";
            if (!why)
              return CB_OK;
            if (!first[0])
              snprintf(first, sizeof first, "%s on %s, %s memory, %s: %s", op->name, be->name,
                       cb_mem_names[s->mems[m]], cb_dtypes[s->dtypes[d]].name, why);
          }
        }
  }
  return cb_fail(err, CB_USAGE, "nothing to measure: every requested series would be skipped (%s)",
                 first[0] ? first : "no series");
}
