/* Every option of every mode in one table (option_table.c): a row is an
 * option's names, whether it takes a value, the modes whose parsers take
 * it, the code its mode's parse step switches on, and its --help entry.
 * getopt_long's table for the measuring modes, the file modes' parsing,
 * "goes with" hints, old spellings and --help (so OPTIONS.md) all read
 * the rows. Adding an option: one row here, and its case in its mode's
 * parse step (bench/LAYOUT.md). */
#ifndef CB_MODES_OPTION_TABLE_H
#define CB_MODES_OPTION_TABLE_H

#include <stdio.h>

/* What follows the option: nothing, one value (--x V or --x=V), a value
 * only as --x=V, or files (the words up to the next option). */
enum cb_opt_arg { CB_ARG_NONE, CB_ARG_ONE, CB_ARG_OPTIONAL, CB_ARG_FILES };

/* Which parsers take an option: the measuring modes' (sweep, copy, probe,
 * accept, matrix, and --help/--version/--list), --tune's only, and the
 * file modes' own. */
enum {
  CB_IN_RUN = 1 << 0,
  CB_IN_TUNE = 1 << 1,
  CB_IN_REPORT = 1 << 2,
  CB_IN_IMPORT = 1 << 3,
  CB_IN_BASELINE = 1 << 4,
  CB_IN_COMPARE = 1 << 5,
  CB_IN_MODEL = 1 << 6,
  CB_IN_INSPECTOR = 1 << 7,
  /* a [check] of an acceptance file takes it as a key (`iters = 20`), read
   * by the measuring modes' parser (cb_cli_check_reader) */
  CB_IN_CHECK = 1 << 8,
};

/* --help's sections; a mode lists the ones it prints (mode.h). */
enum cb_section {
  CB_SEC_NONE, /* not listed: an old spelling, or a meaning an entry names */
  CB_SEC_WHAT,
  CB_SEC_SIZES,
  CB_SEC_TIMING,
  CB_SEC_UCX,
  CB_SEC_VERBS,
  CB_SEC_GPUS,
  CB_SEC_CHECKING,
  CB_SEC_ACCEPT,
  CB_SEC_TUNE,
  CB_SEC_REPORTS,
  CB_SEC_FLEET,
  CB_SEC_MODEL,
  CB_SEC_GENERAL, /* -h and -V, printed last in every help */
  CB_NSECTIONS
};

/* The codes parse steps switch on: a short option's letter, else one of
 * these. */
enum {
  OPT_OP = 256,
  OPT_BACKEND,
  OPT_MEM,
  OPT_TRANSPORT,
  OPT_CSV,
  OPT_LIST,
  OPT_SWEEP,
  OPT_TIMING,
  OPT_PRECISION,
  OPT_MAX_TIME,
  OPT_DURATION,
  OPT_DRIFT_LIMIT,
  OPT_WINDOW,
  OPT_PROGRESS,
  OPT_NO_PROGRESS,
  OPT_WINDOW_BYTES,
  OPT_IB_DEV,
  OPT_GID_INDEX,
  OPT_GPU_LIST,
  OPT_GRAPH,
  OPT_ROTATE,
  OPT_SKEW,
  OPT_PARALLEL,
  OPT_CONCURRENT,
  OPT_REGISTER,
  OPT_IMPORT_INSPECTOR,
  OPT_CALLS,
  OPT_SHARE_GPU,
  OPT_UCX_API,
  OPT_PROM,
  OPT_ACCEPT,
  OPT_JUNIT,
  OPT_EXCLUDE_OUT,
  OPT_DRY_RUN,
  OPT_MATRIX,
  OPT_PROBE,
  OPT_STAT,
  OPT_VARIANT,
  OPT_BASELINE,
  OPT_REPEAT,
  /* --tune's */
  OPT_TUNE,
  OPT_WORKLOAD,
  OPT_WORKLOAD_CONFIG,
  OPT_EXHAUSTIVE,
  OPT_NO_SEARCH,
  OPT_SHARD,
  OPT_TUNE_ALGORITHMS,
  OPT_TUNE_SEGMENTS,
  OPT_TUNE_PROTOCOLS,
  OPT_TUNE_CTAS,
  OPT_PLUGIN_OUT,
  OPT_TUNE_BUCKETS,
  OPT_TUNE_REPS,
  OPT_ENV_OUT,
  OPT_TRIALS,
  OPT_RESUME,
  OPT_MAX_OVERHEAD,
  /* the file modes' */
  OPT_REPORT,
  OPT_OUT,
  OPT_TOPOLOGY,
  OPT_IMPORT_NCCL_TESTS,
  OPT_BASELINE_OUT,
  OPT_COMPARE,
  OPT_MIN_SLOWDOWN,
  OPT_LAUNCH_SPREAD,
  OPT_FIT,
  OPT_VALIDATE,
  OPT_PREDICT,
  OPT_GPUS,
  OPT_GPUS_PER_NODE,
  OPT_SIZE,
  OPT_COMPUTE_TIME,
  OPT_GRAD_BYTES,
  OPT_BUCKET,
  OPT_OVERLAP,
};

struct cb_option {
  const char *name; /* without the dashes: "min-bytes" */
  char short_name;  /* 'b', or 0 */
  enum cb_opt_arg arg;
  int code;
  unsigned modes;         /* CB_IN_* */
  const char *with;       /* given to a mode without it: the option it goes with */
  const char *renamed_to; /* an old spelling: the name it has now */
  enum cb_section section;
  const char *metavar; /* --help: what the value is ("SIZE") */
  const char *help;    /* --help: the entry's lines, '\n' between them */
};

extern const struct cb_option cb_options[];
extern const int cb_noptions;

/* argv[*i] as the parsers of `modes` see it. CB_NEXT_OPTION: *row is its
 * row and *value its value (NULL for none; for CB_ARG_ONE from the next
 * word, *i then moved on). CB_NEXT_ARG: a word that is no option ("-"
 * included). CB_NEXT_OTHER: an option none of these parsers take (or
 * one that takes no value given one). CB_NEXT_MISSING: *row needs a
 * value and argv ends. */
enum cb_next { CB_NEXT_OPTION, CB_NEXT_ARG, CB_NEXT_OTHER, CB_NEXT_MISSING };
enum cb_next cb_option_next(int argc, char **argv, int *i, unsigned modes,
                            const struct cb_option **row, const char **value);

/* The option (--name) an option of another mode goes with ("--predict"),
 * for one the parsers of `modes` do not take; NULL when none. */
const char *cb_option_goes_with(const char *option, unsigned modes);

/* The new name of an old spelling ("mode" -> "timing"), or NULL. */
const char *cb_option_new_name(const char *old);

/* One --help section: its title and its rows' entries, in table order. */
void cb_options_help(FILE *out, enum cb_section section);
/* One option's --help entry. */
void cb_option_help(FILE *out, const struct cb_option *o);
/* The row of argv's word ("--concurrent", "-b", "--min-bytes=4K": the
 * name before '='), or NULL. */
const struct cb_option *cb_option_of_word(const char *word);

#endif
