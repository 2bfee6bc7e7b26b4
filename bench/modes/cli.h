/* The measuring modes' parser (cli.c): options into settings. Pure (no
 * MPI), so it is unit-tested and runs before MPI_Init. Also, until they
 * move to their features, the fleet and report modes' option structs. */
#ifndef CB_CLI_H
#define CB_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "fleet/baseline.h"
#include "run_options.h"

/* --report IN.jsonl... --out DIR: a mode of its own, without MPI. */
#define CB_MAX_REPORT_INPUTS 64
struct cb_report_cli {
  const char *out;
  const char *topology; /* tiers the capacity charts need and the inputs lack */
  const char *baseline; /* --baseline B.json: draw each run against the fleet */
  const char *inputs[CB_MAX_REPORT_INPUTS];
  int ninputs;
};


/* --baseline FILE... --out FILE and --compare OLD NEW (bench/modes/cli_fleet.c). */
struct cb_baseline_cli {
  const char *inputs[CB_MAX_REPORT_INPUTS], *out;
  int ninputs;
};
struct cb_compare_cli {
  const char *old_path, *new_path;
  double min_slowdown; /* SLOWER: the slowdown's 95% CI above this */
};

int cb_cli_parse(int argc, char **argv, struct cb_cli *cli, struct cb_error *err);

#endif
