/* Where a run's wall time goes (issue 45): with COLLBENCH_PHASES=1 in the
 * environment, each call prints "collbench phase: +T s NAME" on stderr,
 * T the seconds since the process's first call, from the launcher's rank
 * 0 only: start-up's steps, then each row's (buffers filled, measured with
 * its samples, runs and timed time, checked; engine.c). Otherwise nothing,
 * at the cost of one getenv. */
#ifndef CB_PHASE_H
#define CB_PHASE_H

void cb_phase(const char *name);
/* Whether phases print, so a caller formats a name only then (per row). */
int cb_phase_on(void);

#endif
