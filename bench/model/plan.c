/* --predict's planning table (plan.h says more). */
#include "plan.h"

#if CB_HAVE_JANSSON

#include <math.h>
#include <stdio.h>

#include "base/units.h"
#include "nccl_band.h"
#include "nccl_predict.h"

static json_t *num(double x) {
  return isfinite(x) ? json_real(x) : json_null();
}

json_t *cb_plan_print(const struct cb_model_cli *m, const struct cb_system *allreduce,
                      double compute_s, uint64_t grad_bytes, const struct cb_step_opts *opt,
                      const struct cb_plan_measured *meas) {
  char sz[32], v[256];
  json_t *rows = json_array();
  printf("# planning: the most GPUs at which overhead = exposed / (compute + exposed) stays "
         "within %g%% (%ld GPUs per node)\n",
         100 * m->max_overhead, (long)allreduce->ranks_per_node);
  printf("%10s %10s %8s %14s\n", "#   bucket", "max_gpus", "nodes", "overhead_next");
  for (int b = 0; b < m->nbuckets; b++) {
    struct cb_scale sc;
    printf("%10s", cb_format_size(m->buckets[b], sz, sizeof sz));
    if (cb_model_max_gpus(allreduce, compute_s, (double)grad_bytes, (double)m->buckets[b],
                          m->max_overhead, opt, &sc)) {
      printf(" %10s %8s %14s\n", "-", "-", "-");
      continue;
    }
    long per = allreduce->ranks_per_node > 0 ? allreduce->ranks_per_node : 1;
    long nodes = (sc.gpus + per - 1) / per;
    char at_least[32];
    snprintf(at_least, sizeof at_least, ">=%ld", sc.gpus);
    if (sc.capped)
      printf(" %10s %8ld %14s  (within the target up to the search's end, below)\n", at_least,
             nodes, "-");
    else
      printf(" %10ld %8ld %13.1f%%\n", sc.gpus, nodes, 100 * sc.next);
    json_array_append_new(rows, json_pack("{s:I, s:I, s:I, s:b, s:o}", "bucket_bytes",
                                          (json_int_t)m->buckets[b], "max_gpus",
                                          (json_int_t)sc.gpus, "nodes", (json_int_t)nodes, "capped",
                                          sc.capped, "overhead_next", num(sc.next)));
  }
  printf("# the search stops at %ld GPUs: %s\n", CB_MODEL_MAX_GPUS, CB_MODEL_MAX_GPUS_WHY);
  struct cb_nc_band band;
  if (opt && opt->allreduce_s)
    cb_nc_band_of(cb_nc_class_of(&((const struct cb_nccl_ctx *)opt->ctx)->hw, 2), -1, &band);
  if (opt && opt->allreduce_s)
    printf("# NCCL's model was checked against published figures up to %d GPUs (uncalibrated; "
           "bench/model/PLANNING.md): counts past that are extrapolated\n",
           band.gpus_hi);
  json_t *plan = json_pack("{s:f, s:o, s:I, s:s}", "max_overhead", m->max_overhead, "rows", rows,
                           "search_max_gpus", (json_int_t)CB_MODEL_MAX_GPUS, "search_stops",
                           CB_MODEL_MAX_GPUS_WHY);
  if (meas && meas->set) {
    printf("# measured (%s): %ld ranks, bucket %s: overhead %.1f%% +- %.1f%%: %s\n", meas->path,
           meas->nranks, cb_format_size(meas->bucket_bytes, sz, sizeof sz),
           100 * meas->overhead.value, 100 * meas->overhead.ci95,
           cb_overhead_verdict(meas->overhead, m->max_overhead, v, sizeof v));
    json_object_set_new(plan, "measured",
                        json_pack("{s:I, s:I, s:o, s:o}", "nranks", (json_int_t)meas->nranks,
                                  "bucket_bytes", (json_int_t)meas->bucket_bytes, "overhead",
                                  num(meas->overhead.value), "overhead_ci95",
                                  num(meas->overhead.ci95)));
  }
  return plan;
}

#endif
