/* The command-line front end: parses options into settings. Pure (no
 * MPI), so it is unit-tested and runs before MPI_Init. */
#ifndef CB_CLI_H
#define CB_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "fleet/baseline.h"
#include "base/error.h"
#include "core/settings.h"
#include "core/topology.h"
#include "tuner/options.h"
#include "import/import.h"
#include "model/commands.h"

struct cb_cli {
  struct cb_settings settings;
  const char *json_path, *csv_path, *prom_path, *junit_path;
  int help, version, list, sweep;
  const char *accept_path;     /* --accept FILE: run the topology file's checks */
  struct cb_topology topology; /* loaded from accept_path while parsing */
  const char *baseline_path;   /* --baseline FILE (else the file's [baseline] file) */
  long repeat;                 /* --repeat N; -1: the file's, or the default */
  struct cb_baseline baseline; /* loaded while parsing; nentries 0: none */
  int matrix;                  /* --matrix: all-pairs bandwidth and latency */
  uint64_t matrix_bytes;       /* --matrix=SIZE (default 1 MiB) */
  int probe;                   /* --probe: what every node is made of */
  int copy;                    /* --op copy: the GPU copy matrix, a mode of its own */
  int progress;                /* -1: when stderr is a terminal; 0 never; 1 always */
  struct cb_tune_options tune; /* --tune and its options */
};

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
int cb_cli_wants_baseline(int argc, char **argv);
int cb_cli_parse_baseline(int argc, char **argv, struct cb_baseline_cli *b, struct cb_error *err);
int cb_cli_wants_compare(int argc, char **argv);
int cb_cli_parse_compare(int argc, char **argv, struct cb_compare_cli *c, struct cb_error *err);

int cb_cli_wants_import(int argc, char **argv);
int cb_cli_parse_import(int argc, char **argv, struct cb_import_cli *im, struct cb_error *err);
int cb_cli_wants_report(int argc, char **argv);
int cb_cli_wants_model(int argc, char **argv);
int cb_cli_parse_model(int argc, char **argv, struct cb_model_cli *m, struct cb_error *err);
int cb_cli_parse_report(int argc, char **argv, struct cb_report_cli *rep, struct cb_error *err);
int cb_cli_parse(int argc, char **argv, struct cb_cli *cli, struct cb_error *err);
void cb_cli_usage(FILE *out);
void cb_cli_list(FILE *out);

#endif
