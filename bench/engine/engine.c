/* The measuring engine: settings expanded into series and sizes, buffers, checks, the sinks fed
 * (engine.h says more). */
#include "engine.h"
#include "base/phase.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/nccl_ran.h"
#include "base/interrupt.h"
#include "base/timer.h"
#include "base/units.h"
#include "concurrent.h"
#include "measure.h"
#include "ops/skew.h"
#include "runtime/gpu.h"
#include "runtime/pattern_io.h"
#include "runtime/standin.h"
#include "runtime/watchdog.h"

/* Buffers of one series, grown as sizes grow. */
struct buffers {
  void *send, *recv, *staging;
  size_t send_cap, recv_cap, staging_cap;
};

struct series_ctx {
  const struct cb_cluster *cl;
  const struct cb_settings *s;
  const struct cb_backend *backend;
  void *ctx;
  const struct cb_op *op;
  int mem, dtype, redop;
  /* the series' check pattern (dtype, redop, ranks), built once: each
   * variant and size takes it under its own seed (cb_pattern_reseeded) */
  struct cb_pattern pattern;
  double timer_overhead;
  struct cb_sink *sinks;
  int nsinks;
  struct cb_summary *sum;
  struct buffers buf;
  /* how fill and check reach the buffers (choose_access) */
  struct cb_pattern_access access;
  /* a skewed op's (alltoallv's) counts for this rank at the row's size */
  struct cb_skew_layout layout;
  int staged;         /* through host copies in buf.staging */
  double started;     /* the run's start, for progress */
  int said_gpu_waits; /* the GPU waits note (cb_gpu_wait_note), once a run */
  /* rows of this series, and those with a record whose CI stayed wider
   * than --precision (marked on the row; one summary line at the end) */
  int nrows, nnoisy;
  double worst_ci; /* the widest of those, relative to the median */
  int nnoci;       /* rows of too few samples for any interval */
};

#define EACH_SINK(sc, method, ...)                                                                 \
  do {                                                                                             \
    if ((sc)->cl->rank == 0)                                                                       \
      for (int i_ = 0; i_ < (sc)->nsinks; i_++)                                                    \
        if ((sc)->sinks[i_].method && (sc)->sinks[i_].method((sc)->sinks[i_].state, __VA_ARGS__))  \
          return err->status;                                                                      \
  } while (0)

static int note(struct series_ctx *sc, struct cb_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int note(struct series_ctx *sc, struct cb_error *err, const char *fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  EACH_SINK(sc, note, text, err);
  return CB_OK;
}

static int grow(struct series_ctx *sc, void **ptr, size_t *cap, size_t bytes,
                struct cb_error *err) {
  if (bytes <= *cap)
    return CB_OK;
  if (*ptr)
    sc->backend->free(sc->ctx, sc->mem, *ptr);
  *ptr = NULL;
  *cap = 0;
  if (sc->backend->alloc(sc->ctx, sc->mem, bytes, ptr, err))
    return err->status;
  *cap = bytes;
  /* host pages are mapped at first touch: touched now, or --rotate's first
   * pass would time a page fault per call (26x at 1 KiB here) */
  if (sc->mem != CB_MEM_DEVICE && sc->s->rotate)
    memset(*ptr, 0, bytes);
  return CB_OK;
}

/* --rotate: a buffer of at least CB_ROTATE_SPAN, for the slices */
static size_t spanned(const struct series_ctx *sc, size_t bytes) {
  return sc->s->rotate && bytes < CB_ROTATE_SPAN ? CB_ROTATE_SPAN : bytes;
}

static void release(struct series_ctx *sc) {
  if (sc->buf.send)
    sc->backend->free(sc->ctx, sc->mem, sc->buf.send);
  if (sc->buf.recv)
    sc->backend->free(sc->ctx, sc->mem, sc->buf.recv);
  free(sc->buf.staging);
  memset(&sc->buf, 0, sizeof sc->buf);
}

/* The one place that decides how fill and check reach the buffers: host
 * memory directly; device memory by the GPU kernels once every rank's
 * self-check has passed (once per process), otherwise through host
 * staging copies, said once, so a wrong kernel cannot fake wrong = 0. */
static int choose_access(struct series_ctx *sc, struct cb_error *err) {
  static int gpu_kernels = -1; /* -1: not decided yet */
  char why[256] = "";
  memset(&sc->access, 0, sizeof sc->access);
  sc->staged = 0;
  if (sc->mem != CB_MEM_DEVICE || !sc->backend->copy)
    return CB_OK;
  if (gpu_kernels < 0) { /* every rank gets here at its first device buffer */
    gpu_kernels = cb_gpu_pattern_io_all(sc->cl, why, sizeof why) != NULL;
    if (!gpu_kernels &&
        note(sc, err,
             "device buffers are filled and checked through host copies, not on the GPU: %s", why))
      return err->status;
  }
  sc->access.io = gpu_kernels ? cb_gpu_pattern_io(why, sizeof why) : NULL;
  sc->staged = !sc->access.io;
  return CB_OK;
}

/* A GPU kernel's failure while filling or checking, as the run's error. */
static int access_failed(struct series_ctx *sc, struct cb_error *err) {
  if (!sc->access.failed)
    return CB_OK;
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): %s %s: %s", sc->cl->rank, sc->cl->hostname,
                 sc->backend->name, sc->op->name, sc->access.why);
}

/* The staging copy is host memory whatever the series' memory kind: the
 * host fills, poisons, checks and free()s it. */
static int grow_staging(struct series_ctx *sc, size_t bytes, struct cb_error *err) {
  if (bytes <= sc->buf.staging_cap)
    return CB_OK;
  free(sc->buf.staging);
  sc->buf.staging_cap = 0;
  sc->buf.staging = cb_host_alloc(bytes);
  if (!sc->buf.staging)
    return cb_fail(err, CB_RUNTIME,
                   "rank %d (%s): %s %s: cannot allocate %zu bytes of host staging memory",
                   sc->cl->rank, sc->cl->hostname, sc->backend->name, sc->op->name, bytes);
  sc->buf.staging_cap = bytes;
  return CB_OK;
}

/* Host-side view of a buffer for filling and checking: the buffer itself,
 * or a staging copy when the backend's memory is not host-accessible. */
static void *host_view(struct series_ctx *sc, void *buf, size_t bytes, int fetch,
                       struct cb_error *err) {
  if (!sc->staged)
    return buf;
  if (grow_staging(sc, bytes, err))
    return NULL;
  if (fetch && sc->backend->copy(sc->ctx, sc->buf.staging, buf, bytes, err))
    return NULL;
  return sc->buf.staging;
}

static int publish(struct series_ctx *sc, void *buf, const void *view, size_t bytes,
                   struct cb_error *err) {
  if (!sc->staged || view == buf)
    return CB_OK;
  return sc->backend->copy(sc->ctx, buf, view, bytes, err);
}

/* Writes the inputs from oc's pattern (seed 0 for timing, 1.. for checks)
 * and poisons the output, so an output the op never wrote cannot pass. */
static int prepare(struct series_ctx *sc, const struct cb_shape *sh, struct cb_op_args *a,
                   const struct cb_op_ctx *oc, struct cb_error *err) {
  size_t esize = cb_dtypes[sc->dtype].size;
  size_t out_elems = a->send ? sh->recv_elems : sh->inplace_elems;
  void *out = host_view(sc, a->recv, out_elems * esize, 0, err);
  if (!out)
    return err->status;
  cb_io_poison(&sc->access, sc->dtype, out, out_elems);
  if (a->send) {
    if (publish(sc, a->recv, out, out_elems * esize, err))
      return err->status;
    void *in = host_view(sc, (void *)a->send, sh->send_elems * esize, 0, err);
    if (!in)
      return err->status;
    sc->op->fill(oc, in);
    if (access_failed(sc, err))
      return err->status;
    return publish(sc, (void *)a->send, in, sh->send_elems * esize, err);
  }
  sc->op->fill(oc, out);
  if (access_failed(sc, err))
    return err->status;
  return publish(sc, a->recv, out, out_elems * esize, err);
}

static int check(struct series_ctx *sc, const struct cb_shape *sh, struct cb_op_args *a,
                 long *wrong, struct cb_error *err) {
  const struct cb_cluster *cl = sc->cl;
  size_t esize = cb_dtypes[sc->dtype].size;
  long local = 0;
  for (long seed = 1; seed <= sc->s->check; seed++) {
    struct cb_pattern p = cb_pattern_reseeded(&sc->pattern, (uint64_t)seed);
    struct cb_op_ctx oc = {&p,       cl->rank, cl->nranks,  a->root,  a->peer,
                           a->count, !a->send, &sc->access, a->layout};
    int rc = prepare(sc, sh, a, &oc, err);
    /* a one-sided op (verbs' RDMA read) completes at the reader only: every rank's inputs are
     * written before any peer reads them, and read before the next seed rewrites them */
    if (!rc)
      MPI_Barrier(cl->comm);
    if (!rc)
      rc = sc->backend->run(sc->ctx, a, err);
    if (!rc)
      rc = sc->backend->sync(sc->ctx, err);
    if (!rc)
      MPI_Barrier(cl->comm);
    if (!rc) {
      size_t out_elems = a->send ? sh->recv_elems : sh->inplace_elems;
      const char *out = host_view(sc, a->recv, out_elems * esize, 1, err);
      size_t offset = 0;
      if (!a->send)
        offset = sc->backend->inplace_result_offset
                     ? sc->backend->inplace_result_offset(sc->op, a->count, cl->rank)
                     : sc->op->inplace_result_offset(a->count, cl->rank);
      if (out)
        local += (long)sc->op->check(&oc, out + offset * esize);
      access_failed(sc, err);
    }
    if (err->status)
      return err->status;
  }
  MPI_Allreduce(&local, wrong, 1, MPI_LONG, MPI_SUM, cl->comm);
  return CB_OK;
}

static void progress(struct series_ctx *sc, uint64_t bytes, int inplace) {
  if (!sc->s->progress || sc->cl->rank != 0)
    return;
  char size[32];
  fprintf(stderr, "\r\033[Kcollbench: %s %s %s (%s) %.1f s", sc->backend->name, sc->op->name,
          cb_format_size(bytes, size, sizeof size), inplace ? "in-place" : "out-of-place",
          cb_now() - sc->started);
}

/* COLLBENCH_PHASES=1: where a row's time goes (issue 45's breakdown) */
static void row_phase(const char *what, const char *step, const struct cb_timing *t) {
  if (!cb_phase_on())
    return;
  char line[400];
  if (t)
    snprintf(line, sizeof line, "%s: %s (%ld samples, %ld runs, %.1f ms timed)", what, step,
             t->samples, t->iters, 1e3 * t->mean_per_iter * (double)t->iters);
  else
    snprintf(line, sizeof line, "%s: %s", what, step);
  cb_phase(line);
}

/* Measures one variant at one size; *skipped when buffers do not fit.
 * --max-time is the size's wall-clock budget: this variant gets an equal
 * share of what is left of it since size_start, among variants_left, so
 * the first one's buffers and check come out of it too. */
static int measure_variant(struct series_ctx *sc, const struct cb_shape *sh, int inplace,
                           double size_start, int variants_left, struct cb_record *rec,
                           int *skipped, struct cb_error *err) {
  const struct cb_cluster *cl = sc->cl;
  size_t esize = cb_dtypes[sc->dtype].size;
  char size[32];
  cb_format_size(sh->bytes, size, sizeof size);
  /* armed from here: the agreement below waits for every rank too */
  char what[256];
  snprintf(what, sizeof what, "%s %s %s (%s, %s memory)", sc->backend->name, sc->op->name, size,
           inplace ? "in-place" : "out-of-place", cb_mem_names[sc->mem]);
  cb_watchdog_arm(what);

  /* Ranks agree on the time spent (the stop rule compares it with the
   * budget on every rank); armed, as a stopped rank hangs it too. */
  double spent = cb_now() - size_start;
  MPI_Allreduce(MPI_IN_PLACE, &spent, 1, MPI_DOUBLE, MPI_MAX, cl->comm);
  double budget = (sc->s->max_time - spent) / variants_left;
  /* a variant that sampled past its share to reach an interval (measure.h,
   * CB_CI_OVERRUN) leaves the next one at least a quarter of --max-time,
   * not nothing: a size may take up to 3x --max-time that way */
  if (budget < sc->s->max_time / 4)
    budget = sc->s->max_time / 4;

  struct cb_error alloc_err = {0};
  size_t send_bytes = sh->send_elems * esize, recv_bytes = sh->recv_elems * esize,
         in_bytes = sh->inplace_elems * esize;
  int rc = inplace
               ? grow(sc, &sc->buf.recv, &sc->buf.recv_cap, spanned(sc, in_bytes), &alloc_err)
               : (grow(sc, &sc->buf.send, &sc->buf.send_cap, spanned(sc, send_bytes), &alloc_err) ||
                  grow(sc, &sc->buf.recv, &sc->buf.recv_cap, spanned(sc, recv_bytes), &alloc_err));
  if (rc)
    cb_error_print(&alloc_err);
  if (cb_cluster_agree(cl, rc ? 1 : 0)) {
    cb_watchdog_disarm();
    *skipped = 1;
    release(sc);
    return note(sc, err, "%s %s skipped: buffers do not fit on every rank", sc->op->name, size);
  }

  struct cb_op_args a = {
      .op = sc->op,
      .send = inplace ? NULL : sc->buf.send,
      .recv = sc->buf.recv,
      .count = sh->count,
      .dtype = sc->dtype,
      .redop = sc->redop,
      .root = sc->s->root,
      .peer = cb_p2p_peer(cl->rank, cl->nranks),
      .window = cb_settings_window(sc->s, sh->bytes),
      .graph = sc->s->graph,
  };
  if (sc->op->skewed) {
    if (cb_skew_layout_fill(sc->s->skew, cl->nranks, cl->rank, sh->count, &sc->layout))
      return cb_fail(err, CB_RUNTIME, "rank %d (%s): %s %s: out of memory for its counts", cl->rank,
                     cl->hostname, sc->op->name, size);
    a.layout = &sc->layout;
  }
  progress(sc, sh->bytes, inplace);

  if (choose_access(sc, err))
    return err->status;
  struct cb_pattern timing_pattern = cb_pattern_reseeded(&sc->pattern, 0);
  struct cb_op_ctx oc = {&timing_pattern, cl->rank, cl->nranks,  a.root,  a.peer,
                         a.count,         inplace,  &sc->access, a.layout};
  rc = prepare(sc, sh, &a, &oc, err);
  if (rc)
    return rc;
  row_phase(what, "buffers filled", NULL);

  struct cb_measure m = {.cl = cl,
                         .backend = sc->backend,
                         .ctx = sc->ctx,
                         .args = &a,
                         .settings = sc->s,
                         .timer_overhead = sc->timer_overhead,
                         .budget = budget};
  long rotated = 0;
  if (sc->s->rotate) { /* slices as far apart as the row's larger buffer, page aligned */
    size_t big = inplace ? in_bytes : (send_bytes > recv_bytes ? send_bytes : recv_bytes);
    size_t cap = inplace
                     ? sc->buf.recv_cap
                     : (sc->buf.send_cap < sc->buf.recv_cap ? sc->buf.send_cap : sc->buf.recv_cap);
    m.rotate_stride = (big + CB_ROTATE_ALIGN - 1) / CB_ROTATE_ALIGN * CB_ROTATE_ALIGN;
    m.rotate_slots = m.rotate_stride ? (long)(cap / m.rotate_stride) : 1;
    m.rotate_at = &rotated;
  }
  struct cb_timing t;
  char ran[sizeof rec->nccl_ran] = "";
  if (sc->backend->ran) /* the calls before this row's measurement: not its own */
    sc->backend->ran(sc->ctx, ran, sizeof ran);
  if (cb_measure_run(&m, &t, err))
    return err->status;
  if (sc->backend->ran) /* its warm-up and timed calls */
    sc->backend->ran(sc->ctx, ran, sizeof ran);
  row_phase(what, "measured", &t);
  /* auto iterations whose stated CI is wider than --precision asked (the
   * budget ran out first); one that stopped on its budget within it is not */
  int has_ci = t.samples >= CB_CI_MIN_SAMPLES;
  int noisy = !has_ci || (!sc->s->iters && t.stats.median > 0 &&
                          t.stats.ci95 > sc->s->precision * t.stats.median);
  if (noisy && has_ci && t.stats.ci95 / t.stats.median > sc->worst_ci)
    sc->worst_ci = t.stats.ci95 / t.stats.median;
  long wrong = -1;
  struct cb_op_args checked = a;
  checked.window = 1; /* one message proves the path; a window only costs time */
  checked.graph = 0;  /* one op: an in-place op repeated would not be checkable */
  if (sc->s->check > 0 && check(sc, sh, &checked, &wrong, err))
    return err->status;
  cb_watchdog_disarm();
  row_phase(what, "checked", NULL);

  /* s per run -> us per op; a graph launch runs a.graph ops */
  double scale = 1e6 / sc->op->time_divisor(a.window) / (a.graph > 0 ? (double)a.graph : 1.0);
  *rec = (struct cb_record){
      .op = sc->op->name,
      .backend = sc->backend->name,
      .mem = cb_mem_names[sc->mem],
      .dtype = cb_dtypes[sc->dtype].name,
      .redop = cb_redop_name(sc->redop),
      .mode = cb_timing_names[sc->s->timing],
      .inplace = inplace,
      .root = sc->op->uses_root ? sc->s->root : -1,
      .bytes = sh->bytes,
      .count = sh->count,
      .nranks = cl->nranks,
      .nnodes = cl->nnodes,
      .iters = t.iters,
      .samples = t.samples,
      .batch_min = t.batch_min,
      .batch_max = t.batch_max,
      .time_us_median = t.stats.median * scale,
      .time_us_mean = t.mean_per_iter * scale,
      .time_us_min = t.stats.min * scale,
      .time_us_max = t.stats.max * scale,
      .time_us_p5 = t.stats.p5 * scale,
      .time_us_p95 = t.stats.p95 * scale,
      .time_us_p99 = t.stats.p99 * scale,
      .ci95_us = has_ci ? t.stats.ci95 * scale : NAN, /* none rather than a zero width */
      .time_us_stddev = t.stats.stddev * scale,
      .source = "collbench",
      .time_us_gpu = t.device_median * scale,
      .wrong = wrong,
      .noisy = noisy,
      .rotate = sc->s->rotate,
      .interval = sc->s->interval,
      .interval_start = sc->s->interval_start,
  };
  sc->backend->transport_label(sc->ctx, sc->op, sc->mem, rec->transport, sizeof rec->transport);
  cb_record_choose(rec, sc->s->stat, sh->algbw_bytes, sc->op->busbw_factor(cl->nranks));
  rec->line_gbps = sc->backend->line_gbps ? sc->backend->line_gbps(sc->ctx) : 0;
  if (sc->backend->algorithm)
    sc->backend->algorithm(sc->ctx, sc->op, rec->nccl_algo, sizeof rec->nccl_algo, rec->nccl_proto,
                           sizeof rec->nccl_proto, &rec->nccl_channels);
  if (sc->backend->net_use)
    sc->backend->net_use(sc->ctx, sc->op, &rec->nccl_nics, &rec->nccl_gdr);
  snprintf(rec->nccl_ran, sizeof rec->nccl_ran, "%s", ran);
  if (sc->s->reg)
    snprintf(rec->reg, sizeof rec->reg, "%s", cb_register_names[sc->s->reg]);
  if (sc->op->skewed)
    snprintf(rec->skew, sizeof rec->skew, "%s", sc->s->skew ? sc->s->skew->label : "uniform");
  rec->nccl_ran_other = cb_nccl_ran_differs(ran, getenv("NCCL_ALGO"), sc->op->name);
  rec->nccl_profiler = ran[0] ? cb_nccl_ran_version() : 0;
  if (sc->backend->coll_algo)
    sc->backend->coll_algo(sc->ctx, &a, rec->algo, sizeof rec->algo, rec->algo_by,
                           sizeof rec->algo_by);
  rec->line_rate_pct = cb_line_rate_percent(rec->algbw_GBps, rec->line_gbps);
  sc->sum->records++;
  if (wrong > 0)
    sc->sum->wrong += wrong;
  if (wrong < 0)
    sc->sum->unchecked++;
  return CB_OK;
}

/* The series header, labelled with the first record's transport (NULL:
 * no row, the backend's label now). */
static int begin_series(struct series_ctx *sc, struct cb_series *series, const char *label,
                        struct cb_error *err) {
  if (label)
    snprintf(series->transport, sizeof series->transport, "%s", label);
  else
    sc->backend->transport_label(sc->ctx, sc->op, sc->mem, series->transport,
                                 sizeof series->transport);
  EACH_SINK(sc, series_begin, series, err);
  return CB_OK;
}

static int run_series(struct series_ctx *sc, const uint64_t *sizes, int nsizes,
                      struct cb_error *err) {
  const struct cb_cluster *cl = sc->cl;
  const struct cb_op *op = sc->op;
  const char *why[2] = {NULL, NULL}; /* out-of-place, in-place */
  for (int ip = 0; ip < 2; ip++) {
    if (ip && !op->has_inplace)
      why[ip] = "no in-place variant";
    else if (cl->nranks < op->min_ranks)
      why[ip] = "needs at least 2 ranks";
    else if (sc->s->variant != CB_VARIANT_BOTH &&
             sc->s->variant != (ip ? CB_VARIANT_IN_PLACE : CB_VARIANT_OUT_OF_PLACE))
      why[ip] = "--variant leaves it out";
    else
      why[ip] = sc->backend->unsupported(sc->ctx, op, sc->mem, sc->dtype, sc->redop, ip);
  }
  if (why[0] && why[1]) {
    sc->sum->skipped++;
    return note(sc, err, "%s skipped for %s, %s memory, %s: %s", op->name, sc->backend->name,
                cb_mem_names[sc->mem], cb_dtypes[sc->dtype].name,
                why[sc->s->variant == CB_VARIANT_IN_PLACE       ? 1
                    : sc->s->variant == CB_VARIANT_OUT_OF_PLACE ? 0
                                                                : op->has_inplace]);
  }

  if (op->skewed) { /* bound and laid out here, as the tuner and acceptance skip the plan check */
    if (sc->s->skew && cb_skew_bind(sc->s->skew, cl->nranks, err))
      return err->status;
    if (!sc->layout.send_counts && cb_skew_layout_alloc(&sc->layout, cl->nranks))
      return cb_fail(err, CB_RUNTIME, "rank %d (%s): %s: out of memory for %d ranks' counts",
                     cl->rank, cl->hostname, op->name, cl->nranks);
  }

  struct cb_series series = {
      .op = op->name,
      .backend = sc->backend->name,
      .mem = cb_mem_names[sc->mem],
      .dtype = cb_dtypes[sc->dtype].name,
      .redop = cb_redop_name(sc->redop),
      .mode = cb_timing_names[sc->s->timing],
      .root = op->uses_root ? sc->s->root : -1,
      .nranks = cl->nranks,
      .nnodes = cl->nnodes,
      .has_inplace = op->has_inplace,
      .latency = op->id == CB_OP_P2P_LAT,
      .skew = !op->skewed   ? NULL
              : sc->s->skew ? sc->s->skew->label
                            : "uniform",
  };
  /* The header waits for the first row: its transport is the first
   * record's, read after a measured call (nccl connects lazily). */
  int begun = 0;

  for (int i = 0; i < nsizes; i++) {
    /* a burn-in asked to end (SIGTERM...): every rank stops at the same row */
    if (sc->s->duration > 0 &&
        (sc->sum->stopped = cb_cluster_agree(cl, cb_interrupt_stop_asked())) != 0)
      break;
    struct cb_shape sh;
    op->shape(sizes[i], cb_dtypes[sc->dtype].size, cl->nranks, sc->s->skew, &sh);
    if (sh.count == 0)
      continue; /* below one element per rank */
    if (sh.count > sc->backend->max_count) {
      char size[32];
      sc->sum->skipped++;
      note(sc, err, "%s %s skipped: %zu elements per call exceed %s's limit of %zu", op->name,
           cb_format_size(sh.bytes, size, sizeof size), sh.count, sc->backend->name,
           sc->backend->max_count);
      continue;
    }
    struct cb_record rec[2];
    struct cb_row row = {NULL, NULL};
    int skipped = 0;
    double size_start = cb_now();
    int variants_left = !why[0] + !why[1];
    for (int ip = 0; ip < 2 && !skipped; ip++) {
      if (why[ip])
        continue;
      if (measure_variant(sc, &sh, ip, size_start, variants_left--, &rec[ip], &skipped, err))
        return err->status;
      if (!skipped)
        *(ip ? &row.inplace : &row.outofplace) = &rec[ip];
    }
    if (skipped) {
      sc->sum->skipped++;
      continue;
    }
    sc->sum->rows++;
    sc->nrows++;
    sc->nnoisy += (row.outofplace && row.outofplace->noisy) || (row.inplace && row.inplace->noisy);
    sc->nnoci += (row.outofplace && isnan(row.outofplace->ci95_us)) ||
                 (row.inplace && isnan(row.inplace->ci95_us));
    if (!begun++ &&
        begin_series(sc, &series, (row.outofplace ? row.outofplace : row.inplace)->transport, err))
      return err->status;
    EACH_SINK(sc, row, &row, err);
  }
  if (!begun && begin_series(sc, &series, NULL, err))
    return err->status;
  /* Said, not hidden: where the machine was too noisy for --precision
   * within --max-time, the rows say so (the table's `~`, JSON/CSV
   * "noisy"); one line here counts them. */
  char noci[128] = "";
  if (sc->nnoci)
    snprintf(noci, sizeof noci, "; %d with n<%d samples: no interval", sc->nnoci,
             CB_CI_MIN_SAMPLES);
  if (sc->nnoisy && sc->nnoisy > sc->nnoci &&
      note(sc, err,
           "%s: %d of %d rows noisy (~: 95%% CI of the median wider than "
           "--precision %.3g%% after --max-time; widest +-%.1f%%%s)",
           op->name, sc->nnoisy, sc->nrows, 100 * sc->s->precision, 100 * sc->worst_ci, noci))
    return err->status;
  if (sc->nnoisy && sc->nnoisy == sc->nnoci &&
      note(sc, err, "%s: %d of %d rows noisy (~%s)", op->name, sc->nnoisy, sc->nrows, noci))
    return err->status;
  sc->nrows = sc->nnoisy = sc->nnoci = 0;
  sc->worst_ci = 0;
  EACH_SINK(sc, series_end, &series, err);
  return CB_OK;
}

int cb_engine_validate(const struct cb_cluster *cl, const struct cb_settings *s,
                       struct cb_error *err) {
  /* Every op needs at most two buffers of the row size per rank. */
  double need = 2.0 * (double)s->max_bytes * (double)cl->local_size;
  double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  int bad = have > 0 && need > have;
  if (cb_cluster_agree(cl, bad)) {
    char size[32];
    return cb_fail(err, CB_USAGE,
                   "size %s is too large: %d rank%s per node need up to %.1f GiB of buffers "
                   "but a node has %.1f GiB of memory",
                   cb_format_size(s->max_bytes, size, sizeof size), cl->local_size,
                   cl->local_size == 1 ? "" : "s", need / (1 << 30), have / (1 << 30));
  }
  return CB_OK;
}

static int run_backend(struct series_ctx *sc, const uint64_t *sizes, int nsizes,
                       const char *transport, struct cb_error *err) {
  const struct cb_settings *s = sc->s;
  if (sc->backend->init(sc->cl, s, transport, &sc->ctx, err))
    return err->status;
  cb_phase("backend ready");
  int rc = CB_OK;
  /* a GPU now bound: how host waits on it behave, a setting of the run */
  char waits[320];
  if (!sc->said_gpu_waits && cb_gpu_wait_note(waits, sizeof waits)) {
    sc->said_gpu_waits = 1;
    rc = note(sc, err, "%s", waits);
  }
  for (int m = 0; m < s->nmems && !rc && s->nconcurrent; m++)
    for (int d = 0; d < s->ndtypes && !rc; d++)
      rc = cb_concurrent_run(sc->cl, s, sc->backend, sc->ctx, s->mems[m], s->dtypes[d], sizes,
                             nsizes, sc->sinks, sc->nsinks, sc->sum, err);
  for (int m = 0; m < s->nmems && !rc && !sc->sum->stopped && !s->nconcurrent; m++)
    for (int o = 0; o < s->nops && !rc && !sc->sum->stopped; o++)
      for (int d = 0; d < s->ndtypes && !rc && !sc->sum->stopped; d++) {
        sc->mem = s->mems[m];
        sc->op = cb_ops[s->ops[o]];
        sc->dtype = s->dtypes[d];
        int nredops = sc->op->uses_redop ? s->nredops : 1;
        for (int r = 0; r < nredops && !rc && !sc->sum->stopped; r++) {
          sc->redop = sc->op->uses_redop ? s->redops[r] : CB_NOREDOP;
          rc = cb_pattern_init(&sc->pattern, sc->dtype, sc->redop, sc->cl->nranks, 0, err);
          if (!rc)
            rc = run_series(sc, sizes, nsizes, err);
          cb_pattern_free(&sc->pattern);
          cb_skew_layout_free(&sc->layout);
          release(sc);
        }
      }
  sc->backend->finalize(sc->ctx);
  sc->ctx = NULL;
  return rc;
}

int cb_engine_run(const struct cb_cluster *cl, const struct cb_settings *s,
                  const struct cb_run_info *ri, struct cb_sink *sinks, int nsinks,
                  struct cb_summary *sum, struct cb_error *err) {
  const struct cb_backend *backends[CB_MAX_LIST];
  for (int b = 0; b < s->nbackends; b++)
    backends[b] = cb_backends[s->backends[b]];
  return cb_engine_run_on(cl, s, ri, backends, s->nbackends, sinks, nsinks, sum, err);
}

int cb_engine_run_on(const struct cb_cluster *cl, const struct cb_settings *s,
                     const struct cb_run_info *ri, const struct cb_backend *const *backends,
                     int nbackends, struct cb_sink *sinks, int nsinks, struct cb_summary *sum,
                     struct cb_error *err) {
  memset(sum, 0, sizeof *sum);
  if (cl->rank == 0 && cb_sinks_run(sinks, nsinks, ri, err))
    return err->status;
  int rc = cb_engine_measure(cl, s, ri, backends, nbackends, sinks, nsinks, sum, err);
  if (rc == CB_OK && cl->rank == 0 && cb_sinks_finish(sinks, nsinks, sum, err))
    return err->status;
  return rc;
}

int cb_engine_measure(const struct cb_cluster *cl, const struct cb_settings *s,
                      const struct cb_run_info *ri, const struct cb_backend *const *backends,
                      int nbackends, struct cb_sink *sinks, int nsinks, struct cb_summary *sum,
                      struct cb_error *err) {
  uint64_t sizes[CB_MAX_SIZES];
  int nsizes = cb_settings_sizes(s, sizes, CB_MAX_SIZES);
  struct series_ctx sc = {.cl = cl,
                          .s = s,
                          .timer_overhead = ri->timer_overhead_ns * 1e-9,
                          .sinks = sinks,
                          .nsinks = nsinks,
                          .sum = sum,
                          .started = cb_now()};
  /* the run record probed every backend once already: its reasons, not a second probe */
  for (int b = 0; b < s->nskipped_backends && s->interval <= 1; b++) {
    const struct cb_backend_info *bi = &ri->backends[s->skipped_backends[b]];
    note(&sc, err, "backend %s skipped: %s", bi->name, bi->why);
  }
  if (s->share_gpu && s->interval <= 1)
    note(&sc, err,
         "--share-gpu: all ranks share one GPU, each its own NCCL_HOSTID; the figures "
         "are of NCCL's network transport, not of the GPU's links");
  if (cb_standin() && s->interval <= 1)
    note(&sc, err, "not hardware: %s; no figure here is a measurement of hardware", cb_standin());
  if (cb_watchdog_start(cl, s->timeout))
    return cb_fail(err, CB_RUNTIME, "cannot start the watchdog thread");
  int rc = CB_OK;
  for (int b = 0; b < nbackends && !rc && !sum->stopped; b++) {
    sc.backend = backends[b];
    for (int t = 0; t < s->ntransports && !rc && !sum->stopped; t++)
      rc = run_backend(&sc, sizes, nsizes, s->transports[t], err);
  }
  cb_watchdog_stop();
  if (s->progress && cl->rank == 0)
    fprintf(stderr, "\r\033[K");
  return rc;
}
