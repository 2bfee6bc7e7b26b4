/* What a measuring mode runs: one finished plan (what to measure, judged
 * how, written where), built from the command line and the files it names
 * by cb_run_plan_build before MPI starts and checked there. The frame
 * (mode_run.c) and --tune (mode_tune.c) read the plan, never argv; they
 * hand the engine, acceptance, burn-in and tuner their parts of it, as
 * UCX's perftest hands ucx_perf_run one const params struct. */
#ifndef CB_MODES_RUN_PLAN_H
#define CB_MODES_RUN_PLAN_H

#include "accept/spec.h"
#include "base/error.h"
#include "fleet/baseline.h"
#include "import/inspector.h"
#include "run_options.h"
#include "runtime/settings.h"
#include "tuner/options.h"

/* The files rank 0 writes (NULL: not asked for). */
struct cb_run_outputs {
  const char *json, *csv, *prom, *junit;
  const char *exclude; /* --exclude-out: the hosts a FAIL was laid to */
};

struct cb_run_plan {
  struct cb_settings settings;  /* what to measure, with a sweep's backends and memory found */
  struct cb_tune_options tune;  /* --tune: what it searches */
  struct cb_accept_spec spec;   /* --accept FILE: the system and its checks */
  struct cb_baseline baseline;  /* the fleet baseline judged against (nentries 0: none) */
  struct cb_matrix_rules rules; /* --matrix: the pairs' size and verdicts */
  struct cb_calls calls;        /* --calls FILE: the job's calls (calls_path NULL: none) */
  const char *calls_path;
  struct cb_run_outputs out;
  int judged;   /* --accept or --matrix: verdicts, and --junit says an error */
  int resume;   /* --resume --duration: the burn-in in out.json goes on */
  int progress; /* -1: when stderr is a terminal; 0 never; 1 always */
  int dry_run;  /* --accept FILE --dry-run: the checks' levels, nothing measured */
};

/* The plan from what argv said (cb_cli_parse): the files it names read
 * (--accept's and its baseline, --calls'), a sweep's backends and memory
 * kinds found, and the rules that need them; a usage error (2) before MPI
 * otherwise. */
int cb_run_plan_build(const struct cb_cli *cli, struct cb_run_plan *plan, struct cb_error *err);

#endif
