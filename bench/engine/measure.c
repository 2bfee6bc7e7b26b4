/* Timing one op at one size: warm-up, then samples until the median is precise enough or time
 * is up (measure.h says more). */
#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/timer.h"

static int run_batch(const struct cb_measure *m, long k, struct cb_error *err) {
  for (long i = 0; i < k; i++) {
    struct cb_op_args moved;
    const struct cb_op_args *a = m->args;
    if (m->rotate_slots > 1) { /* --rotate: the next slice */
      size_t off = m->rotate_stride * (size_t)((*m->rotate_at)++ % m->rotate_slots);
      moved = *m->args;
      if (moved.send)
        moved.send = (const char *)moved.send + off;
      moved.recv = (char *)moved.recv + off;
      a = &moved;
    }
    if (m->backend->run(m->ctx, a, err))
      return err->status;
  }
  return m->backend->sync(m->ctx, err);
}

/* Times k back-to-back runs after a barrier; returns seconds per run, by
 * the host clock and (0 when the backend has none) by the device's. */
static int timed_batch(const struct cb_measure *m, long k, double *per_run, double *device,
                       struct cb_error *err) {
  MPI_Barrier(m->cl->comm);
  double t0 = cb_now();
  if (run_batch(m, k, err))
    return err->status;
  double t1 = cb_now();
  double t = t1 - t0 - m->timer_overhead;
  *per_run = (t > 0 ? t : 0) / (double)k;
  *device = m->backend->device_seconds ? m->backend->device_seconds(m->ctx) / (double)k : 0.0;
  return CB_OK;
}

/* The sample is the slowest rank's time (so every rank holds identical
 * samples); elapsed is reduced the same way so all ranks stop together. */
static void agree_max(const struct cb_cluster *cl, double *values, int n) {
  MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, cl->comm);
}

/* Runs per sample in auto mode, from the current estimate of one run. */
static long batch_size(const struct cb_measure *m, double estimate) {
  if (m->settings->timing == CB_TIMING_LATENCY)
    return 1;
  long k = estimate > 0 ? (long)(CB_BATCH_SECONDS / estimate) : CB_MIN_BATCH;
  /* a run of CB_SOLO_SECONDS or more is its own sample: the barrier's skew
   * is under 1% of it, and batches of 4 made the 6 samples of an interval
   * cost 24 runs of the slowest sizes */
  if (k < CB_MIN_BATCH)
    k = estimate >= CB_SOLO_SECONDS ? 1 : CB_MIN_BATCH;
  if (k > CB_MAX_BATCH)
    k = CB_MAX_BATCH;
  return k;
}

/* Student's t, two-sided 95%, for 1..30 degrees of freedom. */
static double t975(int df) {
  static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                             2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                             2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df < 1)
    return INFINITY;
  return df <= 30 ? t[df - 1] : 1.96;
}

double cb_block_ci95(const double *in_order, long n, int blocks) {
  if (blocks > 64)
    blocks = 64;
  if (blocks < 2 || n < 2L * blocks)
    return 0.0;
  double *s = malloc((size_t)n * sizeof *s);
  if (!s)
    return 0.0;
  memcpy(s, in_order, (size_t)n * sizeof *s);
  double med[64], mean = 0.0;
  long per = n / blocks;
  for (int b = 0; b < blocks; b++) {
    /* the last block takes the remainder, so no sample is left out */
    long from = b * per, len = b == blocks - 1 ? n - from : per;
    cb_sort_doubles(s + from, (size_t)len);
    med[b] = cb_quantile_sorted(s + from, (size_t)len, 0.5);
    mean += med[b] / blocks;
  }
  free(s);
  double ss = 0.0;
  for (int b = 0; b < blocks; b++)
    ss += (med[b] - mean) * (med[b] - mean);
  return t975(blocks - 1) * sqrt(ss / (blocks - 1)) / sqrt((double)blocks);
}

/* The CI of the median that auto mode stops on and the record states: the
 * wider of the order-statistics interval and the block-median one. */
static double stated_ci95(const double *in_order, double *scratch, long n, struct cb_stats *st) {
  memcpy(scratch, in_order, (size_t)n * sizeof *scratch);
  cb_stats_compute(scratch, (size_t)n, st);
  double block = cb_block_ci95(in_order, n, CB_CI_BLOCKS);
  if (block > st->ci95)
    st->ci95 = block;
  return st->ci95;
}

/* Runs the warm-up: the first call on its own (it may set up connections),
 * then -w runs, or automatically more for a few milliseconds. Returns an
 * estimate of one run from the runs after the first (0 when none). Ranks
 * agree on the count through the reduced elapsed time. */
static int warm_up(const struct cb_measure *m, double *estimate, struct cb_error *err) {
  long fixed = m->settings->warmup; /* < 0: automatic */
  *estimate = 0.0;
  if (fixed == 0)
    return CB_OK;
  MPI_Barrier(m->cl->comm);
  if (run_batch(m, 1, err))
    return err->status;
  long done = 0, want = fixed < 0 ? CB_MAX_WARMUP : fixed - 1;
  double start = cb_now(), elapsed = 0.0;
  while (done < want) {
    long k = fixed < 0 ? (done ? done : 1) : want; /* doubling batches */
    if (done + k > want)
      k = want - done;
    MPI_Barrier(m->cl->comm);
    if (run_batch(m, k, err))
      return err->status;
    done += k;
    elapsed = cb_now() - start;
    MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, m->cl->comm);
    if (fixed < 0 && (elapsed >= CB_WARMUP_SHARE * m->budget || elapsed >= CB_WARMUP_SECONDS))
      break;
  }
  *estimate = done ? elapsed / (double)done : 0.0;
  return CB_OK;
}

struct samples {
  double *host, *scratch, *device;
  struct cb_run_mean total; /* the anchors' mean: total timed over runs */
};

static void samples_free(struct samples *sa) {
  free(sa->host);
  free(sa->scratch);
  free(sa->device);
}

/* One timed sample of k runs, recorded on every rank alike; *elapsed is
 * the time since `start` on the slowest rank. */
static int take_sample(const struct cb_measure *m, struct samples *sa, long k, double start,
                       struct cb_timing *out, double *elapsed, struct cb_error *err) {
  double t[3]; /* host time, elapsed, device time */
  if (timed_batch(m, k, &t[0], &t[2], err))
    return err->status;
  t[1] = cb_now() - start;
  agree_max(m->cl, t, sa->device ? 3 : 2);
  if (sa->device)
    sa->device[out->samples] = t[2];
  sa->host[out->samples++] = t[0];
  cb_run_mean_add(&sa->total, t[0], k);
  out->iters += k;
  if (!out->batch_min || k < out->batch_min)
    out->batch_min = k;
  if (k > out->batch_max)
    out->batch_max = k;
  *elapsed = t[1];
  return CB_OK;
}

/* Fixed counts, as nccl-tests times them: one batch of N back to back
 * (nccl-tests' -n 20 -w 5), or N samples of one in latency mode. */
static int run_fixed(const struct cb_measure *m, struct samples *sa, double start,
                     struct cb_timing *out, struct cb_error *err) {
  const struct cb_settings *s = m->settings;
  double elapsed;
  if (s->timing == CB_TIMING_THROUGHPUT)
    return take_sample(m, sa, s->iters, start, out, &elapsed, err);
  while (out->iters < s->iters && out->samples < CB_MAX_SAMPLES)
    if (take_sample(m, sa, 1, start, out, &elapsed, err))
      return err->status;
  return CB_OK;
}

/* Auto mode: batches sized from a running estimate of one run (the
 * warm-up's, then the samples' own), until the stated CI is within
 * --precision after enough samples and time, or the budget is spent. */
static int run_auto(const struct cb_measure *m, struct samples *sa, double start, double estimate,
                    struct cb_timing *out, struct cb_error *err) {
  const struct cb_settings *s = m->settings;
  long next_check = CB_MIN_SAMPLES;
  double timed = 0.0, elapsed = 0.0;
  while (out->samples < CB_MAX_SAMPLES) {
    long k = batch_size(m, estimate);
    if (take_sample(m, sa, k, start, out, &elapsed, err))
      return err->status;
    double last = sa->host[out->samples - 1];
    timed += last * (double)k;
    /* re-estimated from every sample (identical on every rank), so one
     * slow first sample cannot fix the batch size for the whole size */
    estimate = estimate > 0 ? 0.75 * estimate + 0.25 * last : last;
    if (elapsed >= m->budget &&
        (out->samples >= CB_CI_MIN_SAMPLES || elapsed >= CB_CI_OVERRUN * m->budget))
      break;
    /* Sorting costs O(n log n): re-check at geometric intervals. */
    if (out->samples >= next_check && timed >= CB_MIN_TIMED_SECONDS) {
      struct cb_stats st;
      if (stated_ci95(sa->host, sa->scratch, out->samples, &st) <= s->precision * st.median) {
        out->precise = 1;
        break;
      }
      next_check = out->samples + (out->samples / 8 > 1 ? out->samples / 8 : 1);
    }
  }
  return CB_OK;
}

int cb_measure_run(const struct cb_measure *m, struct cb_timing *out, struct cb_error *err) {
  const struct cb_settings *s = m->settings;
  double start = cb_now();
  memset(out, 0, sizeof *out);

  double estimate = 0.0;
  if (warm_up(m, &estimate, err))
    return err->status;

  struct samples sa = {malloc(CB_MAX_SAMPLES * sizeof(double)),
                       malloc(CB_MAX_SAMPLES * sizeof(double)),
                       m->backend->device_seconds ? malloc(CB_MAX_SAMPLES * sizeof(double)) : NULL,
                       {0, 0}};
  if (!sa.host || !sa.scratch || (m->backend->device_seconds && !sa.device)) {
    samples_free(&sa);
    return cb_fail(err, CB_RUNTIME, "out of memory for timing samples");
  }
  int rc =
      s->iters ? run_fixed(m, &sa, start, out, err) : run_auto(m, &sa, start, estimate, out, err);
  if (rc == CB_OK) {
    if (s->iters)
      out->precise = 1; /* counts the user fixed: nothing was claimed */
    struct cb_stats st;
    stated_ci95(sa.host, sa.scratch, out->samples, &st);
    out->stats = st;
    out->mean_per_iter = cb_run_mean(&sa.total);
    if (sa.device && out->samples > 0) {
      struct cb_stats ds;
      cb_stats_compute(sa.device, (size_t)out->samples, &ds);
      out->device_median = ds.median;
    }
  }
  samples_free(&sa);
  return rc;
}
