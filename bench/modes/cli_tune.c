/* --tune and its options, in one place: each option as getopt_long
 * returns it, then the rules between them. */
#include "base/units.h"
#include "cli_internal.h"
#include "ops/skew.h"
#include "results/overhead.h"

int cb_cli_tune_option(int c, const char *arg, struct cb_tune_options *t, struct cb_error *err) {
  uint64_t sizes[CB_SPACE_MAX];
  int n;
  switch (c) {
  case OPT_TUNE: t->enabled = 1; return CB_OK;
  case OPT_WORKLOAD: return cb_model_preset(arg, &t->model, err);
  case OPT_WORKLOAD_CONFIG: return CB_OK; /* applied after --model, whatever the order */
  case OPT_EXHAUSTIVE: t->exhaustive = 1; return CB_OK;
  case OPT_NO_SEARCH: t->no_search = 1; return CB_OK;
  case OPT_SHARD:
    t->layout.shard = cb_shard_lookup(arg);
    if (t->layout.shard < 0)
      return cb_fail(err, CB_USAGE, "--shard %s: not none, grad or full", arg);
    t->shard_given = 1;
    return CB_OK;
  case OPT_RESUME: t->resume = 1; return CB_OK;
  case OPT_ENV_OUT: t->env_out = arg; return CB_OK;
  case OPT_TRIALS: t->trials = arg; return CB_OK;
  case OPT_TUNE_REPS: return cb_parse_long(arg, "--tune-reps", 2, 10000, &t->reps, err);
  case OPT_MAX_OVERHEAD: return cb_overhead_parse(arg, "--max-overhead", &t->max_overhead, err);
  case OPT_TUNE_ALGORITHMS: {
    /* mpi's numbers or nccl's names: which applies is known at run time */
    struct cb_space mpi = {.kind = CB_SPACE_MPI}, nccl = {.kind = CB_SPACE_NCCL};
    struct cb_error mpi_err = {0};
    t->algorithms = arg;
    struct cb_error nccl_err = {0};
    if (cb_space_parse_algorithms(arg, &mpi, &mpi_err) == CB_OK ||
        cb_space_parse_algorithms(arg, &nccl, &nccl_err) == CB_OK)
      return CB_OK;
    /* a list that starts with a number meant coll/tuned's */
    return cb_fail(err, CB_USAGE, "%s", *arg >= '0' && *arg <= '9' ? mpi_err.msg : nccl_err.msg);
  }
  case OPT_TUNE_PROTOCOLS:
    t->protocols = arg;
    return cb_space_parse_protocols(arg, &(struct cb_space){.kind = CB_SPACE_NCCL}, err);
  case OPT_TUNE_CTAS:
    t->ctas = arg;
    return cb_space_parse_ctas(arg, &(struct cb_space){.kind = CB_SPACE_NCCL}, err);
  case OPT_PLUGIN_OUT: t->plugin_out = arg; return CB_OK;
  case OPT_TUNE_BUCKETS:
    t->buckets_given = 1;
    return cb_space_parse_sizes(arg, "--tune-buckets", t->space.buckets, &t->space.nbuckets, err);
  case OPT_TUNE_SEGMENTS:
    t->segments_given = 1;
    if (cb_space_parse_sizes(arg, "--tune-segments", sizes, &n, err))
      return err->status;
    for (t->space.nsegments = 0; t->space.nsegments < n; t->space.nsegments++)
      t->space.segments[t->space.nsegments] = (long)sizes[t->space.nsegments];
    return CB_OK;
  default: return cb_fail(err, CB_USAGE, "unknown option (see --help)");
  }
}

int cb_cli_tune_check(const struct cb_tune_options *t, const char *tune_only,
                      const char *model_config, struct cb_tune_options *out, struct cb_error *err) {
  if (!t->enabled && tune_only)
    return cb_fail(err, CB_USAGE, "%s goes with --tune", tune_only);
  if (t->resume && !t->trials)
    return cb_fail(err, CB_USAGE, "--resume needs --trials FILE (the search to continue)");
  if (t->exhaustive && t->no_search)
    return cb_fail(err, CB_USAGE, "give either --exhaustive or --no-search, not both");
  if (model_config && cb_model_config_parse(model_config, &out->model, err))
    return err->status;
  return CB_OK;
}

/* --tune with --parallel: the layout's step, at the launch settings. */
int cb_cli_tune_layout(struct cb_tune_options *t, const struct cb_parallel *par, int parallel_given,
                       struct cb_skew *skew, int concurrent, struct cb_error *err) {
  if (!parallel_given && !t->shard_given)
    return skew ? cb_fail(err, CB_USAGE,
                          "--skew %s goes with --op alltoallv, or with --tune --parallel and ep of "
                          "2 or more (its token dispatch)",
                          skew->label)
                : CB_OK;
  if (!parallel_given)
    return cb_fail(err, CB_USAGE,
                   "--shard %s goes with --parallel, the layout whose dp ranks it shards over "
                   "(e.g. --parallel tp=2,dp=2)",
                   cb_shard_names[t->layout.shard]);
  char layout[64];
  cb_parallel_format(par, layout, sizeof layout);
  if (concurrent)
    return cb_fail(err, CB_USAGE,
                   "--concurrent goes with a run of collectives, not --tune: --tune --parallel "
                   "%s runs the whole step",
                   layout);
  const char *search = t->exhaustive       ? "--exhaustive"
                       : t->resume         ? "--resume"
                       : t->algorithms     ? "--tune-algorithms"
                       : t->protocols      ? "--tune-protocols"
                       : t->ctas           ? "--tune-ctas"
                       : t->segments_given ? "--tune-segments"
                                           : NULL;
  if (search)
    return cb_fail(err, CB_USAGE,
                   "%s with --tune --parallel %s: the layout's search is coordinate descent over "
                   "the buckets (--tune-buckets) or FSDP's prefetch depth, then each "
                   "communicator's algorithms (libnbc's on the host, NCCL's algorithm and "
                   "protocol pairs on a GPU), with no other options (not built)",
                   search, layout);
  if (t->buckets_given && t->layout.shard == CB_SHARD_FULL)
    return cb_fail(err, CB_USAGE,
                   "--tune-buckets with --parallel %s --shard full: FSDP reduce-scatters each "
                   "layer's gradients, it has no buckets (the search turns its prefetch depth); "
                   "give --shard none or grad",
                   layout);
  if (skew && par->size[CB_DIM_EP] < 2)
    return cb_fail(err, CB_USAGE,
                   "--skew %s shapes ep's token dispatch: --parallel %s has ep=1 (give e.g. "
                   "ep=2)",
                   skew->label, layout);
  t->layout.par = *par;
  if (cb_layout_check(&t->model, &t->layout, err)) /* the job's rank count is checked at run time */
    return err->status;
  t->layout_given = 1, t->skew = skew;
  return CB_OK;
}

int cb_cli_tune_calls(struct cb_tune_options *t, const char *path, int parallel_given,
                      struct cb_error *err) {
  const char *other = parallel_given      ? "--parallel"
                      : t->exhaustive     ? "--exhaustive"
                      : t->resume         ? "--resume"
                      : t->no_search      ? "--no-search"
                      : t->trials         ? "--trials"
                      : t->plugin_out     ? "--plugin-out"
                      : t->algorithms     ? "--tune-algorithms"
                      : t->protocols      ? "--tune-protocols"
                      : t->ctas           ? "--tune-ctas"
                      : t->segments_given ? "--tune-segments"
                      : t->buckets_given  ? "--tune-buckets"
                                          : NULL;
  if (other)
    return cb_fail(err, CB_USAGE,
                   "%s with --tune --calls %s: tuning a job's calls searches each call's "
                   "coll/tuned algorithms at its size, with no other options (not built)",
                   other, path);
  t->calls_path = path; /* t->calls: the plan's, once read (cb_run_plan_build) */
  return CB_OK;
}
