/* The clock every measurement uses, and its own cost (timer.h says more). */
#define _GNU_SOURCE
#include "timer.h"

#include <stdio.h>
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

double cb_wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

char *cb_utc_text(double unix_s, char *buf, unsigned len) {
  time_t t = (time_t)unix_s;
  struct tm tm;
  if (!gmtime_r(&t, &tm) || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    snprintf(buf, len, "%s", "");
  return buf;
}

double cb_utc_parse(const char *s) {
  struct tm tm = {0};
  int n = 0;
  if (!s ||
      sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
             &tm.tm_min, &tm.tm_sec, &n) != 6 ||
      s[n] != '\0' || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
      tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
    return -1;
  tm.tm_year -= 1900, tm.tm_mon -= 1;
  return (double)timegm(&tm);
}
