/* The clock every measurement uses, and its own cost (timer.h says more). */
#define _GNU_SOURCE
#include "timer.h"

#include <time.h>

#include "stats.h"

#ifdef CLOCK_MONOTONIC_RAW
#define CB_CLOCK CLOCK_MONOTONIC_RAW
#else
#define CB_CLOCK CLOCK_MONOTONIC
#endif

double cb_now(void) {
  struct timespec ts;
  clock_gettime(CB_CLOCK, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double cb_timer_overhead(void) {
  enum { N = 1001 };
  double samples[N];
  for (int i = 0; i < N; i++) {
    double t0 = cb_now();
    double t1 = cb_now();
    samples[i] = t1 - t0;
  }
  struct cb_stats st;
  cb_stats_compute(samples, N, &st);
  return st.median;
}
