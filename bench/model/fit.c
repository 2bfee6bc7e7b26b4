/* Least-squares alpha and beta of one tier from measured times, through
 * the cost shape of the algorithm each point ran, so that the figures carry over to other rank
 * counts. Residuals are taken relative to the measured time: an absolute
 * fit would let the largest sizes decide everything and leave alpha to
 * chance. */
#include <math.h>
#include <stdlib.h>

#include "model.h"

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void quality(int op, const struct cb_fit_point *pts, int n, struct cb_fit *fit) {
  double *rel = malloc(n * sizeof *rel), mean = 0, ss_res = 0, ss_tot = 0;
  for (int i = 0; i < n; i++)
    mean += pts[i].time_s / n;
  fit->max_rel = 0;
  for (int i = 0; i < n; i++) {
    double t = pts[i].time_s;
    double pred =
        cb_model_time(op, pts[i].shape, pts[i].nranks, pts[i].nnodes, pts[i].bytes, &fit->link);
    rel[i] = fabs(pred - t) / t;
    fit->max_rel = fmax(fit->max_rel, rel[i]);
    ss_res += (pred - t) * (pred - t);
    ss_tot += (t - mean) * (t - mean);
  }
  qsort(rel, n, sizeof *rel, by_value);
  fit->median_rel = n % 2 ? rel[n / 2] : (rel[n / 2 - 1] + rel[n / 2]) / 2;
  fit->r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : (ss_res == 0 ? 1 : 0);
  free(rel);
}

int cb_model_fit(int op, const struct cb_fit_point *pts, int n, struct cb_fit *fit) {
  /* time = a*alpha + b*beta; divided by time: (a/t)*alpha + (b/t)*beta = 1 */
  double suu = 0, suv = 0, svv = 0, su = 0, sv = 0;
  for (int i = 0; i < n; i++) {
    struct cb_terms t = cb_model_terms(op, pts[i].shape, pts[i].nranks, pts[i].nnodes);
    double u = t.steps / pts[i].time_s, v = t.share * pts[i].bytes / pts[i].time_s;
    suu += u * u, suv += u * v, svv += v * v, su += u, sv += v;
  }
  double det = suu * svv - suv * suv;
  if (n < 2 || !(det > 1e-12 * suu * svv))
    return -1;
  double alpha = (su * svv - sv * suv) / det, beta = (sv * suu - su * suv) / det;
  /* a negative figure means the other one explains the data alone */
  if (alpha < 0)
    alpha = 0, beta = sv / svv;
  else if (beta < 0)
    beta = 0, alpha = su / suu;
  *fit = (struct cb_fit){.link = {.set = 1, .alpha = alpha, .beta = beta}, .npoints = n};
  quality(op, pts, n, fit);
  return 0;
}
