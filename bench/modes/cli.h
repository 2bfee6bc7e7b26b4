/* The measuring modes' parser (cli.c): options into settings, then their
 * step before MPI_Init. Both without MPI, so unit-tested. */
#ifndef CB_CLI_H
#define CB_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "run_options.h"

/* argv into *cli, and the rules between options: no file is read and no
 * hardware asked. */
int cb_cli_parse(int argc, char **argv, struct cb_cli *cli, struct cb_error *err);
/* The measuring modes' step before MPI starts, on what parsed: --accept's
 * file and its baseline loaded, a sweep's backends and memory kinds probed,
 * and the rules that need them; a usage error (2) before MPI otherwise. */
int cb_cli_prepare(struct cb_cli *cli, struct cb_error *err);

/* An acceptance file's [check] keys that are options (the option table's
 * CB_IN_CHECK rows), read by this parser: every reader of a topology file
 * hands it to accept/spec.c. */
extern const struct cb_check_reader cb_cli_check_reader;

/* The part a mode reading a topology file's system alone (--predict,
 * --report --topology) hands the reader, so a bad [check] is refused as
 * --accept refuses it; what it reads is dropped. */
const struct cb_topo_part *cb_cli_topology_part(void);

#endif
