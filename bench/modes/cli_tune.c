/* --tune and its options, in one place: each option as getopt_long
 * returns it, then the rules between them. */
#include "base/units.h"
#include "cli_internal.h"
#include "results/overhead.h"

int cb_cli_tune_option(int c, const char *arg, struct cb_tune_options *t, struct cb_error *err) {
  uint64_t sizes[CB_SPACE_MAX];
  int n;
  switch (c) {
  case OPT_TUNE: t->enabled = 1; return CB_OK;
  case OPT_MODEL: return cb_model_preset(arg, &t->model, err);
  case OPT_MODEL_CONFIG: return CB_OK; /* applied after --model, whatever the order */
  case OPT_EXHAUSTIVE: t->exhaustive = 1; return CB_OK;
  case OPT_NO_SEARCH: t->no_search = 1; return CB_OK;
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
