/* Timing (bench/engine/measure.c): the block-median CI against drift, batches that
 * hold after a slow first call, and fixed counts timed as nccl-tests does.
 * A stand-in backend whose run() spins for a set time; one process, MPI
 * singleton. */
#include <mpi.h>
#include <stdlib.h>

#include "base/timer.h"
#include "engine/defaults.h"
#include "engine/measure.h"
#include "tap.h"

static long runs, syncs;
static double first_run_s, run_s; /* how long the first and later run() spin */

static void spin(double seconds) {
  double until = cb_now() + seconds;
  while (cb_now() < until)
    ;
}

/* the addresses the runs were handed (--rotate's slices) */
static const char *seen_recv[64];
static const void *seen_send[64];
static int fake_run(void *ctx, const struct cb_op_args *a, struct cb_error *err) {
  (void)ctx, (void)err;
  if (runs < 64)
    seen_recv[runs] = a->recv, seen_send[runs] = a->send;
  spin(runs++ == 0 ? first_run_s : run_s);
  return CB_OK;
}

static int fake_sync(void *ctx, struct cb_error *err) {
  (void)ctx, (void)err;
  syncs++;
  return CB_OK;
}

static const struct cb_backend fake = {.name = "stand-in", .run = fake_run, .sync = fake_sync};

/* --rotate: call i on the slice i mod slots, send and recv alike; without
 * it every call on the same buffers */
static void test_rotate(const struct cb_cluster *cl, struct cb_settings *s) {
  static char send[3 * 4096], recv[3 * 4096];
  struct cb_op_args a = {.send = send, .recv = recv};
  long at = 0;
  struct cb_measure m = {.cl = cl,
                         .backend = &fake,
                         .args = &a,
                         .settings = s,
                         .budget = 0.01,
                         .rotate_stride = 4096,
                         .rotate_slots = 3,
                         .rotate_at = &at};
  struct cb_timing t;
  struct cb_error err = {0};
  first_run_s = run_s = 1e-6;
  runs = 0;
  cb_measure_run(&m, &t, &err);
  int moved = runs >= 4;
  for (long i = 0; i < runs && i < 64; i++)
    moved = moved && seen_recv[i] == recv + 4096 * (i % 3) &&
            (const char *)seen_send[i] == send + 4096 * (i % 3);
  ok(moved && at == runs, "rotate: %ld calls, each on slice i mod 3, send and recv alike", runs);
  m.rotate_slots = 0, runs = 0;
  cb_measure_run(&m, &t, &err);
  ok(runs > 1 && seen_recv[runs > 64 ? 63 : runs - 1] == recv && seen_send[1] == send,
     "no rotation: every call on the one buffer");
  a.send = NULL, m.rotate_slots = 2, at = 0, runs = 0; /* in place: recv alone */
  cb_measure_run(&m, &t, &err);
  ok(runs > 1 && seen_send[1] == NULL && seen_recv[1] == recv + 4096,
     "in place: the one buffer rotates, send stays NULL");
}

static struct cb_timing measure(const struct cb_cluster *cl, struct cb_settings *s, double budget) {
  struct cb_op_args a = {0};
  struct cb_measure m = {.cl = cl,
                         .backend = &fake,
                         .args = &a,
                         .settings = s,
                         .timer_overhead = 0.0,
                         .budget = budget};
  struct cb_timing t;
  struct cb_error err = {0};
  runs = syncs = 0;
  if (cb_measure_run(&m, &t, &err))
    diag("cb_measure_run: %s", err.msg);
  return t;
}

/* order-statistics CI of a copy (cb_stats_compute sorts in place) */
static double order_ci(const double *x, long n) {
  double *c = malloc((size_t)n * sizeof *c);
  for (long i = 0; i < n; i++)
    c[i] = x[i];
  struct cb_stats st;
  cb_stats_compute(c, (size_t)n, &st);
  free(c);
  return st.ci95;
}

static void test_block_ci(void) {
  enum { N = 1000 };
  static double x[N];
  unsigned long long lcg = 12345;
  for (int i = 0; i < N; i++) { /* independent noise, +-1% */
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    x[i] = 1.0 + 0.02 * ((double)(lcg >> 11) / 9007199254740992.0 - 0.5);
  }
  double block = cb_block_ci95(x, N, 10), order = order_ci(x, N);
  ok(block > 0 && block < 0.005 && block < 4 * order,
     "independent noise: block CI %.5f is small, like the order-statistics one %.5f", block, order);
  for (int i = 0; i < N; i++) /* the same noise on a slow drift of 20% over the run */
    x[i] += 0.2 * i / N;
  block = cb_block_ci95(x, N, 10), order = order_ci(x, N);
  ok(block > 5 * order && block > 0.03,
     "drift: block CI %.4f is wider than the order-statistics one %.4f, which ignores it", block,
     order);
  is_double(cb_block_ci95(x, 19, 10), 0, 0, "fewer than two samples per block: no block CI");
  for (int i = 0; i < N; i++)
    x[i] = 2.0;
  is_double(cb_block_ci95(x, N, 10), 0, 1e-15, "constant samples: zero width");
}

int main(int argc, char **argv) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  MPI_Init(&argc, &argv);
  struct cb_cluster cl = {.comm = MPI_COMM_WORLD, .rank = 0, .nranks = 1};
  test_block_ci();

  struct cb_settings s;
  cb_settings_defaults(&s);
  test_rotate(&cl, &s);
  /* A slow first call (lazy connection set-up) must neither be timed nor
   * fix the batch size: runs of 20 us after a first one of 30 ms. */
  first_run_s = 0.03, run_s = 20e-6;
  struct cb_timing t = measure(&cl, &s, 0.3);
  ok(t.samples > 0 && t.stats.max < 0.01,
     "the slow first call is kept out of the timed samples (slowest sample %.1f us)",
     t.stats.max * 1e6);
  ok(t.samples > 0 && (double)t.iters / (double)t.samples >= CB_MIN_BATCH,
     "batches hold: %.1f runs per sample on average (%ld to %ld), not one",
     (double)t.iters / (double)(t.samples ? t.samples : 1), t.batch_min, t.batch_max);
  ok(t.batch_max >= 10, "the batch grows to the runs' real time (largest batch %ld)", t.batch_max);

  /* Slow runs (issue 40): runs of 2.5 ms are each a sample alone
   * (CB_SOLO_SECONDS), so a budget of 20 ms holds the 6 samples an
   * interval needs (in batches of 4 it held 2), with room to spare on a
   * loaded machine (and up to 4x the budget past it). */
  first_run_s = run_s = 2.5e-3;
  t = measure(&cl, &s, 0.02);
  ok(t.batch_max == 1 && t.samples >= CB_CI_MIN_SAMPLES,
     "runs of 2.5 ms: one per sample (largest batch %ld), %ld samples, not 2", t.batch_max,
     t.samples);

  /* Fixed counts, as nccl-tests: -w 5 warm-up runs, one batch of -n 20. */
  first_run_s = run_s = 50e-6;
  s.iters = 20, s.warmup = 5;
  t = measure(&cl, &s, 1.0);
  is_long(runs, 25, "-n 20 -w 5 runs 25 times in all");
  is_long(t.samples, 1, "and times them as one batch");
  is_long(t.iters, 20, "of 20 back to back");
  ok(t.stats.mean >= 49e-6, "per-run time of that batch %.1f us (50 us spun each)",
     t.stats.mean * 1e6);
  s.timing = CB_TIMING_LATENCY;
  t = measure(&cl, &s, 1.0);
  is_long(t.samples, 20, "latency mode with -n 20: 20 samples of one run");

  MPI_Finalize();
  done_testing();
  return exit_status();
}
