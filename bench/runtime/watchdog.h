/* A hang must name who is stuck where. The watchdog thread watches the
 * current measurement and, past --timeout, prints rank, host, op and size
 * and ends the process with status 3 (mpirun then ends the job): the only
 * way out of a blocking call that never returns. */
#ifndef CB_WATCHDOG_H
#define CB_WATCHDOG_H

#include <stddef.h>

#include "cluster.h"

#include "watchdog_peers.h"

/* Seconds a rank other than 0 stays after its timeout while rank 0 is
 * alive: rank 0 writes the finished verdicts and --exclude-out before it
 * leaves, and mpirun kills every rank once the first is gone. */
#define CB_WATCHDOG_PRINTER_WAIT 10.0

/* What a timeout found, for the exit hooks (cb_watchdog_at_exit): the
 * measurement, the --timeout, and the ranks that did not answer. */
struct cb_watchdog_hang {
  char what[256];
  double timeout;
  struct cb_wd_hung hung;
};
/* Valid inside the exit hooks of a timeout; NULL otherwise. */
const struct cb_watchdog_hang *cb_watchdog_hang(void);

/* Seconds past --timeout a polling backend has to abort and report. */
#define CB_WATCHDOG_GRACE 5.0

/* timeout <= 0 disables the watchdog. Inside a running one (a judged
 * run's, below) a start shares it and its stop is the start's pair. */
int cb_watchdog_start(const struct cb_cluster *cl, double timeout);
void cb_watchdog_arm(const char *what);
void cb_watchdog_disarm(void);
void cb_watchdog_stop(void);

/* A run watched in every phase (--accept and --matrix: a node may hang
 * anywhere, issue 73), not only while measuring:
 *   cb_watchdog_start_early before MPI_Init, watching `phase` (start-up)
 *   with nobody to ask yet: a timeout then says a rank did not arrive;
 *   cb_watchdog_attach once the cluster is known (collective): from then
 *   on a timeout asks the others who is stuck, as in a measurement;
 *   cb_watchdog_phase names what the run does between measurements, each
 *   step of it watched for --timeout from the last measurement's end or
 *   the phase's start (NULL: nothing between measurements watched). */
int cb_watchdog_start_early(double timeout, const char *phase);
void cb_watchdog_attach(const struct cb_cluster *cl);
void cb_watchdog_phase(const char *what);
/* fn runs (once, on the watchdog's thread) before the watchdog's _exit(3):
 * for clean-up an atexit handler would do (up to 4) */
void cb_watchdog_at_exit(void (*fn)(void));
void cb_watchdog_exit_hooks(void); /* runs them: the watchdog's exit path */
/* For backends that wait by polling (nccl): 1 when the armed measurement
 * is past --timeout, with its description in what. The watchdog then
 * waits CB_WATCHDOG_GRACE more seconds before ending the process itself. */
int cb_watchdog_poll(char *what, size_t len);
/* --timeout in seconds while the watchdog runs, else 0. */
double cb_watchdog_timeout(void);

#endif
