/* The measuring modes' parser (cli.c): options into settings. Pure (no
 * MPI), so it is unit-tested and runs before MPI_Init. */
#ifndef CB_CLI_H
#define CB_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "run_options.h"

int cb_cli_parse(int argc, char **argv, struct cb_cli *cli, struct cb_error *err);
/* The new name of an old option spelling ("mode" -> "timing"), or NULL. */
const char *cb_cli_new_name(const char *old);

#endif
