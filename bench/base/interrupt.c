/* SIGINT and SIGTERM: a message, the temporary file of an output being replaced removed, exit 3
 * (interrupt.h says more). */
#define _GNU_SOURCE /* fopencookie */
#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "exit_now.h"

enum { IDLE, WRITING, PENDING, LEAVING };

static atomic_int state = IDLE;
static volatile sig_atomic_t pending_sig, printer, have_temp, child;
static volatile sig_atomic_t soft, stop_sig;       /* cb_interrupt_soft */
static volatile sig_atomic_t patient, stdout_gone; /* cb_interrupt_patient_stdout */
static char temp[4096];

static const char *signame(int sig) {
  return sig == SIGINT    ? "SIGINT"
         : sig == SIGTERM ? "SIGTERM"
         : sig == SIGUSR1 ? "SIGUSR1"
                          : "a signal";
}

/* One line in one write(2), so that mpirun's forwarding, which reads the
 * pipe in whatever pieces arrive, never puts it inside another line.
 * Async-signal-safe: copies by hand. */
static void say(const char *a, const char *b, const char *c) {
  char line[512];
  size_t n = 0;
  for (const char *p[] = {a, b, c}, **q = p; q < p + 3; q++)
    for (const char *s = *q; *s && n < sizeof line - 1; s++)
      line[n++] = *s;
  ssize_t w = write(STDERR_FILENO, line, n);
  (void)w;
}

/* Async-signal-safe only: unlink, write, nanosleep, cb_exit_now. */
static void leave(int sig) {
  if (have_temp)
    unlink(temp);
  if (!printer) {
    /* Stay a while so the printer speaks first: mpirun's wait between its
     * SIGTERM and SIGKILL ends at the first child's exit, so a rank that
     * left at once got rank 0 killed before its message whenever rank 0
     * was a few ms slower (measured in tests/measured-2026.md). mpirun
     * kills us as soon as rank 0 is gone; 1 s is its own grace. */
    struct timespec t = {1, 0};
    while (nanosleep(&t, &t) != 0)
      ; /* a signal meanwhile: sleep out the rest */
  } else {
    say("collbench: error: stopped by ", signame(sig),
        ": the outputs hold every whole line written before it\n");
  }
  cb_exit_now(CB_RUNTIME);
}

static void on_signal(int sig) {
  if (soft && !stop_sig) { /* the first one asks the burn-in to end; a second leaves */
    stop_sig = sig;
    if (patient) { /* a write blocked on a reader that stopped returns now */
      int fl = fcntl(STDOUT_FILENO, F_GETFL);
      if (fl >= 0)
        fcntl(STDOUT_FILENO, F_SETFL, fl | O_NONBLOCK);
    }
    if (printer) {
      say("collbench: ", signame(sig),
          ": ending after the measurement in progress, then the verdicts over what was "
          "measured (a second signal stops at once)\n");
    }
    return;
  }
  for (;;) {
    int expect = IDLE;
    if (atomic_compare_exchange_strong(&state, &expect, LEAVING))
      leave(sig);
    pending_sig = sig; /* a line is being written: its writer leaves after it */
    if (child > 0)
      kill((pid_t)child, SIGTERM); /* its holder waits for it, tidies, then leaves */
    expect = WRITING;
    if (atomic_compare_exchange_strong(&state, &expect, PENDING) || expect != IDLE)
      return;
  } /* the line was finished meanwhile: try again */
}

void cb_interrupt_install(int is_printer) {
  printer = is_printer;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* a launcher may start us with them blocked (the mask is inherited), and
   * one sent while the program was loading waits pending: both reach the
   * handler now, not never */
  sigset_t ours;
  sigemptyset(&ours);
  sigaddset(&ours, SIGINT);
  sigaddset(&ours, SIGTERM);
  pthread_sigmask(SIG_UNBLOCK, &ours, NULL);
}

void cb_interrupt_soft(void) {
  soft = 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL); /* mpirun passes it on; it kills at once after SIGTERM */
}

int cb_interrupt_stop_asked(void) {
  return stop_sig;
}

const char *cb_interrupt_signame(int sig) {
  return signame(sig);
}

void cb_interrupt_hold(void) {
  int expect = IDLE;
  while (!atomic_compare_exchange_strong(&state, &expect, WRITING)) {
    if (expect == LEAVING) /* another thread is ending the process */
      for (;;)
        pause();
    expect = IDLE;
  }
}

void cb_interrupt_release(void) {
  int expect = WRITING;
  if (!atomic_compare_exchange_strong(&state, &expect, IDLE))
    leave(pending_sig); /* a signal came during the write */
}

void cb_interrupt_child(int pid) {
  child = pid;
}

int cb_interrupt_pending(void) {
  return atomic_load(&state) == PENDING;
}

void cb_interrupt_temp(const char *path) {
  have_temp = 0;
  if (path && strlen(path) < sizeof temp) {
    memcpy(temp, path, strlen(path) + 1);
    have_temp = 1;
  }
}

/* Once the stop is asked stdout is non-blocking: a reader that does not
 * take a line within CB_STDOUT_PATIENCE_MS is gone, and the rest of the
 * table is dropped (the files still get everything). */
#define CB_STDOUT_PATIENCE_MS 500
static ssize_t patient_write(void *cookie, const char *buf, size_t n) {
  (void)cookie;
  size_t done = 0;
  while (done < n && !stdout_gone) {
    ssize_t w = write(STDOUT_FILENO, buf + done, n - done);
    if (w > 0) {
      done += (size_t)w;
    } else if (w < 0 && errno == EAGAIN) {
      struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
      int r;
      while ((r = poll(&p, 1, CB_STDOUT_PATIENCE_MS)) < 0 && errno == EINTR)
        ;
      if (r <= 0)
        stdout_gone = 1;
    } else if (!(w < 0 && errno == EINTR)) {
      return done ? (ssize_t)done : -1;
    }
  }
  return (ssize_t)n;
}

void cb_interrupt_patient_stdout(void) {
  cookie_io_functions_t io = {.write = patient_write};
  FILE *f = fopencookie(NULL, "w", io);
  if (!f)
    return; /* the plain stdout: only a stop under mpirun may then block */
  setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
  fflush(stdout);
  stdout = f;
  patient = 1;
}
