/* The search over a cb_space: coordinate descent with noise-aware moves,
 * or the exhaustive grid. It never measures itself: it hands batches of
 * configurations to `measure`, which times them interleaved and returns a
 * median and its noise per configuration. Pure: tested on a synthetic
 * noisy objective. */
#ifndef CB_SEARCH_H
#define CB_SEARCH_H

#include "space.h"

struct cb_score {
  double median; /* seconds per overlapped step */
  double ci95;   /* half-width of the median's 95% confidence interval */
};

/* Measures cfgs[0..n-1] together (interleaved), fills scores[0..n-1].
 * `phase` names the search step, for logs and the trials file. */
typedef int (*cb_measure_batch)(void *user, const char *phase, const struct cb_tune_config *cfgs,
                                int n, struct cb_score *scores, struct cb_error *err);

struct cb_search_result {
  struct cb_tune_config best;
  struct cb_score best_score;
  int evaluations;  /* distinct configurations measured (baseline included) */
  int measurements; /* configuration measurements, repeats included */
  int grid;         /* size of the valid grid */
};

/* A replaces B only when it is faster by more than their combined noise. */
int cb_search_better(const struct cb_score *a, const struct cb_score *b);

int cb_search_run(const struct cb_space *s, const struct cb_tune_config *baseline, int exhaustive,
                  cb_measure_batch measure, void *user, struct cb_search_result *res,
                  struct cb_error *err);

#endif
