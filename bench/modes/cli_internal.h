/* What the measuring modes' parser (cli.c) and its part for --tune
 * (cli_tune.c) share, and no other part of the program needs. */
#ifndef CB_CLI_INTERNAL_H
#define CB_CLI_INTERNAL_H

#include "args.h"
#include "option_table.h"
#include "run_options.h"

/* cli_tune.c: one --tune option (a CB_IN_TUNE row's code), and their rules
 * once all are read (tune_only: the first one seen). */
int cb_cli_tune_option(int c, const char *arg, struct cb_tune_options *t, struct cb_error *err);
int cb_cli_tune_check(const struct cb_tune_options *t, const char *tune_only,
                      const char *model_config, struct cb_tune_options *out, struct cb_error *err);
/* --tune --calls: the path kept in t (the plan reads the file); the
 * options it does not take refused. */
int cb_cli_tune_calls(struct cb_tune_options *t, const char *path, int parallel_given,
                      struct cb_error *err);
/* --tune's layout options (--parallel, --shard, --skew): checked and kept in t. */
int cb_cli_tune_layout(struct cb_tune_options *t, const struct cb_parallel *par, int parallel_given,
                       struct cb_skew *skew, int concurrent, struct cb_error *err);

#endif
