/* Least-squares alpha and beta of one tier from measured times, through
 * the cost shape of the algorithm each point ran, so that the figures carry over to other rank
 * counts. Residuals are taken relative to the measured time: an absolute
 * fit would let the largest sizes decide everything and leave alpha to
 * chance. */
#include <math.h>
#include <stdlib.h>

#include "base/stats.h"
#include "model.h"

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
  cb_sort_doubles(rel, (size_t)n);
  fit->median_rel = cb_median_sorted(rel, (size_t)n);
  fit->r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : (ss_res == 0 ? 1 : 0);
  free(rel);
}

/* The columns of one point, divided by its measured time (so that every
 * point's target is 1): steps, bytes through the shape, and the bytes its
 * rendezvous waits stand for. */
static void row(int op, const struct cb_fit_point *pt, double rndv, double queue, double a[3]) {
  struct cb_terms t = cb_model_terms(op, pt->shape, pt->nranks, pt->nnodes, pt->bytes);
  a[0] = t.steps / pt->time_s;
  a[1] = t.share * pt->bytes / pt->time_s;
  a[2] = rndv > 0
             ? cb_model_wait_bytes(op, pt->shape, pt->nranks, pt->nnodes, pt->bytes, rndv, queue) /
                   pt->time_s
             : 0;
}

/* Least squares on the columns in `use` (bit k: column k), the others held
 * at 0: the normal equations by Gauss-Jordan. Returns the sum of squared
 * relative residuals, or INFINITY when singular or a figure is negative. */
static double solve(const double (*a)[3], int n, int use, double x[3]) {
  double m[3][4] = {{0}};
  int idx[3], k = 0;
  for (int c = 0; c < 3; c++)
    if (use >> c & 1)
      idx[k++] = c;
  for (int i = 0; i < n; i++)
    for (int r = 0; r < k; r++) {
      for (int c = 0; c < k; c++)
        m[r][c] += a[i][idx[r]] * a[i][idx[c]];
      m[r][k] += a[i][idx[r]];
    }
  double scale = 0;
  for (int c = 0; c < k; c++)
    scale = fmax(scale, m[c][c]);
  for (int c = 0; c < k; c++) {
    int piv = c;
    for (int r = c + 1; r < k; r++)
      if (fabs(m[r][c]) > fabs(m[piv][c]))
        piv = r;
    if (!(fabs(m[piv][c]) > 1e-12 * scale))
      return INFINITY;
    for (int j = 0; j <= k; j++) {
      double tmp = m[c][j];
      m[c][j] = m[piv][j], m[piv][j] = tmp;
    }
    for (int r = 0; r < k; r++)
      if (r != c) {
        double f = m[r][c] / m[c][c];
        for (int j = c; j <= k; j++)
          m[r][j] -= f * m[c][j];
      }
  }
  x[0] = x[1] = x[2] = 0;
  for (int r = 0; r < k; r++) {
    x[idx[r]] = m[r][k] / m[r][r];
    if (!(x[idx[r]] >= 0))
      return INFINITY;
  }
  double ss = 0;
  for (int i = 0; i < n; i++) {
    double e = a[i][0] * x[0] + a[i][1] * x[1] + a[i][2] * x[2] - 1;
    ss += e * e;
  }
  return ss;
}

/* The best non-negative fit over the column sets allowed (`need` in every
 * one): with three columns at most, trying each set is exact. */
static double best_of(const double (*a)[3], int n, int need, int allowed, double x[3]) {
  double best = INFINITY, y[3];
  for (int use = 1; use < 8; use++)
    if ((use & need) == need && (use & ~allowed) == 0) {
      double ss = solve(a, n, use, y);
      if (ss < best)
        best = ss, x[0] = y[0], x[1] = y[1], x[2] = y[2];
    }
  return best;
}

/* The rendezvous wait is tried on this many points or more: it costs three
 * more figures (gamma, rndv, queue) and needs sizes on both sides of rndv. */
#define WAIT_MIN_POINTS 6

int cb_model_fit(int op, const struct cb_fit_point *pts, int n, struct cb_fit *fit) {
  /* time = a*alpha + b*beta; divided by time: (a/t)*alpha + (b/t)*beta = 1 */
  double suu = 0, suv = 0, svv = 0;
  double(*a)[3] = malloc((n > 0 ? n : 1) * sizeof *a);
  for (int i = 0; i < n; i++) {
    row(op, &pts[i], 0, 0, a[i]);
    suu += a[i][0] * a[i][0], suv += a[i][0] * a[i][1], svv += a[i][1] * a[i][1];
  }
  double det = suu * svv - suv * suv;
  if (n < 2 || !(det > 1e-12 * suu * svv)) {
    free(a);
    return -1;
  }
  double x[3];
  /* a negative figure means the other one explains the data alone */
  double ss = best_of((const double(*)[3])a, n, 0, 3, x);
  struct cb_link link = {.set = 1, .alpha = x[0], .beta = x[1]};
  /* Akaike: n ln(SS/n) + 2k, k = 2 plain, 5 with the wait; an exact plain
   * fit (synthetic data) is kept as it is. */
  double aic = n * log(ss / n) + 2 * 2;
  for (int r = 9; n >= WAIT_MIN_POINTS && ss > 1e-20 * n && r <= 20; r++)
    for (int q = 12; q <= 26; q++) {
      double rndv = r == 9 ? 1 : ldexp(1, r), queue = ldexp(1, q); /* r 9: every message */
      for (int i = 0; i < n; i++)
        row(op, &pts[i], rndv, queue, a[i]);
      double y[3], s2 = best_of((const double(*)[3])a, n, 4, 7, y);
      double aic2 = n * log(s2 / n) + 2 * 5;
      if (isfinite(s2) && aic2 < aic)
        aic = aic2, link = (struct cb_link){1, y[0], y[1], y[2], rndv, queue};
    }
  free(a);
  *fit = (struct cb_fit){.link = link, .npoints = n};
  quality(op, pts, n, fit);
  return 0;
}
