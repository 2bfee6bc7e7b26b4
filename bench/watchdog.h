/* A hang must name who is stuck where. The watchdog thread watches the
 * current measurement and, past --timeout, prints rank, host, op and size
 * and ends the process with status 3 (mpirun then ends the job): the only
 * way out of a blocking call that never returns. */
#ifndef CB_WATCHDOG_H
#define CB_WATCHDOG_H

#include "cluster.h"

/* timeout <= 0 disables the watchdog. */
int cb_watchdog_start(const struct cb_cluster *cl, double timeout);
void cb_watchdog_arm(const char *what);
void cb_watchdog_disarm(void);
void cb_watchdog_stop(void);

#endif
