#include "measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timer.h"

static int run_batch(const struct cb_measure *m, long k, struct cb_error *err) {
  for (long i = 0; i < k; i++)
    if (m->backend->run(m->ctx, m->args, err))
      return err->status;
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

static long batch_size(const struct cb_measure *m, double estimate, long remaining) {
  if (m->settings->mode == CB_MODE_LATENCY)
    return 1;
  long k = estimate > 0 ? (long)(CB_BATCH_SECONDS / estimate) : 1;
  if (k < 1)
    k = 1;
  if (k > CB_MAX_BATCH)
    k = CB_MAX_BATCH;
  if (remaining > 0 && k > remaining)
    k = remaining;
  return k;
}

static int precise_enough(const struct cb_settings *s, double *samples, double *scratch, long n) {
  struct cb_stats st;
  memcpy(scratch, samples, (size_t)n * sizeof *samples);
  cb_stats_compute(scratch, (size_t)n, &st);
  return st.ci95 <= s->precision * st.median;
}

/* Runs the warm-up and estimates one run's time (0 when there was none).
 * Ranks agree on the count through the reduced elapsed time. */
static int warm_up(const struct cb_measure *m, double *estimate, struct cb_error *err) {
  long fixed = m->settings->warmup; /* < 0: automatic */
  long done = 0;
  double start = cb_now(), elapsed = 0.0;
  while (fixed < 0 ? done < CB_MAX_WARMUP : done < fixed) {
    long k = fixed < 0 ? (done ? done : 1) : fixed; /* doubling batches */
    if (fixed < 0 && done + k > CB_MAX_WARMUP)
      k = CB_MAX_WARMUP - done;
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

int cb_measure_run(const struct cb_measure *m, struct cb_timing *out, struct cb_error *err) {
  const struct cb_settings *s = m->settings;
  double start = cb_now();
  memset(out, 0, sizeof *out);

  double estimate = 0.0;
  if (warm_up(m, &estimate, err))
    return err->status;

  /* At most CB_MAX_SAMPLES: auto mode stops there, fixed counts batch up. */
  double *samples = malloc(CB_MAX_SAMPLES * sizeof *samples);
  double *scratch = malloc(CB_MAX_SAMPLES * sizeof *scratch);
  double *device = m->backend->device_seconds ? malloc(CB_MAX_SAMPLES * sizeof *device) : NULL;
  if (!samples || !scratch || (m->backend->device_seconds && !device)) {
    free(samples);
    free(scratch);
    free(device);
    return cb_fail(err, CB_RUNTIME, "out of memory for timing samples");
  }
  long min_batch = s->iters ? (s->iters + CB_MAX_SAMPLES - 1) / CB_MAX_SAMPLES : 1;

  long n = 0, next_check = CB_MIN_SAMPLES;
  struct cb_run_mean total = {0, 0}; /* issue 17 item 3: the anchors' mean */
  while (n < CB_MAX_SAMPLES) {
    long remaining = s->iters ? s->iters - out->iters : 0;
    long k = batch_size(m, estimate, remaining);
    if (k < min_batch && s->mode == CB_MODE_THROUGHPUT)
      k = remaining < min_batch ? remaining : min_batch;
    double t[3]; /* host time, elapsed, device time */
    if (timed_batch(m, k, &t[0], &t[2], err))
      break;
    t[1] = cb_now() - start;
    agree_max(m->cl, t, device ? 3 : 2);
    if (device)
      device[n] = t[2];
    samples[n++] = t[0];
    out->iters += k;
    cb_run_mean_add(&total, t[0], k); /* issue 17 item 3 */
    if (estimate == 0.0)
      estimate = t[0];

    if (s->iters) {
      if (out->iters >= s->iters)
        break;
      continue;
    }
    if (t[1] >= m->budget)
      break;
    /* Sorting costs O(n log n): re-check at geometric intervals. */
    if (n >= next_check) {
      if (precise_enough(s, samples, scratch, n))
        break;
      next_check = n + (n / 8 > 1 ? n / 8 : 1);
    }
  }
  if (err->status == CB_OK) {
    cb_stats_compute(samples, (size_t)n, &out->stats);
    out->samples = n;
    out->mean_per_iter = cb_run_mean(&total); /* issue 17 item 3 */
    if (device && n > 0) {
      struct cb_stats ds;
      cb_stats_compute(device, (size_t)n, &ds);
      out->device_median = ds.median;
    }
  }
  free(samples);
  free(scratch);
  free(device);
  return err->status;
}
