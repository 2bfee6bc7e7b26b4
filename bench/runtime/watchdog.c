/* A hang must name who is stuck where (watchdog.h says more). */
#define _GNU_SOURCE /* pipe2 */
#include "watchdog.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/exit_now.h"
#include "base/timer.h"
#include "watchdog_peers.h"

static struct {
  pthread_mutex_t lock;
  pthread_t thread;
  int running, stop;
  int polled;               /* the main thread polls too (nccl): it reports and aborts itself */
  double timeout, armed_at; /* armed_at 0: idle */
  long seq;                 /* measurements armed so far: where this rank is */
  char what[256];
  const struct cb_cluster *cl; /* NULL before cb_watchdog_attach: start-up */
  struct cb_wd_peers *peers;   /* asks the others who is stuck (watchdog_peers.h) */
  int wake[2];                 /* stop wakes the thread at once, not at its next tick */
  int depth;                   /* starts not yet stopped: an inner one shares the outer */
  int measuring;               /* armed by cb_watchdog_arm, not by a phase */
  char phase[256];             /* what the run does between measurements ("": nothing watched) */
} wd = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = {-1, -1}};

static struct cb_watchdog_hang hang;
static int hanging;

const struct cb_watchdog_hang *cb_watchdog_hang(void) {
  return hanging ? &hang : NULL;
}

/* What must still happen when the watchdog ends the process: cb_exit_now skips
 * atexit handlers (e.g. removing NCCL's log folder from $TMPDIR). */
#define MAX_EXIT_HOOKS 4
static void (*exit_hooks[MAX_EXIT_HOOKS])(void);
static int nexit_hooks;

void cb_watchdog_exit_hooks(void) {
  for (int i = 0; i < nexit_hooks; i++)
    exit_hooks[i]();
}

void cb_watchdog_at_exit(void (*fn)(void)) {
  for (int i = 0; i < nexit_hooks; i++)
    if (exit_hooks[i] == fn)
      return;
  if (nexit_hooks < MAX_EXIT_HOOKS)
    exit_hooks[nexit_hooks++] = fn;
}

static void *watch(void *unused) {
  (void)unused;
  /* Waking 10 times a second bounds the overshoot to 0.1 s; a peer
   * asking where this rank is wakes it at once. */
  double last = cb_now(), frozen = 0;
  long last_seq = -1;
  for (;;) {
    pthread_mutex_lock(&wd.lock); /* attach sets them while this thread runs */
    struct cb_wd_peers *peers = wd.peers;
    const struct cb_cluster *cl = wd.cl;
    pthread_mutex_unlock(&wd.lock);
    struct pollfd pf[2] = {{.fd = cb_wd_peers_fd(peers), .events = POLLIN},
                           {.fd = wd.wake[0], .events = POLLIN}};
    poll(pf, 2, 100);
    /* a tick seconds late: this process itself was not running (SIGSTOP,
     * a paused VM); then it is the late one, not the others */
    double now = cb_now();
    if (now - last > 1.0)
      frozen += now - last;
    last = now;
    pthread_mutex_lock(&wd.lock);
    int stop = wd.stop;
    double armed_at = wd.armed_at;
    long seq = wd.seq;
    /* A polling backend gets a grace period to abort and report through
     * the normal error path before the process is ended from here. */
    double limit = wd.timeout + (wd.polled ? CB_WATCHDOG_GRACE : 0);
    char what[sizeof wd.what];
    memcpy(what, wd.what, sizeof what);
    pthread_mutex_unlock(&wd.lock);
    if (stop)
      return NULL;
    if (armed_at == 0 || seq != last_seq)
      frozen = 0; /* only a stop within the current measurement or phase counts */
    last_seq = seq;
    if (pf[0].revents)
      cb_wd_peers_serve(peers, seq, armed_at > 0, what);
    if (armed_at > 0 && cb_now() - armed_at > limit) {
      /* this rank waits; the one to name is the one that did not come */
      char who[1024];
      snprintf(hang.what, sizeof hang.what, "%s", what);
      hang.timeout = wd.timeout;
      if (!cl) /* start-up: nobody known to ask */
        snprintf(who, sizeof who,
                 "another rank did not arrive (stopped, its host down, or MPI could not start "
                 "it); which one cannot be said before the ranks have met");
      else if (frozen > 0) {
        snprintf(who, sizeof who,
                 "this rank itself did not run for %.0f s (stopped, or its machine paused); "
                 "the others gave up waiting for it",
                 frozen);
        hang.hung = (struct cb_wd_hung){.ranks = {cl->rank}, .n = 1, .rank0_alive = 1};
      } else
        cb_wd_peers_blame(peers, seq, what, who, sizeof who, &hang.hung);
      char host[256] = "?";
      if (cl)
        snprintf(host, sizeof host, "%s", cl->hostname);
      else if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "?");
      host[sizeof host - 1] = '\0';
      fprintf(stderr,
              "collbench: timeout: rank %d on %s spent more than %g s in %s (--timeout): %s; "
              "giving up, exit 3\n",
              cl ? cl->rank : cb_launcher_rank(), host, wd.timeout, what, who);
      fflush(stderr);
      hanging = 1;
      cb_watchdog_exit_hooks();
      if (cl && cl->rank != 0 && hang.hung.rank0_alive) { /* rank 0 writes what was finished */
        struct timespec ts = {(time_t)CB_WATCHDOG_PRINTER_WAIT, 0};
        nanosleep(&ts, NULL);
      }
      cb_exit_now(3);
    }
  }
}

/* The thread, watching `phase` (NULL: nothing) until the first arm. */
static int launch(const struct cb_cluster *cl, double timeout, const char *phase) {
  wd.cl = cl;
  wd.timeout = timeout;
  wd.stop = 0;
  wd.armed_at = 0;
  wd.polled = 0;
  wd.seq = 0;
  wd.measuring = 0;
  wd.depth = 1;
  snprintf(wd.phase, sizeof wd.phase, "%s", phase ? phase : "");
  if (phase) {
    snprintf(wd.what, sizeof wd.what, "%s", phase);
    wd.armed_at = cb_now();
  }
  wd.peers = cl ? cb_wd_peers_open(cl) : NULL; /* collective: every rank has the same timeout */
  if (pipe2(wd.wake, O_CLOEXEC | O_NONBLOCK) != 0)
    wd.wake[0] = wd.wake[1] = -1; /* poll ignores -1: stop then waits a tick */
  if (pthread_create(&wd.thread, NULL, watch, NULL) != 0)
    return -1;
  wd.running = 1;
  return 0;
}

int cb_watchdog_start(const struct cb_cluster *cl, double timeout) {
  if (timeout <= 0)
    return 0;
  if (wd.running) { /* inside a watched run: its watchdog serves */
    pthread_mutex_lock(&wd.lock);
    wd.depth++;
    pthread_mutex_unlock(&wd.lock);
    return 0;
  }
  return launch(cl, timeout, NULL);
}

int cb_watchdog_start_early(double timeout, const char *phase) {
  if (timeout <= 0 || wd.running)
    return 0;
  return launch(NULL, timeout, phase);
}

void cb_watchdog_attach(const struct cb_cluster *cl) {
  if (!wd.running || wd.cl)
    return;
  struct cb_wd_peers *peers = cb_wd_peers_open(cl); /* collective, watched as start-up */
  pthread_mutex_lock(&wd.lock);
  wd.cl = cl, wd.peers = peers;
  pthread_mutex_unlock(&wd.lock);
}

/* Under the lock: watching what (a measurement or a phase) from now. */
static void arm_locked(const char *what) {
  snprintf(wd.what, sizeof wd.what, "%s", what);
  wd.armed_at = cb_now();
  wd.seq++;
}

void cb_watchdog_arm(const char *what) {
  pthread_mutex_lock(&wd.lock);
  arm_locked(what);
  wd.measuring = 1;
  pthread_mutex_unlock(&wd.lock);
}

void cb_watchdog_phase(const char *what) {
  if (!wd.running)
    return;
  pthread_mutex_lock(&wd.lock);
  snprintf(wd.phase, sizeof wd.phase, "%s", what ? what : "");
  if (!wd.measuring) {
    if (wd.phase[0])
      arm_locked(wd.phase);
    else
      wd.armed_at = 0;
  }
  pthread_mutex_unlock(&wd.lock);
}

int cb_watchdog_poll(char *what, size_t len) {
  pthread_mutex_lock(&wd.lock);
  wd.polled = 1;
  int late = wd.running && wd.armed_at > 0 && cb_now() - wd.armed_at > wd.timeout;
  if (late && what)
    snprintf(what, len, "%s", wd.what);
  pthread_mutex_unlock(&wd.lock);
  return late;
}

double cb_watchdog_timeout(void) {
  return wd.running ? wd.timeout : 0;
}

void cb_watchdog_disarm(void) {
  pthread_mutex_lock(&wd.lock);
  wd.measuring = 0;
  if (wd.phase[0]) /* back to the phase the measurement ran in */
    arm_locked(wd.phase);
  else
    wd.armed_at = 0;
  pthread_mutex_unlock(&wd.lock);
}

void cb_watchdog_stop(void) {
  if (!wd.running)
    return;
  pthread_mutex_lock(&wd.lock);
  int inner = --wd.depth > 0;
  if (!inner)
    wd.stop = 1;
  pthread_mutex_unlock(&wd.lock);
  if (inner)
    return;
  if (wd.wake[1] >= 0 && write(wd.wake[1], "", 1) < 0) {
    /* full or gone: the thread sees stop at its next tick */
  }
  pthread_join(wd.thread, NULL);
  for (int i = 0; i < 2; i++)
    if (wd.wake[i] >= 0)
      close(wd.wake[i]), wd.wake[i] = -1;
  wd.running = 0;
  cb_wd_peers_close(wd.peers);
  wd.peers = NULL;
}
