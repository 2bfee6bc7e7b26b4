/* libnccl-profiler-collbench.so: NCCL's profiler plugin interface
 * (profiler_abi.h) asking for collective events only, counting what NCCL
 * ran for each: the collective, algorithm, protocol and channel count NCCL
 * chose (or fell back to), which a forced NCCL_ALGO, a tuner rule or the
 * row's label may not match. collbench takes the counts after each timed
 * row (ran.h). NCCL starts a coll event per task when it launches the plan,
 * after choosing (src/plugin/profiler.cc, ncclProfilerStartTaskEvents, at
 * v2.28.9-1), so the counts are what ran, not what was asked. A plugin must never fail a job: every
 * entry point returns success; a combination past CB_RAN_MAX is counted, not listed. All
 * communicators of the process share one table, behind a mutex: collbench
 * times one communicator at a time. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "profiler_abi.h"
#include "ran.h"

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct cb_ran seen[CB_RAN_MAX];
static int nseen;
static long other;
static int handle; /* startEvent's handle: nothing to keep per event */
static int picked; /* the interface NCCL took: which init it called */

static void copy(char *dst, size_t len, const char *src) {
  snprintf(dst, len, "%s", src ? src : "?");
}

static void count(const struct cbp_coll_descr *c) {
  struct cb_ran r = {.channels = c->nChannels, .calls = 1};
  copy(r.func, sizeof r.func, c->func);
  copy(r.algo, sizeof r.algo, c->algo);
  copy(r.proto, sizeof r.proto, c->proto);
  pthread_mutex_lock(&mu);
  int i = 0;
  while (i < nseen && !(seen[i].channels == r.channels && !strcmp(seen[i].func, r.func) &&
                        !strcmp(seen[i].algo, r.algo) && !strcmp(seen[i].proto, r.proto)))
    i++;
  if (i < nseen)
    seen[i].calls++;
  else if (nseen < CB_RAN_MAX)
    seen[nseen++] = r;
  else
    other++;
  pthread_mutex_unlock(&mu);
}

EXPORT int collbench_profiler_take(struct cb_ran *out, int max, long *more) {
  pthread_mutex_lock(&mu);
  int n = nseen < max ? nseen : max;
  if (n > 0)
    memcpy(out, seen, (size_t)n * sizeof *out);
  long left = other;
  for (int i = n; i < nseen; i++)
    left += seen[i].calls;
  nseen = 0, other = 0;
  pthread_mutex_unlock(&mu);
  if (more)
    *more = left;
  return n;
}

/* A coll event is counted and gets a handle; any other event, never asked
 * for, gets none. */
static cbp_result_t start(int is_coll, const struct cbp_coll_descr *c, void **h) {
  if (h)
    *h = is_coll ? &handle : NULL;
  if (is_coll)
    count(c);
  return CBP_SUCCESS;
}

static cbp_result_t start5(void *ctx, void **h, cbp_event_descr_v5 *d) {
  (void)ctx;
  return start(d && (d->type & CBP_PROFILE_COLL), d ? &d->coll : NULL, h);
}

static cbp_result_t start4(void *ctx, void **h, cbp_event_descr_v4 *d) {
  (void)ctx;
  return start(d && (d->type & CBP_PROFILE_COLL), d ? &d->coll : NULL, h);
}

/* v3 and v2 (NCCL 2.24 to 2.26): their coll member, moved into v5's
 * fields (nMaxChannels standing for the channels) */
static cbp_result_t start_old(const void *d, int is_coll, const char *func, const char *algo,
                              const char *proto, uint8_t nch, void **h) {
  struct cbp_coll_descr c = {.func = func, .algo = algo, .proto = proto, .nChannels = nch};
  return start(d && is_coll, &c, h);
}

static cbp_result_t start3(void *ctx, void **h, cbp_event_descr_v3 *d) {
  (void)ctx;
  return d ? start_old(d, d->type & CBP_PROFILE_COLL, d->coll.func, d->coll.algo, d->coll.proto,
                       d->coll.nMaxChannels, h)
           : start(0, NULL, h);
}

static cbp_result_t start2(void *ctx, void **h, cbp_event_descr_v2 *d) {
  (void)ctx;
  return d ? start_old(d, d->type & CBP_PROFILE_COLL, d->coll.func, d->coll.algo, d->coll.proto,
                       d->coll.nMaxChannels, h)
           : start(0, NULL, h);
}

static cbp_result_t stop(void *h) {
  (void)h;
  return CBP_SUCCESS;
}

static cbp_result_t record(void *h, int state, void *args) {
  (void)h, (void)state, (void)args;
  return CBP_SUCCESS;
}

static cbp_result_t finalize(void *ctx) {
  (void)ctx;
  return CBP_SUCCESS;
}

static cbp_result_t init5(void **ctx, uint64_t comm, int *mask, const char *name, int nnodes,
                          int nranks, int rank, cbp_logger_t log) {
  (void)comm, (void)name, (void)nnodes, (void)nranks, (void)rank, (void)log;
  if (ctx)
    *ctx = &handle; /* NCCL finalizes only a non-NULL context (src/plugin/profiler.cc) */
  if (mask)
    *mask = CBP_PROFILE_COLL; /* nothing else: no proxy or kernel events to pay for */
  return CBP_SUCCESS;
}

static cbp_result_t init6(void **ctx, uint64_t comm, int *mask, const char *name, int nnodes,
                          int nranks, int rank, cbp_logger_t log) {
  picked = 6;
  return init5(ctx, comm, mask, name, nnodes, nranks, rank, log);
}

static cbp_result_t init5_only(void **ctx, uint64_t comm, int *mask, const char *name, int nnodes,
                               int nranks, int rank, cbp_logger_t log) {
  picked = 5;
  return init5(ctx, comm, mask, name, nnodes, nranks, rank, log);
}

static cbp_result_t init4(void **ctx, int *mask, const char *name, uint64_t comm, int nnodes,
                          int nranks, int rank, cbp_logger_t log) {
  picked = 4;
  return init5(ctx, comm, mask, name, nnodes, nranks, rank, log);
}

static cbp_result_t init3(void **ctx, int *mask) {
  picked = 3;
  return init5(ctx, 0, mask, NULL, 0, 0, 0, NULL);
}

static cbp_result_t init2(void **ctx, int *mask) {
  picked = 2;
  return init5(ctx, 0, mask, NULL, 0, 0, 0, NULL);
}

/* which interface NCCL took: the run record says it beside what ran */
EXPORT int collbench_profiler_version(void) {
  return picked;
}

/* v6 (NCCL 2.29, 2.30): v5's layout where collbench reads (profiler_abi.h) */
EXPORT const cbp_profiler_v5 ncclProfiler_v6 = {"collbench", init6, start5, stop, record, finalize};
EXPORT const cbp_profiler_v5 ncclProfiler_v5 = {"collbench", init5_only, start5,
                                                stop,        record,     finalize};
EXPORT const cbp_profiler_v4 ncclProfiler_v4 = {"collbench", init4, start4, stop, record, finalize};
EXPORT const cbp_profiler_v3 ncclProfiler_v3 = {"collbench", init3, start3, stop, record, finalize};
EXPORT const cbp_profiler_v2 ncclProfiler_v2 = {"collbench", init2, start2, stop, record, finalize};
