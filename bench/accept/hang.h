/* A rank that stops answering during --accept, --matrix or a burn-in of
 * them (issue 58): the watchdog names it and ends the run (exit 3), and
 * first, on rank 0, what was finished is kept: the verdicts already judged
 * go to the outputs with a FAIL "hung HOST" for each silent rank's host,
 * the host goes to --exclude-out with why ("hung in allreduce 64 MiB"),
 * and the outputs are closed whole. A hung rank 0 can keep nothing: the
 * streamed records are all there is. */
#ifndef CB_ACCEPT_HANG_H
#define CB_ACCEPT_HANG_H

#include "excluded.h"
#include "verdicts.h"

/* From here until cb_hang_unwatch, a timeout keeps res's finished verdicts
 * (cb_accept_result's pending) and writes --exclude-out from res and
 * `earlier` (a burn-in's earlier passes; may be NULL) to exclude_path
 * (--exclude-out; NULL: none). */
void cb_hang_watch(const struct cb_cluster *cl, const char *exclude_path, struct cb_sink *sinks,
                   int nsinks, struct cb_accept_result *res, const struct cb_excluded *earlier);
/* The run's end: its outputs are its own again; a later hang writes
 * --exclude-out alone, as before the run (cb_hang_watch_hosts). */
void cb_hang_unwatch(void);

/* Outside a run (its set-up, the probe, the end: issue 73), a timeout
 * writes --exclude-out with the hung hosts, and the finished run's
 * (cb_hang_keep); cb_hang_end stops it, before the cluster is freed. */
void cb_hang_watch_hosts(const struct cb_cluster *cl, const char *exclude_path);
void cb_hang_keep(const struct cb_excluded *x);
void cb_hang_end(void);

/* The run's finished verdicts, v[0..n), for a hang to keep: published
 * under the lock the watchdog thread reads them under. */
void cb_hang_publish(struct cb_accept_result *res, const struct cb_verdict *v, int n);

#endif
