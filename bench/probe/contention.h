/* The host's own contention per burn-in interval (issue 57) or acceptance
 * check (issue 74): a run that slows because another job took the cores
 * is not a fabric that degraded, and its verdict should say which. Every rank reads its node's
 * /proc/stat and its own CPU time (getrusage) before the first interval
 * and after each; rank 0 keeps, per node, the share of the node's CPU time
 * that other processes took (busy time less the ranks' own), the share
 * stolen by the hypervisor, and the run queue, and a verdict that does not
 * pass carries them as a likely cause (rule host-contention). */
#ifndef CB_PROBE_CONTENTION_H
#define CB_PROBE_CONTENTION_H

#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "results/verdict.h"
#include "runtime/cluster.h"

/* A share of the node's CPU time others take (or steal takes) at or above
 * these is contention. Two busy-polling ranks on a quiet node leave others
 * a few percent (daemons, mpirun); one `yes` on 2 cores takes 50%. */
#define CB_CONTENTION_OTHERS 0.20
#define CB_CONTENTION_STEAL 0.05

/* /proc/stat's aggregate line and procs_running, in seconds of CPU time. */
struct cb_cpu_stat {
  double busy_s, total_s, steal_s; /* over every CPU since boot */
  int running;                     /* runnable tasks now */
  int ncpu;                        /* cpuN lines */
};
/* Parses /proc/stat's text (hz: clock ticks per second); 0 when its
 * aggregate cpu line is there, -1 when not. Pure. */
int cb_cpu_stat_parse(const char *text, long hz, struct cb_cpu_stat *s);
/* The same from a file, read whole line by line whatever its size (a
 * 384-CPU host's /proc/stat is past 16 KiB before procs_running), at most
 * CB_CPU_STAT_MAX_LINES pieces of 511 bytes: bounded on any input. */
#define CB_CPU_STAT_MAX_LINES 1000000
int cb_cpu_stat_read(FILE *f, long hz, struct cb_cpu_stat *s);

/* One node over the run: the intervals where others or steal were at or
 * over the levels above, and the most of each. */
struct cb_node_load {
  int ncpu, ranks;
  int busy, first, last;        /* intervals with contention, the first and last */
  int intervals;                /* intervals read */
  double max_others, max_steal; /* shares of the node's CPU time, 0..1 */
  double quiet_others;          /* the most others took in an interval without contention */
  int max_running;              /* the longest run queue seen after an interval */
  int was_busy;                 /* the last interval had contention (said on a change) */
};

struct cb_contention {
  int nnodes;
  const char (*names)[CB_HOSTNAME_MAX]; /* the cluster's node names */
  struct cb_node_load *node;            /* rank 0: [nnodes] */
  double *own_before;                   /* rank 0: [nnodes] the ranks' CPU seconds */
  struct cb_cpu_stat *before;           /* rank 0: [nnodes] */
  const char *step;                     /* what k counts in the causes: NULL "interval" */
};

/* Reads the start (collective). */
int cb_contention_start(const struct cb_cluster *cl, struct cb_contention *c, struct cb_error *err);
/* After interval k (collective): kept on rank 0, and a change of state
 * written into line ("node1: other processes took 66% of its 2 CPUs,
 * run queue 6 with 2 ranks"; "" when none changed). */
int cb_contention_interval(const struct cb_cluster *cl, int k, struct cb_contention *c, char *line,
                           size_t len, struct cb_error *err);
/* One interval of one node into its load (rank 0's arithmetic). Pure. */
void cb_node_load_add(struct cb_node_load *n, int k, double others, double steal, int running);
/* Appends a cause per node that had contention to out (while there is
 * room). Pure. */
void cb_contention_causes(const struct cb_contention *c, struct cb_causes *out);
void cb_contention_free(struct cb_contention *c);

#endif
