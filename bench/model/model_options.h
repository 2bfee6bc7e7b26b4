/* What the model's mode parsed (bench/modes/mode_model.c): the inputs
 * of --fit, --validate and --predict, read by commands.c, plan.c and
 * nccl_predict.c. */
#ifndef CB_MODEL_OPTIONS_H
#define CB_MODEL_OPTIONS_H

#include <stdint.h>

#define CB_MAX_MODEL_FILES 64 /* per --fit or --validate */

/* --fit FILE... [--validate FILE...] [--predict ...]: the performance
 * model (bench/model/), also without MPI. */
#define CB_MAX_MODEL_LIST 64
struct cb_topo_part;
struct cb_model_cli {
  const char *fit[CB_MAX_MODEL_FILES], *validate[CB_MAX_MODEL_FILES];
  int nfit, nvalidate, predict;
  const char *topology, *json_path;
  /* the topology's sections that are not the system's: read (and refused
   * when bad) as --accept reads them, set by the mode; NULL: none allowed */
  const struct cb_topo_part *topology_part;
  long gpus[CB_MAX_MODEL_LIST];
  int ngpus;
  long gpus_per_node; /* 0: the topology's, else the fitted runs' */
  uint64_t sizes[CB_MAX_MODEL_LIST];
  int nsizes;
  int sizes_given; /* --size or -b/-e: the collective tables asked for beside a step */
  int ops[8], nops;
  int dtype, redop; /* enum cb_dtype_id, cb_redop_id: what NCCL's pick is for */
  double compute_s; /* 0: no training-step prediction */
  uint64_t grad_bytes, buckets[CB_MAX_MODEL_LIST];
  int nbuckets;
  const char *trials;  /* a --tune --trials file whose summary gives the step */
  double max_overhead; /* the planning target (default 20%) */
  /* --overlap: compute's speed while an allreduce runs, 0..1 (default 1:
   * free); overlap_measured: derived from --trials' measured efficiency */
  double overlap;
  int overlap_measured;
};

/* Whether the step's gradient bytes, from --grad-bytes or a --trials file
 * (`from`), split into at most a million buckets of every --bucket size:
 * each bucket is one all-reduce the planner models, so this bounds its
 * time (2^45 bytes kept it busy for minutes). 0, or the bucket that does
 * not into *bad. */
#define CB_MODEL_MAX_BUCKETS (1u << 20)
static inline int cb_model_buckets_fit(const struct cb_model_cli *m, uint64_t grad_bytes,
                                       uint64_t *bad) {
  for (int i = 0; i < m->nbuckets; i++)
    if (grad_bytes / m->buckets[i] > CB_MODEL_MAX_BUCKETS) {
      *bad = m->buckets[i];
      return -1;
    }
  return 0;
}

#endif
