/* --resume with --duration (issue 42): an interrupted burn-in (a spot
 * reclaim, a reboot, Slurm's preemption with --requeue) continued from its
 * --json FILE: the file must come from this collbench version, these nodes
 * and ranks and this configuration (the run record's "burnin" object), or
 * the run is refused naming what differs; its result lines are read back
 * so the verdicts cover both parts, and the continuation's intervals are
 * numbered on and appended to the same file. */
#ifndef CB_BURNIN_RESUME_H
#define CB_BURNIN_RESUME_H

#include "base/error.h"
#include "readback/drift.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"

struct cb_burnin_prior {
  void *lines;        /* the file's result lines (a JSON array, kept while they are used) */
  int last_interval;  /* the highest interval in the file; 0: none */
  double first_start; /* the first interval's wall-clock start (Unix seconds) */
  double measured_s;  /* how long the first part measured, about */
  long records;
};

/* Reads and checks FILE on rank 0 (every rank learns whether it may go
 * on); CB_USAGE naming the difference when it is another burn-in's. */
int cb_burnin_resume_read(const struct cb_cluster *cl, const struct cb_settings *s,
                          const char *path, struct cb_burnin_prior *p, struct cb_error *err);
/* Puts the file's records into the store, t from first_start. 0, or -1. */
int cb_burnin_resume_load(const struct cb_burnin_prior *p, struct cb_burnin_store *b);
void cb_burnin_resume_free(struct cb_burnin_prior *p);

#endif
