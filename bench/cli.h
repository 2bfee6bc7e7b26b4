/* The command-line front end: parses options into settings. Pure (no
 * MPI), so it is unit-tested and runs before MPI_Init. */
#ifndef CB_CLI_H
#define CB_CLI_H

#include <stdio.h>

#include "error.h"
#include "settings.h"
#include "tuner/options.h"

struct cb_cli {
  struct cb_settings settings;
  const char *json_path, *csv_path, *prom_path;
  int help, version, list, sweep;
  int progress;                /* -1: when stderr is a terminal; 0 never; 1 always */
  struct cb_tune_options tune; /* --tune and its options */
};

/* --report IN.jsonl... --out DIR: a mode of its own, without MPI. */
#define CB_MAX_REPORT_INPUTS 64
struct cb_report_cli {
  const char *out;
  const char *inputs[CB_MAX_REPORT_INPUTS];
  int ninputs;
};

int cb_cli_wants_report(int argc, char **argv);
int cb_cli_parse_report(int argc, char **argv, struct cb_report_cli *rep, struct cb_error *err);
int cb_cli_parse(int argc, char **argv, struct cb_cli *cli, struct cb_error *err);
void cb_cli_usage(FILE *out);
void cb_cli_list(FILE *out);

#endif
