/* SIGINT and SIGTERM (Ctrl-C, a scheduler's kill, mpirun passing either
 * on): a message, the temporary file of an output being replaced removed,
 * and exit 3, at once, even from inside a blocked MPI call. Outputs stay
 * whole because every streamed line is written inside cb_interrupt_hold:
 * a signal arriving then ends the process right after the line. */
#ifndef CB_INTERRUPT_H
#define CB_INTERRUPT_H

/* `printer`: this process says why it stopped (rank 0). The others stay
 * up to 1 s before leaving, so that mpirun, which kills every rank once
 * the first is gone, does not kill the printer before it has spoken. */
void cb_interrupt_install(int printer);

/* A burn-in (--duration): from now on the first SIGINT, SIGTERM or
 * SIGUSR1 only asks it to end (cb_interrupt_stop_asked) after the
 * measurement in progress, so its verdicts over the intervals done are
 * written; a second one leaves at once as above. SIGUSR1 because mpirun
 * passes it to the ranks, while it follows SIGTERM with SIGKILL 1 s later
 * (Open MPI's odls_base_sigkill_timeout). */
void cb_interrupt_soft(void);
/* stdout (rank 0's table) through a writer that, once a burn-in's stop is
 * asked, waits at most half a second for a reader: on Ctrl-C Open MPI's
 * mpirun stops reading the ranks' output, and rank 0 stayed blocked in a
 * write until SIGKILL, its verdicts never written (tests/burnin.t). Call
 * before anything keeps the stdout pointer. */
void cb_interrupt_patient_stdout(void);
/* The signal that asked the burn-in to end; 0 when none. */
int cb_interrupt_stop_asked(void);
/* "SIGINT", "SIGTERM", "SIGUSR1" or "a signal". */
const char *cb_interrupt_signame(int sig);

/* Around a write that must not be cut: a signal meanwhile waits for
 * cb_interrupt_release. One writing thread at a time. */
void cb_interrupt_hold(void);
void cb_interrupt_release(void);

/* The temporary file to remove on a signal; NULL when none. */
void cb_interrupt_temp(const char *path);

/* A child (gnuplot) that a signal arriving inside a hold ends too, so the
 * holder can tidy up after it before leaving; 0 when none. */
void cb_interrupt_child(int pid);

/* Inside a hold: whether a signal has come and the process will leave at
 * cb_interrupt_release. */
int cb_interrupt_pending(void);

#endif
