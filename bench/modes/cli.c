/* The measuring modes' parser (sweep, accept, matrix, probe, copy, tune;
 * mode_run.c, mode_tune.c): getopt_long over the measuring options into
 * struct cb_cli, then the rules between those modes. The file modes parse
 * their own (mode_report.c, mode_model.c, mode_fleet.c). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "base/suggest.h"
#include "base/units.h"
#include "cli.h"
#include "cli_internal.h"
#include "engine/defaults.h"
#include "engine/measure.h"
#include "ops/op.h"
#include "ops/skew.h"
#include "runtime/gpu.h"

/* getopt_long's table: the option table's rows for this parser (run and
 * --tune), built once; rows[k] is long_options[k]'s row. */
static struct option long_options[128];
static const struct cb_option *rows[128];
static char shorts[64] = ":";

static void build_options(void) {
  if (long_options[0].name)
    return;
  int n = 0;
  size_t ns = 1;
  for (int k = 0; k < cb_noptions && n < 127; k++) {
    const struct cb_option *o = &cb_options[k];
    if (!(o->modes & (CB_IN_RUN | CB_IN_TUNE)))
      continue;
    int has = o->arg == CB_ARG_NONE       ? no_argument
              : o->arg == CB_ARG_OPTIONAL ? optional_argument
                                          : required_argument;
    rows[n] = o;
    long_options[n++] = (struct option){o->name, has, 0, o->code};
    if (o->short_name && ns + 2 < sizeof shorts) {
      shorts[ns++] = o->short_name;
      if (has == required_argument)
        shorts[ns++] = ':';
    }
  }
}

static int parse_transports(const char *arg, struct cb_settings *s, struct cb_error *err) {
  static char storage[512];
  if (snprintf(storage, sizeof storage, "%s", arg) >= (int)sizeof storage)
    return cb_fail(err, CB_USAGE, "--transport: list '%s' is too long", arg);
  if (cb_list_check(arg, "--transport", err))
    return err->status;
  s->ntransports = 0;
  char *save = NULL;
  for (char *tok = strtok_r(storage, ",", &save); tok && s->ntransports < CB_MAX_LIST;
       tok = strtok_r(NULL, ",", &save))
    s->transports[s->ntransports++] = tok;
  if (s->ntransports == 0)
    return cb_fail(err, CB_USAGE, "--transport: empty list '%s'", arg);
  return CB_OK;
}

/* Names for "did you mean" (suggest.h), one per list option. */
static const char *dtype_name(int i) {
  return cb_dtypes[i].name;
}
static const char *redop_name(int i) {
  return cb_redop_names[i];
}
static const char *op_name(int i) {
  return cb_ops[i]->name;
}
static const char *backend_name(int i) {
  return cb_backends[i]->name;
}
static const char *mem_name(int i) {
  return cb_mem_names[i];
}
static const char *suggestable[128]; /* the names did-you-mean offers: not old spellings */
static const char *long_name(int i) {
  return suggestable[i];
}

/* The option (without "--") that already chooses what to measure, which
 * --calls and --concurrent, choosing their own ops, do not go with; NULL:
 * none. */
static const char *ops_chosen_by(const struct cb_cli *cli, int op_given) {
  return op_given                     ? "op"
         : cli->sweep                 ? "sweep"
         : cli->tune.enabled          ? "tune"
         : cli->accept_path           ? "accept"
         : cli->matrix                ? "matrix"
         : cli->settings.duration > 0 ? "duration"
                                      : NULL;
}

/* "allreduce@tp,allgather@dp": a collective MPI starts without waiting, at
 * a dimension's communicator, each pair once. */
static int parse_concurrent(const char *arg, struct cb_settings *s, struct cb_error *err) {
  char copy[256], *save = NULL;
  if (snprintf(copy, sizeof copy, "%s", arg) >= (int)sizeof copy)
    return cb_fail(err, CB_USAGE, "--concurrent: '%.40s...' is too long", arg);
  s->nconcurrent = 0;
  if (copy[0] == ',' || strstr(copy, ",,") || (copy[0] && copy[strlen(copy) - 1] == ','))
    return cb_fail(err, CB_USAGE,
                   "--concurrent %s: an empty item; give e.g. allreduce@tp,allgather@dp", arg);
  for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    char *at = strchr(item, '@');
    if (at)
      *at++ = '\0';
    int op = cb_op_lookup(item), dim = at ? cb_dim_lookup(at) : -1;
    if (!at || dim < 0)
      return cb_fail(err, CB_USAGE,
                     "--concurrent %s: '%s%s%s' is not OP@DIM with DIM one of tp, ep, dp, pp", arg,
                     item, at ? "@" : "", at ? at : "");
    if (op < 0 || op > CB_OP_ALLTOALL)
      return cb_fail(err, CB_USAGE,
                     "--concurrent %s: '%s' is not a collective that runs side by side "
                     "(allreduce allgather reducescatter broadcast alltoall)",
                     arg, item);
    for (int i = 0; i < s->nconcurrent; i++)
      if (s->concurrent_op[i] == op && s->concurrent_dim[i] == dim)
        return cb_fail(err, CB_USAGE, "--concurrent %s: %s@%s is given twice", arg, item, at);
    if (s->nconcurrent == CB_MAX_CONCURRENT)
      return cb_fail(err, CB_USAGE, "--concurrent %s: at most %d ops", arg, CB_MAX_CONCURRENT);
    s->concurrent_op[s->nconcurrent] = op;
    s->concurrent_dim[s->nconcurrent++] = dim;
  }
  if (!s->nconcurrent)
    return cb_fail(err, CB_USAGE, "--concurrent: empty; give e.g. allreduce@tp,allgather@dp");
  return CB_OK;
}

/* What the options' loop saw, for the rules between them (cb_cli_parse). */
struct seen {
  int op, backend, factor, mem, max_time, parallel;
  const char *tune_only;    /* the first option of --tune's alone */
  const char *model_config; /* --workload-config's value */
};

enum { NOT_MINE = -1 }; /* a group's parser: the option is another group's */

/* Sizes, iterations and where the root is. */
static int parse_sizes(int c, const char *arg, struct cb_cli *cli, struct seen *seen,
                       struct cb_error *err) {
  struct cb_settings *s = &cli->settings;
  long v;
  switch (c) {
  case 'b': return cb_parse_size(arg, "--min-bytes", &s->min_bytes, err);
  case 'e': return cb_parse_size(arg, "--max-bytes", &s->max_bytes, err);
  case 'i': return cb_parse_size(arg, "--step-bytes", &s->step_bytes, err);
  case 'f':
    seen->factor = 1;
    return cb_parse_long(arg, "--step-factor", 2, 1024, &s->step_factor, err);
  case 'n':
    if (strcmp(arg, "auto") == 0) {
      s->iters = 0;
      return CB_OK;
    }
    return cb_parse_long(arg, "--iters", 1, 1000000000L, &s->iters, err);
  case 'w':
    if (strcmp(arg, "auto") == 0) {
      s->warmup = -1;
      return CB_OK;
    }
    return cb_parse_long(arg, "--warmup", 0, 1000000, &s->warmup, err);
  case 'c': return cb_parse_long(arg, "--check", 0, 1000, &s->check, err);
  case 'r':
    if (cb_parse_long(arg, "--root", 0, 1 << 30, &v, err))
      return err->status;
    s->root = (int)v;
    return CB_OK;
  case OPT_WINDOW:
    if (cb_parse_long(arg, "--window", 1, 65536, &v, err))
      return err->status;
    s->window = (int)v;
    return CB_OK;
  default: return NOT_MINE;
  }
}

/* Which device and interface, and how a GPU is shared. */
static int parse_hardware(int c, const char *arg, struct cb_cli *cli, struct seen *seen,
                          struct cb_error *err) {
  struct cb_settings *s = &cli->settings;
  long v;
  (void)seen;
  switch (c) {
  case OPT_IB_DEV: s->ib_dev = arg; return CB_OK;
  case OPT_UCX_API:
    if (strcmp(arg, "tag") != 0 && strcmp(arg, "put") != 0)
      return cb_fail(err, CB_USAGE, "--ucx-api: unknown value '%s' (tag or put)", arg);
    s->ucx_put = strcmp(arg, "put") == 0;
    return CB_OK;
  case OPT_GID_INDEX:
    if (cb_parse_long(arg, "--gid-index", 0, 255, &v, err))
      return err->status;
    s->gid_index = (int)v;
    return CB_OK;
  case OPT_GPU_LIST: {
    long list[CB_MAX_LIST];
    if (cb_parse_long_list(arg, "--gpu-list", 0, 1023, list, CB_MAX_LIST, &s->ngpu_list, err))
      return err->status;
    for (int i = 0; i < s->ngpu_list; i++)
      s->gpu_list[i] = (int)list[i];
    return CB_OK;
  }
  case OPT_GRAPH: return cb_parse_long(arg, "--graph", 1, 100000, &s->graph, err);
  case OPT_SHARE_GPU: s->share_gpu = 1; return CB_OK;
  case OPT_ROTATE: s->rotate = 1; return CB_OK;
  case OPT_WINDOW_BYTES: return cb_parse_size(arg, "--window-bytes", &s->window_bytes, err);
  default: return NOT_MINE;
  }
}

/* How long: timeouts, precision, a burn-in's duration. */
static int parse_timing(int c, const char *arg, struct cb_cli *cli, struct seen *seen,
                        struct cb_error *err) {
  struct cb_settings *s = &cli->settings;
  (void)seen;
  switch (c) {
  case 'T': return cb_parse_seconds(arg, "--timeout", 0, 1e6, &s->timeout, err);
  case OPT_PRECISION: return cb_parse_double(arg, "--precision", 1e-4, 0.5, &s->precision, err);
  case OPT_MAX_TIME: return cb_parse_seconds(arg, "--max-time", 1e-3, 3600, &s->max_time, err);
  case OPT_DURATION: return cb_parse_duration(arg, "--duration", &s->duration, err);
  case OPT_DRIFT_LIMIT:
    return cb_parse_double(arg, "--drift-limit", 1e-3, 100, &s->drift_limit, err);
  default: return NOT_MINE;
  }
}

/* What to measure: types, ops, layouts, backends, memory, transports. */
static int parse_what(int c, const char *arg, struct cb_cli *cli, struct seen *seen,
                      struct cb_error *err) {
  struct cb_settings *s = &cli->settings;
  switch (c) {
  case 'd':
    return cb_cli_parse_list(arg, "--dtype", cb_dtype_lookup, dtype_name, CB_NDTYPES, s->dtypes,
                             &s->ndtypes, CB_NDTYPES, err);
  case 'o':
    return cb_cli_parse_list(arg, "--redop", cb_redop_lookup, redop_name, CB_NREDOPS, s->redops,
                             &s->nredops, CB_NREDOPS, err);
  case OPT_OP:
    if (strcmp(arg, "copy") == 0) {
      cli->copy = 1;
      return CB_OK;
    }
    for (const char *c = strstr(arg, "copy"); c; c = strstr(c + 1, "copy"))
      if ((c == arg || c[-1] == ',') && (c[4] == ',' || c[4] == '\0'))
        return cb_fail(err, CB_USAGE, "--op %s: copy is a mode of its own, give it alone", arg);
    return cb_cli_parse_list(arg, "--op", cb_op_lookup, op_name, CB_NSWEPT_OPS, s->ops, &s->nops,
                             CB_NOPS, err);
  case OPT_PARALLEL: seen->parallel = 1; return cb_parallel_parse(arg, &s->parallel, err);
  case OPT_CONCURRENT: return parse_concurrent(arg, s, err);
  case OPT_CALLS: cli->calls_path = arg; return CB_OK; /* read into the plan, before MPI */
  case OPT_SKEW: {
    struct cb_skew *k = calloc(1, sizeof *k);
    if (!k)
      return cb_fail(err, CB_RUNTIME, "--skew: out of memory");
    if (cb_skew_parse(arg, k, err)) {
      free(k);
      return err->status;
    }
    if (s->skew) /* given twice: the last one */
      cb_skew_free(s->skew), free(s->skew);
    s->skew = k;
    return CB_OK;
  }
  case OPT_BACKEND:
    return cb_cli_parse_list(arg, "--backend", cb_backend_lookup, backend_name, cb_nbackends,
                             s->backends, &s->nbackends, CB_MAX_LIST, err);
  case OPT_MEM:
    seen->mem = 1;
    return cb_cli_parse_list(arg, "--mem", cb_mem_lookup, mem_name, CB_NMEMS, s->mems, &s->nmems,
                             CB_NMEMS, err);
  case OPT_TRANSPORT: return parse_transports(arg, s, err);
  default: return NOT_MINE;
  }
}

/* How to time and judge a row. */
static int parse_how(int c, const char *arg, struct cb_cli *cli, struct seen *seen,
                     struct cb_error *err) {
  struct cb_settings *s = &cli->settings;
  (void)seen;
  switch (c) {
  case OPT_TIMING:
    if (strcmp(arg, "throughput") == 0)
      s->timing = CB_TIMING_THROUGHPUT;
    else if (strcmp(arg, "latency") == 0)
      s->timing = CB_TIMING_LATENCY;
    else
      return cb_fail(err, CB_USAGE, "--timing: unknown value '%s' (throughput or latency)", arg);
    return CB_OK;
  case OPT_STAT:
    if ((s->stat = cb_stat_find(arg)) < 0)
      return cb_fail(err, CB_USAGE, "--stat: unknown value '%s' (median, mean or min)", arg);
    return CB_OK;
  case OPT_REGISTER:
    for (s->reg = 0; s->reg < CB_NREGISTERS; s->reg++)
      if (strcmp(arg, cb_register_names[s->reg]) == 0)
        return CB_OK;
    return cb_fail(err, CB_USAGE, "--register: unknown value '%s' (none, local or symmetric)", arg);
  case OPT_VARIANT:
    for (s->variant = 0; s->variant < CB_NVARIANTS; s->variant++)
      if (strcmp(arg, cb_variant_names[s->variant]) == 0)
        return CB_OK;
    return cb_fail(err, CB_USAGE, "--variant: unknown value '%s' (out-of-place, in-place or both)",
                   arg);
  default: return NOT_MINE;
  }
}

/* Outputs and the mode asked for. */
static int parse_outputs(int c, const char *arg, struct cb_cli *cli, struct seen *seen,
                         struct cb_error *err) {
  (void)seen;
  switch (c) {
  case 'J': cli->json_path = arg; return CB_OK;
  case OPT_CSV: cli->csv_path = arg; return CB_OK;
  case OPT_PROM: cli->prom_path = arg; return CB_OK;
  case OPT_JUNIT: cli->junit_path = arg; return CB_OK;
  case OPT_EXCLUDE_OUT: cli->exclude_path = arg; return CB_OK;
  case OPT_ACCEPT: cli->accept_path = arg; return CB_OK;
  case OPT_DRY_RUN: cli->dry_run = 1; return CB_OK;
  case OPT_BASELINE: cli->baseline_path = arg; return CB_OK;
  case OPT_REPEAT: return cb_parse_long(arg, "--repeat", 0, 100, &cli->repeat, err);
  case OPT_MATRIX:
    cli->matrix = 1;
    return arg ? cb_parse_size(arg, "--matrix", &cli->matrix_bytes, err) : CB_OK;
  case OPT_SWEEP: cli->sweep = 1; return CB_OK;
  case OPT_PROBE: cli->probe = 1; return CB_OK;
  case OPT_PROGRESS: cli->progress = 1; return CB_OK;
  case OPT_NO_PROGRESS: cli->progress = 0; return CB_OK;
  case OPT_LIST: cli->list = 1; return CB_OK;
  case 'h': cli->help = 1; return CB_OK;
  case 'V': cli->version = 1; return CB_OK;
  default: return NOT_MINE;
  }
}

/* One option, by the group that takes it; the rest are --tune's. */
static int parse_option(int c, const char *arg, struct cb_cli *cli, struct seen *seen,
                        struct cb_error *err) {
  static int (*const groups[])(int, const char *, struct cb_cli *, struct seen *,
                               struct cb_error *) = {parse_sizes, parse_hardware, parse_timing,
                                                     parse_what,  parse_how,      parse_outputs};
  for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
    int rc = groups[g](c, arg, cli, seen, err);
    if (rc != NOT_MINE)
      return rc;
  }
  return cb_cli_tune_option(c, arg, &cli->tune, err);
}

/* A [check] key's row: the option of that name ('_' for '-') that a check
 * takes, or NULL. */
static const struct cb_option *check_row(const char *key) {
  char name[32];
  size_t n = strlen(key);
  if (n >= sizeof name)
    return NULL;
  for (size_t i = 0; i <= n; i++)
    name[i] = key[i] == '_' ? '-' : key[i];
  for (int k = 0; k < cb_noptions; k++)
    if ((cb_options[k].modes & CB_IN_CHECK) && strcmp(cb_options[k].name, name) == 0)
      return &cb_options[k];
  return NULL;
}

static int check_find(const char *key) {
  const struct cb_option *o = check_row(key);
  return o ? o->code : -1;
}

/* The option's value over s, by the group parsers the command line's goes
 * through (a check's options are settings alone). */
static int check_apply(int code, const char *value, struct cb_settings *s, struct cb_error *err) {
  static struct cb_cli scratch;
  struct seen seen = {0};
  scratch.settings = *s;
  int rc = parse_option(code, value, &scratch, &seen, err);
  if (rc == CB_OK)
    *s = scratch.settings;
  return rc;
}

static const char *check_names(void) {
  static char names[512];
  if (names[0])
    return names;
  size_t len = 0;
  for (int k = 0; k < cb_noptions && len < sizeof names; k++)
    if (cb_options[k].modes & CB_IN_CHECK) {
      len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                              cb_options[k].name);
    }
  for (char *p = names; *p; p++) /* a file's spelling */
    *p = *p == '-' ? '_' : *p;
  return names;
}

const struct cb_check_reader cb_cli_check_reader = {check_find, check_apply, check_names};

const struct cb_topo_part *cb_cli_topology_part(void) {
  static struct cb_accept_spec spec;
  static struct cb_topo_part part;
  return cb_accept_spec_part(&spec, &part, &cb_cli_check_reader);
}

/* The modes that choose their own work (--probe, --op copy, --accept,
 * --matrix) and the options they refuse beside them, in the order a
 * refusal names them; gpu_matrix_takes: the GPU matrix (--matrix
 * --backend nccl) takes it. */
enum { M_PROBE = 1, M_COPY = 2, M_ACCEPT = 4, M_MATRIX = 8 };
enum {
  G_COPY = 1,
  G_SWEEP = 2,
  G_OP = 4,
  G_BACKEND = 8,
  G_MEM = 16,
  G_ACCEPT = 32,
  G_MATRIX = 64,
  G_TUNE = 128
};
static const struct refusal {
  unsigned modes, given;
  int gpu_matrix_takes;
  const char *option;
} refusals[] = {
    {M_PROBE, G_COPY, 0, "op copy"},
    {M_PROBE | M_COPY | M_ACCEPT | M_MATRIX, G_SWEEP, 0, "sweep"},
    {M_PROBE | M_ACCEPT | M_MATRIX, G_OP, 0, "op"}, /* --op copy is the copy mode's own */
    {M_PROBE | M_COPY | M_ACCEPT | M_MATRIX, G_BACKEND, 1, "backend"},
    {M_PROBE | M_COPY | M_ACCEPT | M_MATRIX, G_MEM, 1, "mem"},
    {M_PROBE | M_COPY, G_ACCEPT, 0, "accept"},
    {M_PROBE | M_COPY, G_MATRIX, 0, "matrix"},
    {M_PROBE | M_COPY, G_TUNE, 0, "tune"},
};

/* The first option mode refuses among those given, or NULL. */
static const char *refused(unsigned mode, unsigned given, int gpu_matrix) {
  for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++)
    if ((refusals[i].modes & mode) && (refusals[i].given & given) &&
        !(refusals[i].gpu_matrix_takes && gpu_matrix))
      return refusals[i].option;
  return NULL;
}

/* An option the measuring modes do not know: named in the refusal, and
 * kept for the modes' table to say which mode it goes with, if any. */
static int unknown_option(const char *bad, struct cb_cli *cli, struct cb_error *err) {
  snprintf(cli->unknown, sizeof cli->unknown, "%.*s", (int)strcspn(bad, "="), bad);
  char hint[96];
  const char *near = NULL;
  if (bad[0] == '-' && bad[1] == '-') {
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(bad + 2, "="), bad + 2);
    int n = 0;
    for (int k = 0; long_options[k].name; k++)
      if (!rows[k]->renamed_to)
        suggestable[n++] = long_options[k].name;
    near = cb_suggest(word, long_name, n);
    if (near)
      snprintf(word, sizeof word, "--%s", near), near = word;
    return cb_fail(err, CB_USAGE, "unknown option '%s'%s (see --help)", bad,
                   cb_suggest_text(near, hint, sizeof hint));
  }
  return cb_fail(err, CB_USAGE, "unknown option '%s' (see --help)", bad);
}

/* The options into cli, each parsed as it comes (getopt_long); what the
 * rules between them need into seen. */
static int read_options(int argc, char **argv, struct cb_cli *cli, struct seen *seen,
                        struct cb_error *err) {
  /* 0, not 1: glibc, musl and the BSDs then also drop the rest of an
   * option group ("-Zh") an earlier call stopped in, which they would
   * otherwise go on reading (a crash, with another argv). */
  optind = 0;
  opterr = 0; /* we report errors ourselves, once, with the bad value */
  build_options();
  for (;;) {
    int prev = optind ? optind : 1;
    int li = -1;
    int c = getopt_long(argc, argv, shorts, long_options, &li);
    if (c == -1)
      break;
    if (li >= 0 && rows[li]->renamed_to && cli->nrenamed < 4)
      cli->renamed[cli->nrenamed++] = long_options[li].name;
    const char *bad = argv[prev < argc ? prev : argc - 1];
    if (c == '?')
      return unknown_option(bad, cli, err);
    if (c == ':')
      return cb_fail(err, CB_USAGE, "option '%s' needs a value", bad);
    seen->op |= c == OPT_OP;
    seen->max_time |= c == OPT_MAX_TIME;
    seen->backend |= c == OPT_BACKEND;
    if (li >= 0 && rows[li]->modes == CB_IN_TUNE && !seen->tune_only)
      seen->tune_only = argv[prev];
    if (c == OPT_WORKLOAD_CONFIG)
      seen->model_config = optarg;
    if (parse_option(c, optarg, cli, seen, err))
      return err->status;
  }
  if (optind < argc)
    return cb_fail(err, CB_USAGE, "unexpected argument '%s' (see --help)", argv[optind]);
  return CB_OK;
}

/* The options given that modes choosing their own work refuse (G_*). */
static unsigned given_of(const struct cb_cli *cli, const struct seen *seen) {
  return (cli->copy ? G_COPY : 0) | (cli->sweep ? G_SWEEP : 0) | (seen->op ? G_OP : 0) |
         (seen->backend ? G_BACKEND : 0) | (seen->mem ? G_MEM : 0) |
         (cli->accept_path ? G_ACCEPT : 0) | (cli->matrix ? G_MATRIX : 0) |
         (cli->tune.enabled ? G_TUNE : 0);
}

/* --probe and --op copy choose what they run. */
static int check_self_choosing(const struct cb_cli *cli, unsigned given, struct cb_error *err) {
  if (cli->probe || cli->copy) { /* modes that choose what to run themselves */
    const char *mode = cli->probe ? "--probe" : "--op copy";
    const char *other = refused(cli->probe ? M_PROBE : M_COPY, given, 0);
    if (other)
      return cb_fail(err, CB_USAGE, "%s chooses what to run itself: --%s does not go with it", mode,
                     other);
    if (cli->junit_path || cli->exclude_path)
      return cb_fail(err, CB_USAGE, "--%s %s: only --accept and --matrix give verdicts to write",
                     cli->junit_path ? "junit" : "exclude-out",
                     cli->junit_path ? cli->junit_path : cli->exclude_path);
    if (cli->probe && (cli->csv_path || cli->prom_path))
      return cb_fail(err, CB_USAGE, "--%s %s: --probe has no results to write; it goes with --json",
                     cli->csv_path ? "csv" : "prom",
                     cli->csv_path ? cli->csv_path : cli->prom_path);
  }
  return CB_OK;
}

/* --accept and --matrix choose what they measure and give verdicts; the
 * options for verdicts go with them only. */
static int check_verdicts(const struct cb_cli *cli, const struct seen *seen, unsigned given,
                          struct cb_error *err) {
  const struct cb_settings *s = &cli->settings;
  /* --matrix --backend nccl: the GPU all-pairs matrix, device memory only */
  int gpu_matrix = cli->matrix && !cli->accept_path && seen->backend && s->nbackends == 1 &&
                   cb_backends[s->backends[0]]->shift;
  if (gpu_matrix && seen->mem && (s->nmems != 1 || s->mems[0] != CB_MEM_DEVICE))
    return cb_fail(err, CB_USAGE,
                   "--matrix --backend %s --mem %s: the %s matrix moves device memory "
                   "(--mem device, or no --mem)",
                   cb_backends[s->backends[0]]->name, cb_mem_names[s->mems[0]],
                   cb_backends[s->backends[0]]->name);
  if (cli->accept_path || cli->matrix) {
    const char *mode = cli->accept_path ? "--accept" : "--matrix";
    if (cli->matrix && seen->backend && !gpu_matrix)
      return cb_fail(err, CB_USAGE,
                     "--matrix --backend %s%s: the matrix runs over MPI (no --backend) or over "
                     "NCCL (--backend nccl, one rank per GPU), one of them",
                     cb_backends[s->backends[0]]->name, s->nbackends > 1 ? ",..." : "");
    const char *other = refused(cli->accept_path ? M_ACCEPT : M_MATRIX, given, gpu_matrix);
    if (other)
      return cb_fail(err, CB_USAGE, "%s chooses what to measure itself: --%s does not go with it",
                     mode, other);
    if (cli->tune.enabled)
      return cb_fail(err, CB_USAGE, "%s and --tune: choose one", mode);
    if (cli->accept_path && cli->matrix)
      return cb_fail(err, CB_USAGE,
                     "--accept and --matrix: choose one (a [matrix] section in the "
                     "file makes --accept run the matrix too)");
    if (cli->dry_run && (cli->matrix || s->duration > 0 || cli->json_path || cli->csv_path ||
                         cli->prom_path || cli->junit_path || cli->exclude_path))
      return cb_fail(err, CB_USAGE,
                     "--dry-run goes with --accept FILE alone: it measures nothing, so it has no "
                     "burn-in, matrix or output files");
    if (cli->matrix && (cli->baseline_path || cli->repeat >= 0))
      return cb_fail(err, CB_USAGE,
                     "--%s goes with --accept FILE (a [matrix] section there judges the pairs "
                     "against the baseline)",
                     cli->baseline_path ? "baseline" : "repeat");
  } else if (cli->junit_path || cli->exclude_path)
    return cb_fail(err, CB_USAGE, "--%s %s: only --accept and --matrix give verdicts to write",
                   cli->junit_path ? "junit" : "exclude-out",
                   cli->junit_path ? cli->junit_path : cli->exclude_path);
  else if (cli->repeat >= 0)
    return cb_fail(err, CB_USAGE, "--repeat %ld goes with --accept FILE --baseline FILE",
                   cli->repeat);
  if (cli->dry_run && !cli->accept_path)
    return cb_fail(err, CB_USAGE, "--dry-run goes with --accept FILE (the checks it prints)");
  return CB_OK;
}

/* --duration: a burn-in, of a sweep, --accept or --matrix; --resume goes on
 * with a sweep's. */
static int check_burnin(struct cb_cli *cli, struct seen *seen, struct cb_error *err) {
  const struct cb_settings *s = &cli->settings;
  if (s->duration > 0 && (cli->probe || cli->copy || cli->tune.enabled))
    return cb_fail(err, CB_USAGE,
                   "--duration goes with a sweep (--sweep, or --op/--backend/--mem), --accept or "
                   "--matrix: a burn-in of %s is not built",
                   cli->probe  ? "--probe"
                   : cli->copy ? "--op copy"
                               : "--tune");
  if (s->drift_limit > 0 && s->duration <= 0)
    return cb_fail(err, CB_USAGE, "--drift-limit goes with --duration (it judges a burn-in)");
  if (s->duration > 0 && cli->tune.resume && (cli->accept_path || cli->matrix))
    return cb_fail(err, CB_USAGE,
                   "--resume with --duration goes on with a sweep's burn-in; one of --%s starts "
                   "again (its passes are judged whole)",
                   cli->accept_path ? "accept" : "matrix");
  if (s->duration > 0 && cli->tune.resume && !cli->tune.enabled) {
    /* --resume continues what the mode writes: --tune's trials, a burn-in's --json */
    cli->resume = 1, cli->tune.resume = 0;
    if (seen->tune_only && strcmp(seen->tune_only, "--resume") == 0)
      seen->tune_only = NULL;
    if (!cli->json_path)
      return cb_fail(err, CB_USAGE,
                     "--resume --duration needs --json FILE (the burn-in to go on with)");
    if (cli->csv_path)
      return cb_fail(err, CB_USAGE,
                     "--csv %s with --resume: a burn-in goes on in its --json file only",
                     cli->csv_path);
  }
  return CB_OK;
}

/* --tune and the options of its own (cli_tune.c), and what it tunes. */
static int check_tune(struct cb_cli *cli, const struct seen *seen, struct cb_error *err) {
  struct cb_settings *s = &cli->settings;
  if (cb_cli_tune_check(&cli->tune, seen->tune_only, seen->model_config, &cli->tune, err))
    return err->status;
  if (cli->tune.enabled &&
      cb_cli_tune_layout(&cli->tune, &s->parallel, seen->parallel, s->skew, s->nconcurrent, err))
    return err->status;
  if (cli->tune.enabled && cli->sweep) /* it would be accepted and ignored */
    return cb_fail(err, CB_USAGE,
                   "option '--sweep' does not go with --tune: it tunes the all-reduce");
  if (cli->tune.enabled && seen->op)
    return cb_fail(err, CB_USAGE, "--op does not go with --tune: it tunes the all-reduce");
  if (cli->tune.enabled && seen->backend) { /* which all-reduce --tune tunes */
    const char *name = cb_backends[s->backends[0]]->name;
    if (s->nbackends != 1 || (strcmp(name, "mpi") && strcmp(name, "nccl")))
      return cb_fail(err, CB_USAGE, "--tune --backend: mpi (host) or nccl (GPU), one of them");
    cli->tune.backend = name;
  }
  return CB_OK;
}

/* A sweep's ops and its time a row, where not given; its backends and
 * memory kinds, where not given, are every one that works here (none now:
 * cb_run_plan_build finds them). */
static void sweep_defaults(struct cb_cli *cli, const struct seen *seen) {
  struct cb_settings *s = &cli->settings;
  if (cli->sweep) {
    /* A sweep visits some 250 rows; 1 s each would take minutes wherever
     * the machine is too noisy to reach --precision early. */
    if (!seen->max_time)
      s->max_time = CB_SWEEP_MAX_TIME;
    if (!seen->op)
      for (s->nops = 0; s->nops < CB_NSWEPT_OPS; s->nops++)
        s->ops[s->nops] = s->nops;
    if (!seen->backend)
      s->nbackends = 0;
    if (!seen->mem)
      s->nmems = 0;
  }
}

/* --calls and --concurrent name the ops they run. */
static int check_own_ops(struct cb_cli *cli, const struct seen *seen, struct cb_error *err) {
  struct cb_settings *s = &cli->settings;
  if (cli->calls_path) { /* --calls: the job's ops at the job's sizes */
    const char *other = s->nconcurrent ? "concurrent" : ops_chosen_by(cli, seen->op);
    if (other && strcmp(other, "tune") == 0) { /* --tune --calls: tune exactly those */
      if (cb_cli_tune_calls(&cli->tune, cli->calls_path, seen->parallel, err))
        return err->status;
      other = NULL;
    }
    if (other)
      return cb_fail(err, CB_USAGE,
                     "--calls %s names the ops and sizes it measures: --%s does not go with it",
                     cli->calls_path, other);
  }
  if (!cli->tune.enabled && (s->nconcurrent || seen->parallel)) { /* its own ops */
    char layout[48];
    cb_parallel_format(&s->parallel, layout, sizeof layout);
    if (!s->nconcurrent)
      return cb_fail(err, CB_USAGE,
                     "--parallel %s lays out --concurrent's communicators: give --concurrent "
                     "OP@DIM,... (e.g. allreduce@tp)",
                     layout);
    if (!seen->parallel)
      return cb_fail(err, CB_USAGE,
                     "--concurrent needs --parallel, the layout whose communicators it runs on "
                     "(e.g. --parallel tp=2,dp=2)");
    const char *other = ops_chosen_by(cli, seen->op);
    if (other)
      return cb_fail(err, CB_USAGE, "--concurrent names the ops it runs: --%s does not go with it",
                     other);
    for (int i = 0; i < s->nconcurrent; i++)
      if (s->parallel.size[s->concurrent_dim[i]] < 2)
        return cb_fail(err, CB_USAGE,
                       "--concurrent %s@%s: --parallel gives %s=%d, so there are no %s groups "
                       "of 2 or more ranks",
                       cb_ops[s->concurrent_op[i]]->name, cb_dim_names[s->concurrent_dim[i]],
                       cb_dim_names[s->concurrent_dim[i]], s->parallel.size[s->concurrent_dim[i]],
                       cb_dim_names[s->concurrent_dim[i]]);
    int nccl = 0;
    for (int i = 0; i < s->nbackends; i++) {
      nccl |= !strcmp(cb_backends[s->backends[i]]->name, "nccl");
      if (!cb_backends[s->backends[i]]->split)
        return cb_fail(err, CB_USAGE,
                       "--concurrent runs on the mpi backend (non-blocking collectives on split "
                       "communicators) and the nccl one (split communicators, a stream each); "
                       "not on %s",
                       cb_backends[s->backends[i]]->name);
    }
    if (nccl && s->nbackends > 1)
      return cb_fail(err, CB_USAGE,
                     "--concurrent runs one backend: --backend mpi (host memory) or nccl (device "
                     "memory), not both");
    /* MPI's host buffers, NCCL's device ones */
    for (int i = 0; i < s->nmems; i++)
      if (s->mems[i] != (nccl ? CB_MEM_DEVICE : CB_MEM_HOST))
        return cb_fail(err, CB_USAGE,
                       "--concurrent measures host memory on mpi and device memory on nccl, not "
                       "--mem %s on %s",
                       cb_mem_names[s->mems[i]], nccl ? "nccl" : "mpi");
  }
  return CB_OK;
}

/* --backend nccl without --mem: device memory. */
static void nccl_memory(struct cb_cli *cli, const struct seen *seen) {
  struct cb_settings *s = &cli->settings;
  if (!seen->mem && !cli->sweep)
    for (int i = 0; i < s->nbackends; i++)
      if (strcmp(cb_backends[s->backends[i]]->name, "nccl") == 0) {
        /* NCCL moves device memory only: asking for it means asking for that */
        if (s->nbackends == 1)
          s->nmems = 0;
        s->mems[s->nmems++] = CB_MEM_DEVICE;
        break;
      }
}

/* --ib-dev DEVICE[:PORT] (a port 1..255), as the verbs backend reads it;
 * checked here so that a typo is refused before anything runs. */
static int ib_dev_ok(const char *spec) {
  const char *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  if (n == 0 || n >= 64)
    return 0;
  if (!colon)
    return 1;
  char *end;
  long p = strtol(colon + 1, &end, 10);
  return end != colon + 1 && !*end && p >= 1 && p <= 255;
}

/* The values that do not go together, whatever the mode. */
static int check_values(const struct cb_cli *cli, struct cb_error *err) {
  const struct cb_settings *s = &cli->settings;
  char a[32], b[32];
  if (s->min_bytes > s->max_bytes)
    return cb_fail(err, CB_USAGE, "--min-bytes %s is larger than --max-bytes %s",
                   cb_format_size(s->min_bytes, a, sizeof a),
                   cb_format_size(s->max_bytes, b, sizeof b));
  if (s->ib_dev && !ib_dev_ok(s->ib_dev))
    return cb_fail(err, CB_USAGE, "--ib-dev '%s' is not DEVICE[:PORT] (a port from 1 to 255)",
                   s->ib_dev);
  if (s->timing == CB_TIMING_LATENCY && s->iters > CB_MAX_SAMPLES)
    return cb_fail(err, CB_USAGE, "--iters %ld: latency mode keeps every sample, at most %d",
                   s->iters, CB_MAX_SAMPLES);
  uint64_t sizes[CB_MAX_SIZES + 1];
  if (cb_settings_sizes(s, sizes, CB_MAX_SIZES + 1) > CB_MAX_SIZES)
    return cb_fail(err, CB_USAGE, "--step-bytes %s gives more than %d sizes",
                   cb_format_size(s->step_bytes, a, sizeof a), CB_MAX_SIZES);
  int skewed = 0;
  for (int i = 0; i < s->nops; i++)
    skewed |= cb_ops[s->ops[i]]->skewed;
  if (s->skew && !skewed && !cli->tune.enabled) /* --tune --parallel: ep's dispatch */
    return cb_fail(err, CB_USAGE,
                   "--skew %s shapes alltoallv's traffic, and --op has no alltoallv; add "
                   "--op alltoallv",
                   s->skew->label);
  if (s->rotate && s->graph > 0)
    return cb_fail(err, CB_USAGE,
                   "--rotate does not go with --graph %ld: a captured graph replays one "
                   "buffer's addresses",
                   s->graph);
  return CB_OK;
}

int cb_cli_parse(int argc, char **argv, struct cb_cli *cli, struct cb_error *err) {
  memset(cli, 0, sizeof *cli);
  cli->progress = -1;
  cli->repeat = -1;
  cb_settings_defaults(&cli->settings);
  cb_tune_options_defaults(&cli->tune);
  struct seen seen = {0};
  if (read_options(argc, argv, cli, &seen, err))
    return err->status;
  if (seen.factor && cli->settings.step_bytes)
    return cb_fail(err, CB_USAGE, "give either --step-factor or --step-bytes, not both");
  unsigned given = given_of(cli, &seen);
  if (check_self_choosing(cli, given, err) || check_verdicts(cli, &seen, given, err) ||
      check_burnin(cli, &seen, err) || check_tune(cli, &seen, err))
    return err->status;
  sweep_defaults(cli, &seen);
  nccl_memory(cli, &seen); /* before the rules that read the memory kinds */
  if (check_own_ops(cli, &seen, err))
    return err->status;
  return check_values(cli, err);
}
