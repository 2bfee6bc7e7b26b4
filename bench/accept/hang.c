/* What a hang keeps (hang.h). Runs on rank 0's watchdog thread while the
 * main thread waits inside MPI for the rank that never comes; it calls no
 * MPI. */
#include "hang.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "runtime/watchdog.h"

/* What a hang keeps; the lock orders the main thread's publishing of
 * finished verdicts (cb_hang_publish) before the watchdog thread's reading
 * of them, so a hang never reads a half-written verdict. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  const struct cb_cluster *cl; /* NULL: nothing watched */
  const char *exclude_path;
  struct cb_sink *sinks; /* NULL outside a run: --exclude-out alone */
  int nsinks;
  struct cb_accept_result *res;
  const struct cb_excluded *earlier;
  struct cb_excluded done; /* the finished run's hosts, kept for a hang at the end */
} ctx;

static void on_hang(void) {
  const struct cb_watchdog_hang *h = cb_watchdog_hang();
  pthread_mutex_lock(&lock);
  if (!h || !ctx.cl || ctx.cl->rank != 0) {
    pthread_mutex_unlock(&lock);
    return;
  }
  const struct cb_cluster *cl = ctx.cl;
  struct cb_accept_result *res = ctx.res;
  struct cb_error err = {0};
  for (int i = 0; res && i < res->npending; i++) /* judged before the hang */
    cb_accept_emit(cl, ctx.sinks, ctx.nsinks, &res->pending[i], res, &err);
  if (res)
    res->npending = 0;
  struct cb_excluded x = {0};
  static char names[CB_WD_MAX_HUNG][CB_HOSTNAME_MAX + 8];
  char why[sizeof x.e->why];
  snprintf(why, sizeof why, "hung in %.180s", h->what);
  for (int i = 0; i < h->hung.n && i < CB_WD_MAX_HUNG; i++) {
    int r = h->hung.ranks[i];
    const char *host = cl->node_names[cl->node_of_rank[r]];
    snprintf(names[i], sizeof names[i], "hung %s", host);
    struct cb_verdict v = {.name = names[i],
                           .status = CB_FAIL,
                           .unit = "s",
                           .measured = NAN,
                           .warn = NAN,
                           .fail = h->timeout,
                           .margin = NAN};
    snprintf(v.what, sizeof v.what,
             "rank %d on %.64s did not answer in %.64s within --timeout %g s (stopped, or hung "
             "outside collbench's control): excluded",
             r, host, h->what, h->timeout);
    if (res)
      cb_accept_emit(cl, ctx.sinks, ctx.nsinks, &v, res, &err);
    cb_excluded_add(&x, host, why);
  }
  if (res)
    cb_excluded_from(&x, res);
  for (int i = 0; ctx.earlier && i < ctx.earlier->n; i++)
    cb_excluded_add(&x, ctx.earlier->e[i].host, ctx.earlier->e[i].why);
  for (int i = 0; i < ctx.done.n; i++)
    cb_excluded_add(&x, ctx.done.e[i].host, ctx.done.e[i].why);
  struct cb_summary none = {0};
  if (res)
    cb_accept_conclude(ctx.sinks, ctx.nsinks, res->measured ? res->measured : &none, res,
                       " before the hang", &err);
  if (ctx.exclude_path && cb_excluded_write(&x, ctx.exclude_path, &err) == CB_OK)
    fprintf(stderr, "collbench: --exclude-out %s: %d host%s, the hung one%s first\n",
            ctx.exclude_path, x.n, x.n == 1 ? "" : "s", h->hung.n == 1 ? "" : "s");
  cb_excluded_free(&x);
  struct cb_error ignored = {0};
  if (res)
    cb_sinks_close(ctx.sinks, ctx.nsinks, &ignored);
  fflush(stdout);
  pthread_mutex_unlock(&lock);
}

void cb_hang_watch_hosts(const struct cb_cluster *cl, const char *exclude_path) {
  pthread_mutex_lock(&lock);
  ctx.cl = cl, ctx.exclude_path = exclude_path;
  ctx.sinks = NULL, ctx.nsinks = 0, ctx.res = NULL, ctx.earlier = NULL;
  pthread_mutex_unlock(&lock);
  cb_watchdog_at_exit(on_hang);
}

void cb_hang_publish(struct cb_accept_result *res, const struct cb_verdict *v, int n) {
  pthread_mutex_lock(&lock);
  res->pending = v, res->npending = n;
  pthread_mutex_unlock(&lock);
}

void cb_hang_keep(const struct cb_excluded *x) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < x->n; i++) /* out of memory: that host is not kept, the hung one is */
    cb_excluded_add(&ctx.done, x->e[i].host, x->e[i].why);
  pthread_mutex_unlock(&lock);
}

void cb_hang_watch(const struct cb_cluster *cl, const char *exclude_path, struct cb_sink *sinks,
                   int nsinks, struct cb_accept_result *res, const struct cb_excluded *earlier) {
  pthread_mutex_lock(&lock);
  ctx.cl = cl, ctx.exclude_path = exclude_path, ctx.sinks = sinks, ctx.nsinks = nsinks;
  ctx.res = res, ctx.earlier = earlier;
  memset(res, 0, sizeof *res); /* the run fills it; a hang before then finds nothing */
  pthread_mutex_unlock(&lock);
  cb_watchdog_at_exit(on_hang);
}

void cb_hang_unwatch(void) {
  pthread_mutex_lock(&lock);
  /* the run's outputs are its own again; a burn-in's passes keep their hosts (cb_hang_keep) */
  ctx.sinks = NULL, ctx.nsinks = 0, ctx.res = NULL, ctx.earlier = NULL;
  pthread_mutex_unlock(&lock);
}

void cb_hang_end(void) {
  pthread_mutex_lock(&lock);
  ctx.cl = NULL;
  cb_excluded_free(&ctx.done);
  pthread_mutex_unlock(&lock);
}
