/* --duration with --accept or --matrix (issue 42): the mode's whole pass
 * (its checks, matrix, verdicts) run again and again as intervals until
 * the duration has passed. Each pass's verdicts are kept, not written;
 * at the end every check, link or node gets one verdict over the
 * intervals (FAIL where any interval failed, naming them; else the worst
 * of the others), and every measured case its drift verdict as a sweep's
 * burn-in gets (burnin.h). One run record, every result line with its
 * interval, the matrix's pairs of the first interval only. */
#ifndef CB_BURNIN_JUDGED_H
#define CB_BURNIN_JUDGED_H

#include "output/sink.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"

/* One pass of the mode into `sinks` (the burn-in's relays); CB_OK or
 * CB_FAILED go on to the next pass, any other status stops the burn-in. */
typedef int (*cb_burnin_pass_fn)(void *state, const struct cb_settings *pass, struct cb_sink *sinks,
                                 int nsinks, struct cb_error *err);

/* What the verdicts over the run came to (rank 0), for the one answer a
 * burn-in of --accept gives, at its end. */
struct cb_burnin_answer {
  int total, not_passed, warn, unjudged, intervals;
  char names[256]; /* "FAIL name, INCONCLUSIVE name", as cb_accept_result's */
};
/* Runs the passes, filling *answer; CB_OK when every verdict over the run
 * passed (or warned), CB_FAILED when one is FAIL or INCONCLUSIVE,
 * CB_RUNTIME when a signal stopped it (partial verdicts written), or the
 * error that stopped it. */
int cb_burnin_judged_run(const struct cb_cluster *cl, const struct cb_settings *s,
                         struct cb_sink *sinks, int nsinks, cb_burnin_pass_fn pass, void *state,
                         struct cb_burnin_answer *answer, struct cb_error *err);

#endif
