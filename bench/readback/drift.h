/* A burn-in's results as series over its passes (issue 42): per measured
 * case (op, backend, memory, dtype, redop, place, size, ranks) the time of
 * each pass, and the judgement of a series: the trend of its time over the
 * run with a 95% interval, its worst pass, the passes with wrong results. */
#ifndef CB_BURNIN_DRIFT_H
#define CB_BURNIN_DRIFT_H

#include "results/record.h"
#include "results/verdict.h"

/* The default limit on a slowdown over a burn-in: the fitted time at its
 * last pass at most 10% over the first pass's (BURNIN.md says why). */
#define CB_DRIFT_LIMIT 0.10
/* From 2 hours on, the last hour is read against the first, not the thirds. */
#define CB_DRIFT_HOUR 3600.0

struct cb_burnin_point {
  int interval;
  double t;       /* seconds since the burn-in began */
  double time_us; /* the record's time (its --stat) */
  long wrong;     /* -1: not checked */
  double ci95_us; /* the time's 95% half-width; NAN when it has none */
  int again;      /* measured again within the interval (an acceptance's retest) */
};

struct cb_burnin_series {
  char key[192];          /* what identifies the case, for matching and naming */
  char name[96];          /* "burn-in allreduce mpi host 1 MiB" (in place: "... in-place") */
  struct cb_record first; /* the case's first record (its strings are static) */
  int n, cap;
  struct cb_burnin_point *p;
};

struct cb_burnin_store {
  int n, cap;
  struct cb_burnin_series *s;
};

/* Adds one record at t seconds into the run; 0, or -1 out of memory. A
 * second record of a case in the same interval replaces the first (its
 * wrong count the larger of the two) and counts in `again`. */
int cb_burnin_add(struct cb_burnin_store *b, const struct cb_record *r, double t);
void cb_burnin_free(struct cb_burnin_store *b);

/* The trend of a series: the least-squares line of time against t, as the
 * change from the first pass's time to the last's relative to the mean
 * time, with its 95% interval (Student's t, n - 2 degrees of freedom).
 * Also the worst (slowest) pass and the passes with wrong results. Pure. */
struct cb_drift {
  int n;         /* passes */
  double span_s; /* from the first pass to the last */
  double change; /* fitted relative change over the run; NAN with n < 3 */
  double lo, hi; /* its 95% interval */
  /* the mean of the last third of the passes against the first third's
   * (a step the straight line can hide), relative, with its 95% interval
   * (Welch); NAN with fewer than 6 passes. A run of 2 hours or more: the
   * last hour against the first (by_hour), each with 2 passes or more. */
  double step, step_lo, step_hi;
  int by_hour;
  int nfirst, nlast;                  /* the passes in the step's two ends; 0 without a step */
  double first_mean_us, last_mean_us; /* their means (what --report draws) */
  double mean_us;                     /* mean time */
  double fit_a, fit_b;                /* the line: time_us = fit_a + fit_b * t; NAN with n < 3 */
  double worst_us;                    /* slowest pass */
  int worst_interval;                 /* and its number */
  long wrong;                         /* wrong elements over every pass */
  int nwrong;                         /* passes with any */
  int wrong_intervals[8];             /* the first of them */
  int nagain;                         /* intervals with a case measured again */
  int again_intervals[8];             /* the first of them */
};
void cb_burnin_drift(const struct cb_burnin_point *p, int n, struct cb_drift *d);

/* The series' verdict: FAIL on any wrong result (never noise) or when the
 * whole interval of the trend's change, or of the last third against the
 * first, is over `limit`; PASS when all of both (where there are enough
 * passes for the second) are at or under; else INCONCLUSIVE (fewer than 3
 * passes too). what and unit filled for people; v->measured is the judged
 * change in percent. Pure. */
void cb_burnin_verdict(const struct cb_burnin_series *s, double limit, struct cb_verdict *v);

/* Student's t quantile for a two-sided 95% interval, df >= 1. Pure. */
double cb_t95(int df);

#endif
