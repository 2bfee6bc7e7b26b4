/* What the measuring modes' parser (cli.c) and its parts (cli_tune.c,
 * cli_validate.c) share, and no other part of the program needs. */
#ifndef CB_CLI_INTERNAL_H
#define CB_CLI_INTERNAL_H

#include "args.h"
#include "run_options.h"

/* getopt_long's codes for the run's long options without a short one;
 * those between OPT_TUNE and OPT_TUNE_END go with --tune (cli_tune.c). */
enum {
  OPT_OP = 256,
  OPT_BACKEND,
  OPT_MEM,
  OPT_TRANSPORT,
  OPT_CSV,
  OPT_LIST,
  OPT_SWEEP,
  OPT_MODE,
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
  OPT_SHARE_GPU,
  OPT_UCX_API,
  OPT_PROM,
  OPT_ACCEPT,
  OPT_JUNIT,
  OPT_EXCLUDE_OUT,
  OPT_MATRIX,
  OPT_PROBE,
  OPT_STAT,
  OPT_VARIANT,
  OPT_BASELINE,
  OPT_REPEAT,
  /* --tune and its options */
  OPT_TUNE,
  OPT_MODEL,
  OPT_MODEL_CONFIG,
  OPT_EXHAUSTIVE,
  OPT_NO_SEARCH,
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
  OPT_TUNE_END,
};

/* cli_validate.c: the rules between the run's options once all are read,
 * and --accept's file loaded (with its baseline) before MPI starts. */
int cb_cli_validate(struct cb_cli *cli, int factor_given, struct cb_error *err);
int cb_cli_accept_file(struct cb_cli *cli, struct cb_error *err);

/* cli_tune.c: one --tune option (OPT_TUNE..OPT_TUNE_END), and their rules
 * once all are read (tune_only: the first one seen). */
int cb_cli_tune_option(int c, const char *arg, struct cb_tune_options *t, struct cb_error *err);
int cb_cli_tune_check(const struct cb_tune_options *t, const char *tune_only,
                      const char *model_config, struct cb_tune_options *out, struct cb_error *err);

#endif
