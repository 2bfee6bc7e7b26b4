/* The performance model's mode: --fit FILE... [--validate FILE...]
 * [--predict ...] (bench/model/), without MPI: its options, its parser,
 * its --help section. */
#include <string.h>

#include "args.h"
#include "base/dtype.h"
#include "base/units.h"
#include "cli.h"
#include "mode.h"
#include "model/model.h"
#include "results/overhead.h"

static const char *mop_name(int i) { /* for "did you mean" */
  return cb_mop_names[i];
}
static const char *dtype_name(int i) {
  return cb_dtypes[i].name;
}
static const char *redop_name(int i) {
  return cb_redop_names[i];
}

/* One value of a list option (--dtype, --redop): the model predicts for one. */
static int one_of(const char *v, const char *what, int (*lookup)(const char *),
                  const char *(*name_of)(int), int all, int *id, struct cb_error *err) {
  int ids[16], n;
  if (cb_cli_parse_list(v, what, lookup, name_of, all, ids, &n, 16, err))
    return err->status;
  if (n > 1)
    return cb_fail(err, CB_USAGE, "%s '%s': --predict takes one value", what, v);
  *id = ids[0];
  return CB_OK;
}

static int wants(int argc, char **argv) {
  return cb_option_given(argc, argv, OPT_FIT) || cb_option_given(argc, argv, OPT_PREDICT);
}

/* One option with its value (by its row's code). */
static int model_option(int code, const char *v, struct cb_model_cli *m, uint64_t range[2],
                        struct cb_error *err) {
  switch (code) {
  case 'J': m->json_path = v; return CB_OK;
  case OPT_TOPOLOGY:
    m->topology = v;
    m->topology_part = cb_cli_topology_part();
    return CB_OK;
  case OPT_TRIALS: m->trials = v; return CB_OK;
  case OPT_GPUS:
    return cb_parse_long_list(v, "--gpus", 1, 1L << 30, m->gpus, CB_MAX_MODEL_LIST, &m->ngpus, err);
  case OPT_GPUS_PER_NODE:
    return cb_parse_long(v, "--gpus-per-node", 1, 1 << 20, &m->gpus_per_node, err);
  case OPT_SIZE:
    return cb_parse_size_list(v, "--size", 0, m->sizes, CB_MAX_MODEL_LIST, &m->nsizes, err);
  case 'b': return cb_parse_size(v, "--min-bytes", &range[0], err);
  case 'e': return cb_parse_size(v, "--max-bytes", &range[1], err);
  case OPT_OP:
    return cb_cli_parse_list(v, "--op", cb_mop_find, mop_name, CB_NMOPS, m->ops, &m->nops, 8, err);
  case 'd': return one_of(v, "--dtype", cb_dtype_lookup, dtype_name, CB_NDTYPES, &m->dtype, err);
  case 'o': return one_of(v, "--redop", cb_redop_lookup, redop_name, CB_NREDOPS, &m->redop, err);
  case OPT_COMPUTE_TIME:
    return cb_parse_seconds(v, "--compute-time", 1e-9, 1e6, &m->compute_s, err);
  case OPT_GRAD_BYTES: return cb_parse_size(v, "--grad-bytes", &m->grad_bytes, err);
  case OPT_BUCKET:
    return cb_parse_size_list(v, "--bucket", 0, m->buckets, CB_MAX_MODEL_LIST, &m->nbuckets, err);
  case OPT_MAX_OVERHEAD: return cb_overhead_parse(v, "--max-overhead", &m->max_overhead, err);
  case OPT_OVERLAP:
    m->overlap_measured = strcmp(v, "measured") == 0;
    if (!m->overlap_measured)
      return cb_parse_double(v, "--overlap (0 to 1, or 'measured')", 0, 1, &m->overlap, err);
    return CB_OK;
  }
  return CB_OK;
}

/* Defaults and the rules between options, once everything is read. */
static int model_check(struct cb_model_cli *m, const uint64_t range[2], const char *predict_only,
                       int bucket_given, int overlap_given, int fit_given, int validate_given,
                       struct cb_error *err) {
  if (fit_given && !m->nfit)
    return cb_fail(err, CB_USAGE, "--fit needs at least one JSON Lines file");
  if (validate_given && !m->nvalidate)
    return cb_fail(err, CB_USAGE, "--validate needs at least one JSON Lines file");
  if (predict_only && !m->predict)
    return cb_fail(err, CB_USAGE, "%s goes with --predict", predict_only);
  if (m->topology && !m->predict && !m->nvalidate)
    return cb_fail(err, CB_USAGE, "--topology goes with --predict or --validate");
  if (m->nvalidate && !m->nfit)
    return cb_fail(err, CB_USAGE, "--validate needs --fit FILE... to predict from");
  if (m->predict && !m->nfit && !m->topology)
    return cb_fail(err, CB_USAGE, "--predict needs --fit FILE... or --topology FILE");
  if ((m->compute_s > 0) != (m->grad_bytes > 0))
    return cb_fail(err, CB_USAGE, "--compute-time and --grad-bytes go together");
  if (m->trials && m->compute_s > 0)
    return cb_fail(err, CB_USAGE,
                   "--trials %s gives the step; --compute-time and --grad-bytes give another: "
                   "one of the two",
                   m->trials);
  if (bucket_given && m->compute_s == 0 && !m->trials)
    return cb_fail(err, CB_USAGE, "--bucket needs --compute-time and --grad-bytes (or --trials)");
  if (overlap_given && m->compute_s == 0 && !m->trials)
    return cb_fail(err, CB_USAGE,
                   "--overlap needs a step: --compute-time and --grad-bytes, or --trials");
  if (m->overlap_measured && !m->trials)
    return cb_fail(err, CB_USAGE,
                   "--overlap measured needs --trials FILE (a --tune run's measured efficiency)");
  if (!overlap_given || m->overlap_measured) /* measured: 1 until the file says otherwise */
    m->overlap = 1;
  if (!m->max_overhead)
    m->max_overhead = CB_OVERHEAD_DEFAULT_TARGET;
  if (m->nsizes && (range[0] || range[1]))
    return cb_fail(err, CB_USAGE, "--size and -b/-e exclude each other");
  if (range[0] || range[1]) {
    uint64_t lo = range[0] ? range[0] : 8, hi = range[1] ? range[1] : 64u << 20;
    if (lo > hi)
      return cb_fail(err, CB_USAGE, "--min-bytes %llu is above --max-bytes %llu",
                     (unsigned long long)lo, (unsigned long long)hi);
    for (uint64_t b = lo; b <= hi && m->nsizes < CB_MAX_MODEL_LIST; b *= 2)
      m->sizes[m->nsizes++] = b;
  }
  m->sizes_given = m->nsizes > 0;
  if (!m->nsizes)
    m->sizes[m->nsizes++] = 64u << 20;
  if (!m->ngpus) /* default 8, 16, ... 16384 */
    for (long g = 8; g <= 16384; g *= 2)
      m->gpus[m->ngpus++] = g;
  if (!bucket_given)
    for (int i = 0; i < 5; i++)
      m->buckets[m->nbuckets++] =
          (uint64_t[]){1u << 20, 4u << 20, 25u << 20, 100u << 20, 400u << 20}[i];
  uint64_t bad;
  if (m->compute_s > 0 && cb_model_buckets_fit(m, m->grad_bytes, &bad))
    return cb_fail(err, CB_USAGE, "--bucket %llu: over a million buckets of --grad-bytes %llu",
                   (unsigned long long)bad, (unsigned long long)m->grad_bytes);
  if (!m->nops)
    for (; m->nops < CB_NMOPS; m->nops++)
      m->ops[m->nops] = m->nops;
  return CB_OK;
}

/* Its own parser, like --report's: --fit and --validate take any number of
 * files (everything up to the next option). */
static int parse_model(int argc, char **argv, union cb_mode_options *o, struct cb_error *err) {
  struct cb_model_cli *m = &o->model;
  memset(m, 0, sizeof *m);
  m->dtype = CB_FLOAT, m->redop = CB_SUM; /* nccl-tests' defaults */
  uint64_t range[2] = {0, 0};
  char predict_only[64] = ""; /* the last option given that needs --predict */
  int bucket_given = 0, overlap_given = 0, fit_given = 0, validate_given = 0;
  int files = 0; /* where file names go: 1 --fit, 2 --validate */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    const struct cb_option *row;
    enum cb_next next = cb_option_next(argc, argv, &i, CB_IN_MODEL, &row, &v);
    if (next == CB_NEXT_ARG) {
      if (!files)
        return cb_fail(err, CB_USAGE, "unexpected argument '%s' (files follow --fit or --validate)",
                       a);
      int *n = files == 1 ? &m->nfit : &m->nvalidate;
      if (*n == CB_MAX_MODEL_FILES)
        return cb_fail(err, CB_USAGE, "at most %d files per option", CB_MAX_MODEL_FILES);
      (files == 1 ? m->fit : m->validate)[(*n)++] = a;
      continue;
    }
    if (next == CB_NEXT_OTHER || (row->arg == CB_ARG_FILES && v))
      return cb_fail(err, CB_USAGE, "option '%s' does not go with --fit or --predict", a);
    if (next == CB_NEXT_MISSING)
      return cb_fail(err, CB_USAGE, "option '%s' needs a value", a);
    files = row->code == OPT_FIT ? 1 : row->code == OPT_VALIDATE ? 2 : 0;
    fit_given |= files == 1, validate_given |= files == 2;
    m->predict |= row->code == OPT_PREDICT;
    bucket_given |= row->code == OPT_BUCKET;
    overlap_given |= row->code == OPT_OVERLAP;
    /* --topology also checks NCCL's model (--validate): its own rule */
    if (row->with && !strcmp(row->with, "--predict") && row->code != OPT_TOPOLOGY)
      snprintf(predict_only, sizeof predict_only, "%.*s", (int)strcspn(a, "="), a);
    if (row->arg == CB_ARG_ONE && model_option(row->code, v, m, range, err))
      return err->status;
  }
  return model_check(m, range, predict_only[0] ? predict_only : NULL, bucket_given, overlap_given,
                     fit_given, validate_given, err);
}

static int run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  (void)argc, (void)argv, (void)err;
  return cb_model_run(&o->model);
}

static const enum cb_section help[] = {CB_SEC_MODEL, CB_SEC_NONE};
static const char *const yields[] = {"import", "report", NULL};
const struct cb_mode_def cb_mode_model = {
    .name = "model",
    .option = OPT_FIT,
    .synopsis = "collbench --fit FILE... [--validate FILE...] [--predict [options]]",
    .sections = help,
    .yields = yields,
    .wants = wants,
    .parse = parse_model,
    .run = run,
};
