/* --resume with --duration (issue 42): an interrupted burn-in (a spot
 * reclaim, a reboot, Slurm's preemption with --requeue) continued from its
 * --json FILE: the file must come from this collbench version, these nodes
 * and ranks and this configuration (the run record's "burnin" object), or
 * the run is refused naming what differs; its result lines are read back
 * so the verdicts cover both parts, and the continuation's intervals are
 * numbered on and appended to the same file. The file is read as a
 * stream: rank 0 keeps each case's points (readback/drift.h) and one line
 * per case, never the whole file (a month's burn-in is gigabytes). */
#ifndef CB_BURNIN_RESUME_H
#define CB_BURNIN_RESUME_H

#include "base/error.h"
#include "readback/drift.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"

/* The highest interval a burn-in numbers: the pass after it would not fit
 * the record's int (a burn-in that gets there ends as if its time were up). */
#define CB_BURNIN_MAX_INTERVAL 2147483646

struct cb_burnin_prior {
  struct cb_burnin_store store; /* rank 0: the file's cases, t from first_start */
  void *firsts;       /* each case's first line (JSON): the store's strings live in them */
  int last_interval;  /* the highest interval in the file; 0: none */
  double first_start; /* the first interval's wall-clock start (Unix seconds) */
  double measured_s;  /* how long the first part measured, about */
  long records;
  int cut_line; /* the unterminated last line dropped (a kill cut it): its number; 0: none */
};

/* Reads and checks FILE on rank 0 (every rank learns whether it may go
 * on); CB_USAGE naming the difference when it is another burn-in's, or
 * the line when one is not a whole JSON line of collbench's (only an
 * unterminated last line, which the continuation cuts, is dropped). */
int cb_burnin_resume_read(const struct cb_cluster *cl, const struct cb_settings *s,
                          const char *path, struct cb_burnin_prior *p, struct cb_error *err);
/* What rank 0 of cb_burnin_resume_read does, with no MPI: reads and
 * checks FILE against the cluster and settings into `p` (free it with
 * cb_burnin_resume_free whatever this returns). */
int cb_burnin_resume_parse(const struct cb_cluster *cl, const struct cb_settings *s,
                           const char *path, struct cb_burnin_prior *p, struct cb_error *err);
/* Hands the file's records to `b` (empty before; the prior keeps none). */
void cb_burnin_resume_load(struct cb_burnin_prior *p, struct cb_burnin_store *b);
void cb_burnin_resume_free(struct cb_burnin_prior *p);

#endif
