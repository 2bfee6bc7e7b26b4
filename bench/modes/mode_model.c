/* The performance model's mode: --fit FILE... [--validate FILE...]
 * [--predict ...] (bench/model/), without MPI: its options, its parser,
 * its --help section. */
#include <string.h>

#include "args.h"
#include "base/dtype.h"
#include "base/units.h"
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
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--fit") == 0 || strcmp(argv[i], "--predict") == 0)
      return 1;
  return 0;
}

/* The model's options that take a value: the first SHARED the measuring
 * modes have too, the rest go with --predict only. */
enum { SHARED = 7 };
static const char *const value_options[] = {"--json",       "-J",
                                            "--op",         "--dtype",
                                            "-d",           "--redop",
                                            "-o",           "--topology",
                                            "--gpus",       "--gpus-per-node",
                                            "--size",       "-b",
                                            "-e",           "--min-bytes",
                                            "--max-bytes",  "--compute-time",
                                            "--grad-bytes", "--bucket",
                                            "--trials",     "--max-overhead",
                                            "--overlap",    NULL};

/* One option with its value; predict_only remembers one that needs --predict. */
static int model_option(const char *opt, const char *v, struct cb_model_cli *m, uint64_t range[2],
                        const char **predict_only, struct cb_error *err) {
  for (int i = SHARED; value_options[i]; i++) /* --topology also checks NCCL's model: --validate */
    if (strcmp(opt, value_options[i]) == 0 && strcmp(opt, "--topology") != 0)
      *predict_only = value_options[i];
  if (strcmp(opt, "--json") == 0 || strcmp(opt, "-J") == 0)
    m->json_path = v;
  else if (strcmp(opt, "--topology") == 0)
    m->topology = v;
  else if (strcmp(opt, "--gpus") == 0)
    return cb_parse_long_list(v, "--gpus", 1, 1L << 30, m->gpus, CB_MAX_MODEL_LIST, &m->ngpus, err);
  else if (strcmp(opt, "--gpus-per-node") == 0)
    return cb_parse_long(v, "--gpus-per-node", 1, 1 << 20, &m->gpus_per_node, err);
  else if (strcmp(opt, "--size") == 0)
    return cb_parse_size_list(v, "--size", 0, m->sizes, CB_MAX_MODEL_LIST, &m->nsizes, err);
  else if (strcmp(opt, "-b") == 0 || strcmp(opt, "--min-bytes") == 0)
    return cb_parse_size(v, "--min-bytes", &range[0], err);
  else if (strcmp(opt, "-e") == 0 || strcmp(opt, "--max-bytes") == 0)
    return cb_parse_size(v, "--max-bytes", &range[1], err);
  else if (strcmp(opt, "--op") == 0)
    return cb_cli_parse_list(v, "--op", cb_mop_find, mop_name, CB_NMOPS, m->ops, &m->nops, 8, err);
  else if (strcmp(opt, "--dtype") == 0 || strcmp(opt, "-d") == 0)
    return one_of(v, "--dtype", cb_dtype_lookup, dtype_name, CB_NDTYPES, &m->dtype, err);
  else if (strcmp(opt, "--redop") == 0 || strcmp(opt, "-o") == 0)
    return one_of(v, "--redop", cb_redop_lookup, redop_name, CB_NREDOPS, &m->redop, err);
  else if (strcmp(opt, "--compute-time") == 0)
    return cb_parse_seconds(v, "--compute-time", 1e-9, 1e6, &m->compute_s, err);
  else if (strcmp(opt, "--grad-bytes") == 0)
    return cb_parse_size(v, "--grad-bytes", &m->grad_bytes, err);
  else if (strcmp(opt, "--bucket") == 0)
    return cb_parse_size_list(v, "--bucket", 0, m->buckets, CB_MAX_MODEL_LIST, &m->nbuckets, err);
  else if (strcmp(opt, "--trials") == 0)
    m->trials = v;
  else if (strcmp(opt, "--max-overhead") == 0)
    return cb_overhead_parse(v, "--max-overhead", &m->max_overhead, err);
  else if (strcmp(opt, "--overlap") == 0) {
    m->overlap_measured = strcmp(v, "measured") == 0;
    if (!m->overlap_measured)
      return cb_parse_double(v, "--overlap (0 to 1, or 'measured')", 0, 1, &m->overlap, err);
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
  const char *predict_only = NULL;
  int bucket_given = 0, overlap_given = 0, fit_given = 0, validate_given = 0;
  int files = 0; /* where file names go: 1 --fit, 2 --validate */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || strcmp(a, "-") == 0) {
      if (!files)
        return cb_fail(err, CB_USAGE, "unexpected argument '%s' (files follow --fit or --validate)",
                       a);
      int *n = files == 1 ? &m->nfit : &m->nvalidate;
      if (*n == CB_MAX_MODEL_FILES)
        return cb_fail(err, CB_USAGE, "at most %d files per option", CB_MAX_MODEL_FILES);
      (files == 1 ? m->fit : m->validate)[(*n)++] = a;
      continue;
    }
    files = 0;
    if (strcmp(a, "--fit") == 0)
      files = fit_given = 1;
    else if (strcmp(a, "--validate") == 0)
      files = 2, validate_given = 1;
    else if (strcmp(a, "--predict") == 0)
      m->predict = 1;
    else {
      char opt[64];
      const char *eq = strchr(a, '='), *v;
      snprintf(opt, sizeof opt, "%.*s", eq && a[1] == '-' ? (int)(eq - a) : (int)strlen(a), a);
      int known = 0;
      for (int k = 0; value_options[k]; k++)
        known |= strcmp(opt, value_options[k]) == 0;
      if (!known)
        return cb_fail(err, CB_USAGE, "option '%s' does not go with --fit or --predict", a);
      if (eq && a[1] == '-')
        v = eq + 1;
      else if (i + 1 < argc)
        v = argv[++i];
      else
        return cb_fail(err, CB_USAGE, "option '%s' needs a value", a);
      bucket_given |= strcmp(opt, "--bucket") == 0;
      overlap_given |= strcmp(opt, "--overlap") == 0;
      if (model_option(opt, v, m, range, &predict_only, err))
        return err->status;
    }
  }
  return model_check(m, range, predict_only, bucket_given, overlap_given, fit_given, validate_given,
                     err);
}

/* An option of the model's given without it: which option it goes with
 * (all but the SHARED ones, which the measuring modes have too). */
static const char *goes_with(const char *option) {
  if (strcmp(option, "--validate") == 0)
    return "--fit";
  for (int i = SHARED; value_options[i]; i++)
    if (value_options[i][1] == '-' && strcmp(option, value_options[i]) == 0)
      return "--predict";
  return NULL;
}

static int run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  (void)argc, (void)argv, (void)err;
  return cb_model_run(&o->model);
}

const char cb_help_model[] =
    "Performance model (no mpirun; bench/model/PLANNING.md):\n"
    "      --fit FILE...        fit latency (alpha) and bandwidth (beta) per op and\n"
    "                           tier (intra-node, inter-node) from --json files\n"
    "      --validate FILE...   predict these files' measurements from the fit and\n"
    "                           print the errors (median and max)\n"
    "      --predict            time and busbw of ring, tree and hierarchical\n"
    "                           algorithms on larger systems, from --fit, --topology\n"
    "                           or both (a fitted tier replaces the topology's)\n"
    "                           and, for a GPU topology, NCCL's own pick and time\n"
    "                           (its cost model; --fit nccl records calibrate it)\n"
    "      --topology FILE      a topology file (topologies/README.md); with --validate,\n"
    "                           NCCL's model is checked against nccl records too\n"
    "      --gpus LIST          cluster sizes (default 8,16,...,16384)\n"
    "      --gpus-per-node N    ranks per node (default: the topology's, else the fitted runs')\n"
    "      --size LIST          message sizes (default 64M; or -b/-e: powers of 2)\n"
    "      --op LIST            ops to fit and predict (default all collectives)\n"
    "  -d, --dtype T            with -o, --redop OP: the data NCCL's pick is for\n"
    "                           (default float sum; NVLS reduces only some pairs)\n"
    "      --compute-time SEC   with --grad-bytes SIZE: predict a training step's\n"
    "                           exposed communication / compute (rho), the\n"
    "                           overhead (exposed / step) and, per bucket size,\n"
    "                           the most GPUs that keep it within --max-overhead\n"
    "      --trials FILE        the step (T_compute, gradient bytes) from a\n"
    "                           --tune --trials file instead, and its measured point\n"
    "      --bucket LIST        gradient bucket sizes (default 1M,4M,25M,100M,400M)\n"
    "      --overlap F          compute's speed while an allreduce runs, 0 to 1\n"
    "                           (default 1: hidden for free; 0: compute waits);\n"
    "                           'measured': from --trials' overlap efficiency\n"
    "      --json FILE          the fit, validation and predictions as JSON\n";

static const char *const help[] = {cb_help_model, NULL};
const struct cb_mode_def cb_mode_model = {
    .name = "model",
    .option = "--fit",
    .synopsis = "collbench --fit FILE... [--validate FILE...] [--predict [options]]",
    .help = help,
    .wants = wants,
    .parse = parse_model,
    .goes_with = goes_with,
    .run = run,
};
