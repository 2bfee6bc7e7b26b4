/* A burn-in's error counters per interval (issue 42 with issue 41's
 * evidence): every node's RDMA port and GPU error counters read before the
 * first interval and after each; what rose is said on the interval's line
 * and kept over the run, and a verdict that does not pass carries it as
 * its likely causes (one per counter: the intervals it rose in). */
#ifndef CB_BURNIN_RISES_H
#define CB_BURNIN_RISES_H

#include "base/error.h"
#include "probe/node.h"
#include "results/verdict.h"
#include "runtime/cluster.h"

struct cb_rise {
  int node;
  struct cb_counter c; /* value: the total rise over the run */
  int first, last;     /* the first and last interval it rose in */
  int nintervals;
};

struct cb_rises {
  struct cb_counters *before; /* per node on rank 0 */
  struct cb_rise r[256];
  int more; /* counters that rose past r[]: counted and said */
  int n;
};

/* Reads every node's counters (collective); CB_OK or out of memory. */
int cb_rises_start(const struct cb_cluster *cl, struct cb_rises *rs, struct cb_error *err);
/* After interval k (collective): what rose since the last read, kept on
 * rank 0 and written as "HOST DEV port P NAME +N, ..." into line (len
 * bytes; "" when nothing rose). */
int cb_rises_interval(const struct cb_cluster *cl, const struct cb_probe *probe, int k,
                      struct cb_rises *rs, char *line, size_t len, struct cb_error *err);
/* The run's rises as causes (the first CB_MAX_CAUSES). Pure. */
void cb_rises_causes(const struct cb_rises *rs, const struct cb_probe *probe,
                     struct cb_causes *out);
void cb_rises_free(struct cb_rises *rs);

#endif
