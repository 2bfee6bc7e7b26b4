/* The --tune mode's options, filled by bench/modes/cli.c and read by tune.c.
 * Pure data: no MPI. */
#ifndef CB_TUNE_OPTIONS_H
#define CB_TUNE_OPTIONS_H

#include "kernels/transformer.h"
#include "layout.h"
#include "space.h"

struct cb_skew;
struct cb_calls;

struct cb_tune_options {
  int enabled, exhaustive, resume, no_search;
  struct cb_model model;
  struct cb_space space; /* buckets and segment sizes; the rest once the library is known */
  /* The lists whose meaning depends on the library (mpi or nccl), kept as
   * given: the CLI checks they parse as one of them, tune.c applies them. */
  const char *algorithms, *protocols, *ctas;
  int segments_given;
  const char *backend; /* "mpi", "nccl", or NULL: nccl where a GPU is usable */
  long reps;
  double timeout;      /* seconds one phase may take before the watchdog ends the job */
  double max_overhead; /* the verdict's target share of the step (--max-overhead) */
  const char *env_out, *trials, *plugin_out;
  int buckets_given;
  /* --parallel with --tune: the layout's step (tune_layout.h) instead of
   * the DDP search; --skew shapes its ep dispatch (NULL: uniform) */
  int layout_given, shard_given;
  struct cb_layout layout;
  struct cb_skew *skew;
  /* --calls with --tune: tune exactly those calls (tune_calls.h) */
  const struct cb_calls *calls;
  const char *calls_path;
};

void cb_tune_options_defaults(struct cb_tune_options *t);


#endif
