/* Held-out error per op and size: the table that says where the model is
 * right and where not (a summary over all sizes hides that the error
 * lives at a few sizes). */
#include <math.h>
#include <stdlib.h>

#include "base/stats.h"
#include "groups.h"

static int by_op_size_err(const void *a, const void *b) {
  const struct cb_err_point *x = a, *y = b;
  if (x->op != y->op)
    return x->op - y->op;
  if (x->bytes != y->bytes)
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
  return (fabs(x->err) > fabs(y->err)) - (fabs(x->err) < fabs(y->err));
}

double cb_err_median_abs(double *e, int n) {
  for (int i = 0; i < n; i++)
    e[i] = fabs(e[i]);
  cb_sort_doubles(e, (size_t)n);
  return cb_median_sorted(e, (size_t)n);
}

int cb_err_rows(struct cb_err_point *pts, int n, struct cb_err_row *rows) {
  qsort(pts, n, sizeof *pts, by_op_size_err);
  double *v = malloc((n ? n : 1) * sizeof *v);
  int nrows = 0;
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && pts[j].op == pts[i].op && pts[j].bytes == pts[i].bytes)
      j++;
    for (int k = i; k < j; k++)
      v[k - i] = fabs(pts[k].err);
    struct cb_err_row *r = &rows[nrows++];
    *r = (struct cb_err_row){
        pts[i].op, pts[i].bytes, j - i, cb_median_sorted(v, (size_t)(j - i)), v[j - i - 1], 0};
    for (int k = i; k < j; k++)
      v[k - i] = pts[k].err;
    cb_sort_doubles(v, (size_t)(j - i));
    r->median = cb_median_sorted(v, (size_t)(j - i));
    i = j;
  }
  free(v);
  return nrows;
}
