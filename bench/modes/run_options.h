/* What argv says to the measuring modes (sweep, accept, matrix, probe,
 * copy, tune): they share one parser (cli.c), as they share the measuring
 * options. Only argv: the files it names are read into the run plan
 * (run_plan.h) by cb_run_plan_build. */
#ifndef CB_MODES_RUN_OPTIONS_H
#define CB_MODES_RUN_OPTIONS_H

#include <stdint.h>

#include "runtime/settings.h"
#include "tuner/options.h"

struct cb_cli {
  /* As given over the defaults. A sweep without --backend (--mem) leaves
   * nbackends (nmems) 0: every one that works here, which cb_run_plan_build
   * finds. */
  struct cb_settings settings;
  const char *json_path, *csv_path, *prom_path, *junit_path;
  const char *exclude_path; /* --exclude-out: the hosts a FAIL was laid to (issue 41) */
  int help, version, list, sweep;
  const char *accept_path;     /* --accept FILE: run the topology file's checks */
  int dry_run;                 /* --dry-run: print the checks' levels, measure nothing */
  const char *baseline_path;   /* --baseline FILE (else the file's [baseline] file) */
  long repeat;                 /* --repeat N; -1: the file's, or the default */
  int matrix;                  /* --matrix: all-pairs bandwidth and latency */
  uint64_t matrix_bytes;       /* --matrix=SIZE; 0: the file's, or the default */
  int probe;                   /* --probe: what every node is made of */
  int copy;                    /* --op copy: the GPU copy matrix, a mode of its own */
  int progress;                /* -1: when stderr is a terminal; 0 never; 1 always */
  struct cb_tune_options tune; /* --tune and its options */
  int resume;                  /* --resume with --duration: the burn-in in --json FILE goes on */
  const char *calls_path;      /* --calls FILE: the job's calls */
  /* An option the measuring modes do not know (the parser's refusal
   * names it); the modes' table says which mode it goes with. */
  char unknown[64];
  /* Old spellings given (issue 44: each word one meaning): "--mode", ...;
   * rank 0 says the new name once before MPI starts (cb_run_pre_mpi). */
  const char *renamed[4];
  int nrenamed;
};

#endif
