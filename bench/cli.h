/* The command-line front end: parses options into settings. Pure (no
 * MPI), so it is unit-tested and runs before MPI_Init. */
#ifndef CB_CLI_H
#define CB_CLI_H

#include <stdio.h>

#include "error.h"
#include "settings.h"

struct cb_cli {
  struct cb_settings settings;
  const char *json_path, *csv_path;
  int help, version, list, sweep;
  int progress; /* -1: when stderr is a terminal; 0 never; 1 always */
};

int cb_cli_parse(int argc, char **argv, struct cb_cli *cli, struct cb_error *err);
void cb_cli_usage(FILE *out);
void cb_cli_list(FILE *out);

#endif
