/* Collective bisection (issue 58): a collective check that FAILs over the
 * whole node set, where neither the matrix nor the evidence names a node
 * (a fault that shows only under collective load), is measured again on
 * halves of the nodes at once, each on its own communicator, and the
 * halves that fail are split again (at most ceil(log2 N) rounds). Each
 * half is judged three ways against the check's level scaled to its size
 * by the model (the same level where the model has no figure). What it
 * names is the smallest failing set: one node, or a set whose halves both
 * pass (a fault that needs them together, which bisection cannot split). */
#ifndef CB_ACCEPT_BISECT_H
#define CB_ACCEPT_BISECT_H

#include "output/runinfo.h"
#include "verdicts.h"

#define CB_BISECT_MAX_FOUND 8

struct cb_bisect_found {
  struct cb_verdict v[CB_BISECT_MAX_FOUND]; /* FAIL "bisect SET" each (rank 0) */
  char names[CB_BISECT_MAX_FOUND][CB_HOSTNAME_MAX + 16];
  int n;
};

/* Whether bisection can say more than the whole run did: two nodes or
 * more, a collective op (not point-to-point). */
int cb_bisect_applies(const struct cb_cluster *cl, const struct cb_check *c);

/* Collective: bisects check c, whose verdict over all nodes FAILed at
 * `measured` against `level` (its fail level, in the verdict's unit; both
 * given on every rank). Rank 0 says each round through the sinks' notes
 * and gets the smallest failing sets in *found. */
int cb_bisect_run(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                  const struct cb_check *c, double level, double measured,
                  const struct cb_settings *base, const struct cb_run_info *ri,
                  struct cb_sink *sinks, int nsinks, struct cb_bisect_found *found,
                  struct cb_error *err);

#endif
