/* Stragglers: ranks that reach collectives late, again and again. Each
 * iteration times how long every rank waits at a barrier placed just before
 * an all-reduce (no clock needs to agree across hosts: each rank measures its
 * own wait). The rank that arrives last waits least; its lateness is the
 * longest wait of the iteration minus its own. Averaged over iterations, a
 * rank behind a slow link or on a slow host stands out from the median. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/timer.h"
#include "stragglers.h"

#define STRAGGLER_ITERS 200
#define STRAGGLER_COUNT (64 * 1024 / 4) /* 64 KiB of floats: real traffic, not only latency */
#define STRAGGLER_FACTOR 5.0            /* lateness over 5x the median rank's... */
#define STRAGGLER_FLOOR_US 50.0         /* ...and over 50 us: scheduler noise stays under */

int cb_stragglers_measure(const struct cb_cluster *cl, struct cb_sink *sinks, int nsinks,
                          struct cb_accept_result *res, struct cb_error *err) {
  int n = cl->nranks;
  if (n < 2)
    return CB_OK;
  float *buf = calloc(STRAGGLER_COUNT, sizeof(float));
  double *lateness = cl->rank == 0 ? malloc(sizeof(double) * (size_t)n) : NULL;
  if (cb_cluster_agree(cl, !buf || (cl->rank == 0 && !lateness))) {
    free(buf);
    free(lateness);
    return cb_fail(err, CB_RUNTIME, "stragglers: out of memory");
  }
  double my_late = 0;
  for (int i = 0; i < STRAGGLER_ITERS; i++) {
    double t0 = cb_now();
    MPI_Barrier(cl->comm);
    double wait = cb_now() - t0, longest;
    MPI_Allreduce(&wait, &longest, 1, MPI_DOUBLE, MPI_MAX, cl->comm);
    my_late += longest - wait;
    MPI_Allreduce(MPI_IN_PLACE, buf, STRAGGLER_COUNT, MPI_FLOAT, MPI_SUM, cl->comm);
  }
  my_late = my_late / STRAGGLER_ITERS * 1e6;
  MPI_Gather(&my_late, 1, MPI_DOUBLE, lateness, 1, MPI_DOUBLE, 0, cl->comm);
  free(buf);
  if (cl->rank != 0)
    return CB_OK;
  double *sorted = malloc(sizeof(double) * (size_t)n);
  if (!sorted) {
    free(lateness);
    return cb_fail(err, CB_RUNTIME, "stragglers: out of memory");
  }
  memcpy(sorted, lateness, sizeof(double) * (size_t)n);
  struct cb_stats st;
  cb_stats_compute(sorted, (size_t)n, &st);
  free(sorted);
  double level = fmax(STRAGGLER_FACTOR * st.median, STRAGGLER_FLOOR_US);
  int found = 0, rc = CB_OK;
  char name[CB_HOSTNAME_MAX + 32];
  for (int r = 0; r < n && rc == CB_OK; r++) {
    if (lateness[r] <= level)
      continue;
    /* A warning, not a failure: it names who to look at; the checks and
     * the matrix judge whether the cluster is fast enough. */
    snprintf(name, sizeof name, "straggler %s", cl->node_names[cl->node_of_rank[r]]);
    struct cb_verdict v = {.name = name,
                           .status = CB_WARN,
                           .unit = "us",
                           .measured = lateness[r],
                           .warn = level,
                           .fail = NAN,
                           .margin = NAN};
    snprintf(v.what, sizeof v.what,
             "rank %d reached the all-reduces %.3g us after the earliest rank on average "
             "(median rank %.3g us; %d iterations)",
             r, lateness[r], st.median, STRAGGLER_ITERS);
    rc = cb_accept_emit(cl, sinks, nsinks, &v, res, err);
    found++;
  }
  if (rc == CB_OK && !found) {
    struct cb_verdict v = {.name = "stragglers",
                           .status = CB_PASS,
                           .unit = "us",
                           .measured = st.max,
                           .warn = level,
                           .fail = NAN,
                           .margin = NAN};
    snprintf(v.what, sizeof v.what,
             "latest rank's mean lateness at the all-reduces (median rank %.3g us; %d "
             "iterations of 64 KiB)",
             st.median, STRAGGLER_ITERS);
    rc = cb_accept_emit(cl, sinks, nsinks, &v, res, err);
  }
  free(lateness);
  return rc;
}
