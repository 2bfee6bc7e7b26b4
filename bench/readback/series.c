/* Ordering the series for --report: by op so each op's charts take a
 * contiguous run, then file and labels so legends read the same each time. */
#include <stdlib.h>
#include <string.h>

#include "readback.h"

static int by_bytes(const void *a, const void *b) {
  const struct cb_record *x = a, *y = b;
  return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

static int by_labels(const void *a, const void *b) {
  const struct cb_rep_series *x = a, *y = b;
  int c = strcmp(x->op, y->op);
  if (c || (c = x->file - y->file))
    return c;
  const char *xs[5] = {x->backend, x->mem, x->transport, x->dtype, x->redop};
  const char *ys[5] = {y->backend, y->mem, y->transport, y->dtype, y->redop};
  for (int i = 0; i < 5; i++)
    if ((c = strcmp(xs[i], ys[i])))
      return c;
  return x->inplace - y->inplace;
}

void cb_rep_sort(struct cb_rep_data *d) {
  if (d->nseries)
    qsort(d->series, d->nseries, sizeof *d->series, by_labels);
  for (int i = 0; i < d->nseries; i++)
    qsort(d->series[i].pts, d->series[i].npts, sizeof *d->series[i].pts, by_bytes);
}

int cb_rep_op_span(const struct cb_rep_data *d, int first) {
  int n = 1;
  while (first + n < d->nseries && strcmp(d->series[first + n].op, d->series[first].op) == 0)
    n++;
  return n;
}

void cb_rep_varies(const struct cb_rep_data *d, int first, int n, struct cb_rep_varies *v) {
  memset(v, 0, sizeof *v);
  const struct cb_rep_series *a = &d->series[first];
  for (int i = first + 1; i < first + n; i++) {
    const struct cb_rep_series *s = &d->series[i];
    v->file |= s->file != a->file;
    v->backend |= strcmp(s->backend, a->backend) != 0;
    v->mem |= strcmp(s->mem, a->mem) != 0;
    v->transport |= strcmp(s->transport, a->transport) != 0;
    v->dtype |= strcmp(s->dtype, a->dtype) != 0;
    v->redop |= strcmp(s->redop, a->redop) != 0;
    v->inplace |= s->inplace != a->inplace;
  }
}

void cb_rep_free(struct cb_rep_data *d) {
  for (int i = 0; i < d->nseries; i++) {
    struct cb_rep_series *s = &d->series[i];
    free(s->op), free(s->backend), free(s->mem), free(s->transport);
    free(s->dtype), free(s->redop), free(s->pts);
  }
  for (int i = 0; i < d->nruns; i++) {
    struct cb_rep_run *r = &d->runs[i];
    free(r->start_time), free(r->command_line), free(r->hostnames);
    free(r->mpi_library), free(r->version), free(r->git_commit);
  }
  for (int i = 0; i < d->npairs; i++) {
    struct cb_rep_pair *p = &d->pairs[i];
    free(p->src_host), free(p->dst_host), free(p->matrix), free(p->link);
  }
  for (int i = 0; d->tunes && i < d->nruns; i++)
    free(d->tunes[i].trials);
  for (int i = 0; i < d->nverdicts; i++) {
    struct cb_rep_verdict *v = &d->verdicts[i];
    free(v->check), free(v->status), free(v->unit), free(v->what), free(v->causes);
    free(v->expected), free(v->cost);
  }
  for (int i = 0; d->burnin && i < d->nruns; i++)
    cb_burnin_free(&d->burnin[i].store);
  free(d->burnin);
  free(d->layouts);
  free(d->series), free(d->runs), free(d->pairs), free(d->verdicts), free(d->tunes);
  free(d->retests);
  memset(d, 0, sizeof *d);
}

int cb_rep_ratio_base(const struct cb_rep_data *d, int first, int n, int i) {
  const struct cb_rep_series *s = &d->series[i];
  if (s->file == 0)
    return -1;
  for (int j = first; j < first + n; j++) {
    const struct cb_rep_series *b = &d->series[j];
    if (b->file == 0 && b->inplace == s->inplace && !strcmp(b->backend, s->backend) &&
        !strcmp(b->mem, s->mem) && !strcmp(b->transport, s->transport) &&
        !strcmp(b->dtype, s->dtype) && !strcmp(b->redop, s->redop))
      return j;
  }
  return -1;
}

int cb_rep_has_ratio(const struct cb_rep_data *d, int first, int n) {
  for (int i = first; i < first + n; i++)
    if (cb_rep_ratio_base(d, first, n, i) >= 0)
      return 1;
  return 0;
}

const char *cb_rep_base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

int cb_rep_noisy(const struct cb_rep_series *s) {
  int n = 0;
  for (int p = 0; p < s->npts; p++)
    n += s->pts[p].noisy;
  return n;
}
