/* The measuring modes' parser (cli.c): argv into what it says, every rule
 * of argv alone checked; and the reader of a [check]'s options, the same
 * parser's. Without MPI, so unit-tested. */
#ifndef CB_CLI_H
#define CB_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "accept/spec.h"
#include "base/error.h"
#include "run_options.h"

/* argv into *cli, and every rule between options: the one parse. No file
 * is read and no hardware asked: the run plan is built from *cli
 * (run_plan.h). */
int cb_cli_parse(int argc, char **argv, struct cb_cli *cli, struct cb_error *err);
/* An acceptance file's [check] keys that are options (the option table's
 * CB_IN_CHECK rows), read by this parser: every reader of a topology file
 * hands it to accept/spec.c. */
extern const struct cb_check_reader cb_cli_check_reader;

/* The part a mode reading a topology file's system alone (--predict,
 * --report --topology) hands the reader, so a bad [check] is refused as
 * --accept refuses it; what it reads is dropped. */
const struct cb_topo_part *cb_cli_topology_part(void);

#endif
