/* What every acceptance check ends in (verdicts.h). */
#include "verdicts.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "ops/op.h"

double cb_check_figure(const struct cb_check *c, const struct cb_record *rec) {
  return c->metric == CB_METRIC_TIME    ? rec->time_us
         : c->metric == CB_METRIC_BUSBW ? rec->busbw_GBps
                                        : rec->algbw_GBps;
}

int cb_accept_emit(const struct cb_cluster *cl, struct cb_sink *sinks, int nsinks,
                   const struct cb_verdict *v, struct cb_accept_result *res, struct cb_error *err) {
  if (cl->rank != 0)
    return CB_OK;
  (*(v->status == CB_PASS   ? &res->pass
     : v->status == CB_WARN ? &res->warn
     : v->status == CB_FAIL ? &res->fail
                            : &res->inconclusive))++;
  size_t n = strlen(res->not_passed);
  if ((v->status == CB_FAIL || v->status == CB_INCONCLUSIVE) && n + 4 < sizeof res->not_passed)
    snprintf(res->not_passed + n, sizeof res->not_passed - n, "%s%s %s", n ? ", " : "",
             v->status == CB_FAIL ? "FAIL" : "INCONCLUSIVE", v->name);
  for (int i = 0; i < nsinks; i++)
    if (sinks[i].verdict && sinks[i].verdict(sinks[i].state, v, err))
      return err->status;
  return CB_OK;
}

int cb_accept_status(const struct cb_accept_result *res, struct cb_error *err) {
  int total = res->pass + res->warn + res->fail + res->inconclusive;
  if (res->fail > 0)
    return cb_fail(err, CB_FAILED, "FAILED: %d of %d acceptance verdicts%s", res->fail, total,
                   res->inconclusive ? " (and some INCONCLUSIVE)" : "");
  /* not shown to be good enough, so not accepted: a gate that let it
   * through would pass on noise, as the old point verdicts did */
  if (res->inconclusive > 0)
    return cb_fail(err, CB_FAILED,
                   "INCONCLUSIVE: %d of %d acceptance verdicts could not be settled (the "
                   "measured interval contains the level): not accepted; measure longer or on a "
                   "quieter machine",
                   res->inconclusive, total);
  return CB_OK;
}

int cb_accept_finish(const struct cb_cluster *cl, struct cb_sink *sinks, int nsinks,
                     const struct cb_summary *sum, struct cb_accept_result *res,
                     struct cb_error *err) {
  if (cl->rank == 0 && cb_sinks_finish(sinks, nsinks, sum, err))
    return err->status;
  /* one line that answers the question the run was for */
  int total = res->pass + res->warn + res->fail + res->inconclusive;
  if (cl->rank == 0 && res->fail + res->inconclusive)
    printf("NOT ACCEPTED: %d of %d verdicts did not pass: %s\n", res->fail + res->inconclusive,
           total, res->not_passed);
  else if (cl->rank == 0)
    printf("ACCEPTED: %d of %d verdicts passed%s\n", total, total,
           res->warn ? " (WARN among them: over the fail level, under the warn level)" : "");
  if (cl->rank == 0)
    fflush(stdout);
  int counts[4] = {res->pass, res->warn, res->fail, res->inconclusive}; /* judged on rank 0 */
  MPI_Bcast(counts, 4, MPI_INT, 0, cl->comm);
  res->pass = counts[0], res->warn = counts[1], res->fail = counts[2];
  res->inconclusive = counts[3];
  return CB_OK;
}
