/* --concurrent: ops side by side on --parallel's communicators, and each
 * alone (concurrent.h says how they are timed). */
#include "concurrent.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/timer.h"
#include "base/units.h"
#include "measure.h"
#include "runtime/memory.h"
#include "runtime/pattern_io.h"
#include "runtime/watchdog.h"

struct item {
  const struct cb_op *op;
  int dim, inplace;
  void *comm;       /* the backend's communicator of this rank's group */
  int grank, gsize; /* this rank's place in its group, the group's size */
  struct cb_pattern pattern;
  struct cb_shape sh;
  void *send, *recv;
  size_t send_cap, recv_cap;
  struct cb_op_args args;
  double *together, *alone, *ratio; /* per round, seconds */
  struct cb_record *recs;           /* one per size, fed to the sinks at the end */
  int nrecs;
};

struct run {
  const struct cb_cluster *cl;
  const struct cb_settings *s;
  const struct cb_backend *be;
  void *ctx;
  int mem, dtype, redop;
  struct item items[CB_MAX_CONCURRENT];
  int n;
  struct cb_pattern_access access; /* host memory: the buffers directly */
  int staged;                      /* device memory without the GPU kernels: host copies */
  void *staging;
  size_t staging_cap;
  char spec[96], layout[48];
};

static int grow(struct run *r, void **ptr, size_t *cap, size_t bytes, struct cb_error *err) {
  if (bytes <= *cap)
    return CB_OK;
  if (*ptr)
    r->be->free(r->ctx, r->mem, *ptr);
  *ptr = NULL;
  *cap = 0;
  if (r->be->alloc(r->ctx, r->mem, bytes ? bytes : 1, ptr, err))
    return err->status;
  *cap = bytes;
  return CB_OK;
}

/* Starts the ops of mask (bit i: item i) at once and waits for them all,
 * polling each in turn; end[i]: seconds from the start to item i's end. */
static int run_together(struct run *r, unsigned mask, double *end, struct cb_error *err) {
  double t0 = cb_now();
  unsigned pending = 0;
  for (int i = 0; i < r->n; i++)
    if (mask >> i & 1) {
      if (r->be->start(r->ctx, r->items[i].comm, &r->items[i].args, i, err))
        return err->status;
      pending |= 1u << i;
    }
  while (pending)
    for (int i = 0; i < r->n; i++)
      if (pending >> i & 1) {
        int done = 0;
        if (r->be->test(r->ctx, i, &done, err))
          return err->status;
        if (done) {
          end[i] = cb_now() - t0;
          pending &= ~(1u << i);
        }
      }
  return CB_OK;
}

/* Device memory is filled and checked by the GPU kernels once every rank's self-check passed,
 * else through a host staging copy (engine.c's choose_access, said there the same way). */
static int choose_access(struct run *r, struct cb_error *err) {
  char why[256] = "";
  memset(&r->access, 0, sizeof r->access);
  if (r->mem != CB_MEM_DEVICE)
    return CB_OK;
  r->access.io = cb_gpu_pattern_io_all(r->cl, why, sizeof why);
  r->staged = !r->access.io;
  if (r->staged && !r->be->copy)
    return cb_fail(err, CB_RUNTIME,
                   "rank %d (%s): --concurrent on device memory: no GPU kernels (%s) and no "
                   "host copies in backend %s",
                   r->cl->rank, r->cl->hostname, why, r->be->name);
  if (r->staged && r->cl->rank == 0)
    printf("# device buffers are filled and checked through host copies, not on the GPU: %s\n",
           why);
  return CB_OK;
}

/* The host's view of `bytes` of buf: buf itself, or the staging copy (fetched from buf when
 * `fetch`); NULL on failure, said in err. */
static void *host_view(struct run *r, void *buf, size_t bytes, int fetch, struct cb_error *err) {
  if (!r->staged)
    return buf;
  if (bytes > r->staging_cap) {
    free(r->staging);
    r->staging_cap = 0;
    if (!(r->staging = cb_host_alloc(bytes))) {
      cb_fail(err, CB_RUNTIME,
              "rank %d (%s): --concurrent: cannot allocate %zu bytes of host "
              "staging memory",
              r->cl->rank, r->cl->hostname, bytes);
      return NULL;
    }
    r->staging_cap = bytes;
  }
  if (fetch && r->be->copy(r->ctx, r->staging, buf, bytes, err))
    return NULL;
  return r->staging;
}

static int publish(struct run *r, void *buf, const void *view, size_t bytes, struct cb_error *err) {
  return !r->staged || view == buf ? CB_OK : r->be->copy(r->ctx, buf, view, bytes, err);
}

/* A GPU kernel's failure while filling or checking, as the run's error. */
static int access_failed(struct run *r, struct cb_error *err) {
  if (!r->access.failed)
    return CB_OK;
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): --concurrent %s: %s", r->cl->rank, r->cl->hostname,
                 r->spec, r->access.why);
}

static struct cb_op_ctx op_ctx(struct run *r, struct item *it, const struct cb_pattern *p) {
  return (struct cb_op_ctx){p,           it->grank,  it->gsize, r->s->root, -1, it->sh.count,
                            it->inplace, &r->access, NULL};
}

/* Fills every item's input from its pattern under seed and poisons its
 * output, as the engine's prepare() does for one op. */
static int prepare(struct run *r, uint64_t seed, struct cb_error *err) {
  size_t es = cb_dtypes[r->dtype].size;
  for (int i = 0; i < r->n; i++) {
    struct item *it = &r->items[i];
    struct cb_pattern p = cb_pattern_reseeded(&it->pattern, seed);
    struct cb_op_ctx oc = op_ctx(r, it, &p);
    size_t out = it->inplace ? it->sh.inplace_elems : it->sh.recv_elems;
    void *view = host_view(r, it->recv, out * es, 0, err);
    if (!view)
      return err->status;
    cb_io_poison(&r->access, r->dtype, view, out);
    if (!it->inplace) {
      if (publish(r, it->recv, view, out * es, err) ||
          !(view = host_view(r, it->send, it->sh.send_elems * es, 0, err)))
        return err->status;
      out = it->sh.send_elems;
    }
    it->op->fill(&oc, view);
    if (publish(r, it->inplace ? it->recv : it->send, view, out * es, err))
      return err->status;
  }
  return CB_OK;
}

/* --check's runs: all ops at once, each result checked on its group. */
static int check(struct run *r, long *wrong, struct cb_error *err) {
  size_t es = cb_dtypes[r->dtype].size;
  long local[CB_MAX_CONCURRENT] = {0};
  double end[CB_MAX_CONCURRENT];
  for (long seed = 1; seed <= r->s->check; seed++) {
    if (prepare(r, (uint64_t)seed, err) || access_failed(r, err) ||
        run_together(r, (1u << r->n) - 1, end, err))
      return err->status;
    for (int i = 0; i < r->n; i++) {
      struct item *it = &r->items[i];
      struct cb_pattern p = cb_pattern_reseeded(&it->pattern, (uint64_t)seed);
      struct cb_op_ctx oc = op_ctx(r, it, &p);
      size_t at = it->inplace ? it->op->inplace_result_offset(it->sh.count, it->grank) : 0;
      size_t out = it->inplace ? it->sh.inplace_elems : it->sh.recv_elems;
      const char *view = host_view(r, it->recv, out * es, 1, err);
      if (!view)
        return err->status;
      local[i] += (long)it->op->check(&oc, view + at * es);
    }
    if (access_failed(r, err))
      return err->status;
  }
  MPI_Allreduce(local, wrong, r->n, MPI_LONG, MPI_SUM, r->cl->comm);
  return CB_OK;
}

/* One size: warm-up, then rounds of [together, each alone] in a rotating
 * order until --iters or --max-time; *rounds: how many were timed. */
static int time_size(struct run *r, int *rounds, struct cb_error *err) {
  int phases = r->n + 1, max = r->s->iters ? (int)r->s->iters : CB_CONCURRENT_MAX_ROUNDS;
  double v[(CB_MAX_CONCURRENT + 1) * CB_MAX_CONCURRENT + 1], end[CB_MAX_CONCURRENT];
  double started = cb_now();
  if (prepare(r, 0, err) || access_failed(r, err))
    return err->status;
  for (int p = 0; p < phases; p++) /* warm-up: connections made, caches filled */
    if (run_together(r, p ? 1u << (p - 1) : (1u << r->n) - 1, end, err))
      return err->status;
  *rounds = 0;
  for (int k = 0; k < max; k++) {
    for (int q = 0; q < phases; q++) {
      int p = (q + k) % phases; /* 0: together; i + 1: item i alone */
      MPI_Barrier(r->cl->comm);
      if (run_together(r, p ? 1u << (p - 1) : (1u << r->n) - 1, end, err))
        return err->status;
      for (int i = 0; i < r->n; i++)
        if (!p || p == i + 1)
          v[(p ? 1 : 0) * r->n + i] = end[i];
    }
    v[2 * r->n] = cb_now() - started;
    MPI_Allreduce(MPI_IN_PLACE, v, 2 * r->n + 1, MPI_DOUBLE, MPI_MAX, r->cl->comm);
    for (int i = 0; i < r->n; i++) {
      struct item *it = &r->items[i];
      it->together[k] = v[i];
      it->alone[k] = v[r->n + i];
      it->ratio[k] = v[r->n + i] > 0 ? v[i] / v[r->n + i] : NAN;
    }
    *rounds = k + 1;
    if (!r->s->iters && *rounds >= CB_CI_MIN_SAMPLES && v[2 * r->n] >= r->s->max_time)
      break;
  }
  return CB_OK;
}

static void fill_record(struct run *r, struct item *it, int rounds, long wrong,
                        struct cb_record *rec) {
  struct cb_stats t, a, q;
  cb_stats_compute(it->together, (size_t)rounds, &t);
  cb_stats_compute(it->alone, (size_t)rounds, &a);
  cb_stats_compute(it->ratio, (size_t)rounds, &q);
  int has_ci = rounds >= CB_CI_MIN_SAMPLES;
  int nodes = 0; /* rank 0's group: the nodes it spans */
  for (int k = 0; k < it->gsize; k++) {
    int m = cb_parallel_member(&r->s->parallel, 0, it->dim, k), first = 1;
    for (int j = 0; j < k; j++)
      first &= r->cl->node_of_rank[cb_parallel_member(&r->s->parallel, 0, it->dim, j)] !=
               r->cl->node_of_rank[m];
    nodes += first;
  }
  *rec = (struct cb_record){
      .op = it->op->name,
      .backend = r->be->name,
      .mem = cb_mem_names[r->mem],
      .dtype = cb_dtypes[r->dtype].name,
      .redop = cb_redop_name(it->op->uses_redop ? r->redop : CB_NOREDOP),
      .mode = cb_timing_names[r->s->timing],
      .inplace = it->inplace,
      .root = it->op->uses_root ? r->s->root : -1,
      .bytes = it->sh.bytes,
      .count = it->sh.count,
      .nranks = it->gsize,
      .nnodes = nodes,
      .iters = rounds,
      .samples = rounds,
      .batch_min = 1,
      .batch_max = 1,
      .time_us_median = t.median * 1e6,
      .time_us_mean = t.mean * 1e6,
      .time_us_min = t.min * 1e6,
      .time_us_max = t.max * 1e6,
      .time_us_p5 = t.p5 * 1e6,
      .time_us_p95 = t.p95 * 1e6,
      .time_us_p99 = t.p99 * 1e6,
      .ci95_us = has_ci ? t.ci95 * 1e6 : NAN,
      .time_us_stddev = t.stddev * 1e6,
      .source = "collbench",
      .wrong = wrong,
      .noisy = !has_ci || (!r->s->iters && t.ci95 > r->s->precision * t.median),
      .time_us_alone = a.median * 1e6,
      .slowdown = q.median,
      .slowdown_lo = has_ci ? q.ci_lo : NAN,
      .slowdown_hi = has_ci ? q.ci_hi : NAN,
  };
  r->be->transport_label(r->ctx, it->op, r->mem, rec->transport, sizeof rec->transport);
  double factor = it->op->busbw_factor(it->gsize);
  cb_record_choose(rec, r->s->stat, it->sh.algbw_bytes, factor);
  rec->busbw_GBps_alone = a.median > 0 ? (double)it->sh.algbw_bytes / a.median / 1e9 * factor : 0;
  snprintf(rec->comm, sizeof rec->comm, "%s", cb_dim_names[it->dim]);
  snprintf(rec->parallel, sizeof rec->parallel, "%s", r->layout);
  snprintf(rec->concurrent, sizeof rec->concurrent, "%s", r->spec);
}

/* Rank 0 hands each op's series to the sinks, one after the other. */
static int feed(struct run *r, struct cb_sink *sinks, int nsinks, struct cb_error *err) {
  for (int i = 0; i < r->n && r->cl->rank == 0; i++) {
    struct item *it = &r->items[i];
    struct cb_series series = {
        .op = it->op->name,
        .backend = r->be->name,
        .mem = cb_mem_names[r->mem],
        .dtype = cb_dtypes[r->dtype].name,
        .redop = cb_redop_name(it->op->uses_redop ? r->redop : CB_NOREDOP),
        .mode = cb_timing_names[r->s->timing],
        .root = it->op->uses_root ? r->s->root : -1,
        .nranks = it->gsize,
        .nnodes = it->nrecs ? it->recs[0].nnodes : 1,
        .comm = cb_dim_names[it->dim],
        .concurrent = r->spec,
    };
    snprintf(series.transport, sizeof series.transport, "%s",
             it->nrecs ? it->recs[0].transport : "");
    for (int k = 0; k < nsinks; k++)
      if (sinks[k].series_begin && sinks[k].series_begin(sinks[k].state, &series, err))
        return err->status;
    for (int j = 0; j < it->nrecs; j++) {
      /* one variant a series, in the first slot (the record says which) */
      struct cb_row row = {&it->recs[j], NULL};
      for (int k = 0; k < nsinks; k++)
        if (sinks[k].row && sinks[k].row(sinks[k].state, &row, err))
          return err->status;
    }
    for (int k = 0; k < nsinks; k++)
      if (sinks[k].series_end && sinks[k].series_end(sinks[k].state, &series, err))
        return err->status;
  }
  return CB_OK;
}

static int set_up(struct run *r, int nsizes, struct cb_error *err) {
  const struct cb_settings *s = r->s;
  int max = s->iters ? (int)s->iters : CB_CONCURRENT_MAX_ROUNDS;
  if (choose_access(r, err))
    return err->status;
  for (int i = 0; i < r->n; i++) {
    struct item *it = &r->items[i];
    it->op = cb_ops[s->concurrent_op[i]];
    it->dim = s->concurrent_dim[i];
    it->grank = cb_parallel_index(&s->parallel, r->cl->rank, it->dim);
    it->gsize = s->parallel.size[it->dim];
    /* out of place where the backend runs it (MPI_Bcast only in place) */
    it->inplace = r->be->unsupported(r->ctx, it->op, r->mem, r->dtype, r->redop, 0) != NULL;
    if (r->be->split(r->ctx, cb_parallel_group(&s->parallel, r->cl->rank, it->dim), it->grank,
                     &it->comm, err) ||
        cb_pattern_init(&it->pattern, r->dtype, it->op->uses_redop ? r->redop : CB_NOREDOP,
                        it->gsize, 0, err))
      return err->status;
    it->together = malloc((size_t)max * sizeof(double));
    it->alone = malloc((size_t)max * sizeof(double));
    it->ratio = malloc((size_t)max * sizeof(double));
    it->recs = calloc((size_t)nsizes, sizeof *it->recs);
    if (!it->together || !it->alone || !it->ratio || !it->recs)
      return cb_fail(err, CB_RUNTIME, "rank %d: out of memory for --concurrent's samples",
                     r->cl->rank);
  }
  return CB_OK;
}

static void tear_down(struct run *r) {
  for (int i = 0; i < r->n; i++) {
    struct item *it = &r->items[i];
    if (it->comm)
      r->be->free_comm(r->ctx, it->comm);
    if (it->send)
      r->be->free(r->ctx, r->mem, it->send);
    if (it->recv)
      r->be->free(r->ctx, r->mem, it->recv);
    cb_pattern_free(&it->pattern);
    free(it->together), free(it->alone), free(it->ratio), free(it->recs);
  }
  free(r->staging);
}

/* Buffers for one size; *skip when some op has no element per rank. */
static int size_buffers(struct run *r, uint64_t bytes, int *skip, struct cb_error *err) {
  size_t es = cb_dtypes[r->dtype].size;
  *skip = 0;
  for (int i = 0; i < r->n; i++) {
    struct item *it = &r->items[i];
    it->op->shape(bytes, es, it->gsize, NULL, &it->sh);
    *skip |= it->sh.count == 0 || it->sh.count > r->be->max_count;
  }
  if (*skip)
    return CB_OK;
  for (int i = 0; i < r->n; i++) {
    struct item *it = &r->items[i];
    if ((it->inplace ? 0 : grow(r, &it->send, &it->send_cap, it->sh.send_elems * es, err)) ||
        grow(r, &it->recv, &it->recv_cap,
             (it->inplace ? it->sh.inplace_elems : it->sh.recv_elems) * es, err))
      return err->status;
    it->args = (struct cb_op_args){.op = it->op,
                                   .send = it->inplace ? NULL : it->send,
                                   .recv = it->recv,
                                   .count = it->sh.count,
                                   .dtype = r->dtype,
                                   .redop = r->redop,
                                   .root = r->s->root,
                                   .peer = -1,
                                   .window = 1};
  }
  return CB_OK;
}

int cb_concurrent_run(const struct cb_cluster *cl, const struct cb_settings *s,
                      const struct cb_backend *be, void *ctx, int mem, int dtype,
                      const uint64_t *sizes, int nsizes, struct cb_sink *sinks, int nsinks,
                      struct cb_summary *sum, struct cb_error *err) {
  struct run r = {.cl = cl,
                  .s = s,
                  .be = be,
                  .ctx = ctx,
                  .mem = mem,
                  .dtype = dtype,
                  .redop = s->redops[0],
                  .n = s->nconcurrent};
  cb_parallel_format(&s->parallel, r.layout, sizeof r.layout);
  for (int i = 0; i < r.n; i++)
    snprintf(r.spec + strlen(r.spec), sizeof r.spec - strlen(r.spec), "%s%s@%s", i ? "," : "",
             cb_ops[s->concurrent_op[i]]->name, cb_dim_names[s->concurrent_dim[i]]);
  int rc = set_up(&r, nsizes, err);
  for (int z = 0; z < nsizes && !rc; z++) {
    int skip, rounds = 0;
    long wrong[CB_MAX_CONCURRENT];
    char size[32], what[160];
    if ((rc = size_buffers(&r, sizes[z], &skip, err)) || skip)
      continue;
    snprintf(what, sizeof what, "--concurrent %s at %s", r.spec,
             cb_format_size(sizes[z], size, sizeof size));
    cb_watchdog_arm(what);
    rc = time_size(&r, &rounds, err);
    for (int i = 0; i < r.n; i++)
      wrong[i] = -1;
    if (!rc && s->check > 0)
      rc = check(&r, wrong, err);
    cb_watchdog_disarm();
    for (int i = 0; i < r.n && !rc; i++) {
      struct item *it = &r.items[i];
      fill_record(&r, it, rounds, wrong[i], &it->recs[it->nrecs++]);
      sum->records++;
      sum->wrong += wrong[i] > 0 ? wrong[i] : 0;
      sum->unchecked += wrong[i] < 0;
    }
    sum->rows += !rc;
  }
  if (!rc)
    rc = feed(&r, sinks, nsinks, err);
  tear_down(&r);
  return rc;
}
