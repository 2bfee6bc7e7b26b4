/* The memory copy reference of relative thresholds (membw.h says more). */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "base/stats.h"
#include "base/timer.h"
#include "membw.h"

#define MEMBW_BYTES (64u << 20) /* well past every cache */
#define MEMBW_COPIES 5

int cb_membw_measure(const struct cb_cluster *cl, double *bytes_per_s, struct cb_error *err) {
  char *src = cb_host_alloc(MEMBW_BYTES), *dst = cb_host_alloc(MEMBW_BYTES);
  int failed = !src || !dst;
  if (cb_cluster_agree(cl, failed)) {
    free(src);
    free(dst);
    return cb_fail(err, CB_RUNTIME, "rank %d (%s): no memory for the 64 MiB bandwidth reference",
                   cl->rank, cl->hostname);
  }
  memset(src, 1, MEMBW_BYTES); /* touch every page before timing */
  memset(dst, 2, MEMBW_BYTES);
  double best = 0;
  for (int i = 0; i < MEMBW_COPIES; i++) {
    MPI_Barrier(cl->comm); /* every rank copies at the same time */
    double t = cb_now();
    memcpy(dst, src, MEMBW_BYTES);
    t = cb_now() - t;
    if (t > 0 && MEMBW_BYTES / t > best)
      best = MEMBW_BYTES / t;
    src[i] = dst[i + 1]; /* the copy's result is used, so it cannot be elided */
  }
  free(src);
  free(dst);
  double *all = malloc(sizeof(double) * (size_t)cl->nranks);
  if (!all)
    return cb_fail(err, CB_RUNTIME, "out of memory");
  MPI_Allgather(&best, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, cl->comm);
  struct cb_stats st;
  cb_stats_compute(all, (size_t)cl->nranks, &st);
  free(all);
  *bytes_per_s = st.median;
  return CB_OK;
}
