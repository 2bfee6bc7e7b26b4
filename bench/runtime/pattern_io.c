/* Where check patterns are written and read (pattern_io.h says more). */
#include "pattern_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"

/* Keeps the first failure: later ones are usually its consequences. */
static void failed(struct cb_pattern_access *a, const char *why) {
  if (a->failed)
    return;
  a->failed = 1;
  snprintf(a->why, sizeof a->why, "%s: %s", a->io->name, why);
}

void cb_io_fill(struct cb_pattern_access *a, const struct cb_pattern *p, void *buf, int rank,
                uint64_t first, size_t n) {
  char why[200];
  if (!a || !a->io)
    cb_pattern_fill(p, buf, rank, first, n);
  else if (a->io->fill(p, buf, rank, first, n, why, sizeof why))
    failed(a, why);
}

size_t cb_io_count_wrong(struct cb_pattern_access *a, const struct cb_pattern *p, const void *buf,
                         int rank, uint64_t first, size_t n) {
  char why[200];
  size_t wrong = 0;
  if (!a || !a->io)
    return rank < 0 ? cb_pattern_count_wrong_reduced(p, buf, first, n)
                    : cb_pattern_count_wrong(p, buf, rank, first, n);
  if (a->io->count_wrong(p, buf, rank, first, n, &wrong, why, sizeof why))
    failed(a, why);
  return wrong;
}

size_t cb_io_count_wrong_reduced(struct cb_pattern_access *a, const struct cb_pattern *p,
                                 const void *buf, uint64_t first, size_t n) {
  return cb_io_count_wrong(a, p, buf, -1, first, n);
}

void cb_io_poison(struct cb_pattern_access *a, int dtype, void *buf, size_t n) {
  char why[200];
  if (!a || !a->io)
    cb_pattern_poison(dtype, buf, n);
  else if (a->io->poison(dtype, buf, n, why, sizeof why))
    failed(a, why);
}

/* One self-check case: io's fill, poison and counts against pattern.c's on
 * n elements of one pattern. 1 when all agree. */
struct selfcheck {
  const struct cb_pattern_io *io;
  const struct cb_pattern *p;
  size_t n, esize;
  unsigned char *want, *got; /* host buffers of n elements */
  void *buf;                 /* io's buffer of n elements */
  char *why;
  size_t len;
};

static int differ(struct selfcheck *c, const char *what) {
  snprintf(c->why, c->len, "%s %s: %s differs from the host's", cb_dtypes[c->p->dtype].name,
           cb_redop_name(c->p->redop), what);
  return 0;
}

static int count_agrees(struct selfcheck *c, int rank, const char *what) {
  enum { RANK = 2, FIRST = 101 };
  size_t want = rank < 0 ? cb_pattern_count_wrong_reduced(c->p, c->want, FIRST, c->n)
                         : cb_pattern_count_wrong(c->p, c->want, rank, FIRST, c->n);
  size_t got = 0;
  char why[200];
  if (c->io->copy(c->buf, c->want, c->n * c->esize, 1, why, sizeof why) ||
      c->io->count_wrong(c->p, c->buf, rank, FIRST, c->n, &got, why, sizeof why)) {
    snprintf(c->why, c->len, "%s", why);
    return 0;
  }
  if (got == want)
    return 1;
  snprintf(c->why, c->len, "%s %s: %s counted %zu wrong elements where the host counts %zu",
           cb_dtypes[c->p->dtype].name, cb_redop_name(c->p->redop), what, got, want);
  return 0;
}

/* Elements where errors are planted: both ends and the middle. */
static void plant(struct selfcheck *c) {
  size_t at[3] = {0, c->n / 2, c->n - 1};
  for (int i = 0; i < 3; i++)
    cb_pattern_poison(c->p->dtype, c->want + at[i] * c->esize, 1);
}

static int check_case(struct selfcheck *c) {
  enum { RANK = 2, FIRST = 101 };
  size_t bytes = c->n * c->esize;
  char why[200];
  /* fill: bit for bit */
  cb_pattern_fill(c->p, c->want, RANK, FIRST, c->n);
  if (c->io->fill(c->p, c->buf, RANK, FIRST, c->n, why, sizeof why) ||
      c->io->copy(c->got, c->buf, bytes, 0, why, sizeof why))
    return snprintf(c->why, c->len, "%s", why), 0;
  if (memcmp(c->want, c->got, bytes) != 0)
    return differ(c, "the filled buffer");
  /* counts: none on a right buffer, exactly the planted ones otherwise */
  if (!count_agrees(c, RANK, "a right buffer"))
    return 0;
  plant(c);
  if (cb_pattern_count_wrong(c->p, c->want, RANK, FIRST, c->n) != 3)
    return snprintf(c->why, c->len, "the host did not count the 3 planted errors"), 0;
  if (!count_agrees(c, RANK, "a buffer with 3 planted errors"))
    return 0;
  if (c->p->redop != CB_NOREDOP) {
    for (size_t k = 0; k < c->n; k++)
      cb_dtypes[c->p->dtype].store(c->want, k, cb_pattern_reduced(c->p, FIRST + k));
    if (!count_agrees(c, -1, "a right reduced buffer"))
      return 0;
    plant(c);
    if (!count_agrees(c, -1, "a reduced buffer with planted errors"))
      return 0;
  }
  /* poison */
  cb_pattern_poison(c->p->dtype, c->want, c->n);
  if (c->io->poison(c->p->dtype, c->buf, c->n, why, sizeof why) ||
      c->io->copy(c->got, c->buf, bytes, 0, why, sizeof why))
    return snprintf(c->why, c->len, "%s", why), 0;
  if (memcmp(c->want, c->got, bytes) != 0)
    return differ(c, "the poisoned buffer");
  return 1;
}

int cb_pattern_io_selfcheck(const struct cb_pattern_io *io, char *why, size_t len) {
  /* past several moduli and not a multiple of a thread block */
  const size_t n = 4099;
  const int redops[] = {CB_SUM, CB_PROD, CB_NOREDOP};
  int good = 1;
  for (int d = 0; d < CB_NDTYPES && good; d++)
    for (size_t r = 0; r < sizeof redops / sizeof redops[0] && good; r++) {
      struct cb_pattern p;
      struct cb_error err = {0};
      if (cb_pattern_init(&p, d, redops[r], 3, 5, &err)) {
        snprintf(why, len, "%s", err.msg);
        return 0;
      }
      struct selfcheck c = {io, &p, n, cb_dtypes[d].size, NULL, NULL, NULL, why, len};
      c.want = malloc(n * c.esize);
      c.got = malloc(n * c.esize);
      char reason[200];
      if (!c.want || !c.got) {
        snprintf(why, len, "out of memory");
        good = 0;
      } else if (io->alloc(n * c.esize, &c.buf, reason, sizeof reason)) {
        snprintf(why, len, "%s", reason);
        good = 0;
      } else {
        good = check_case(&c);
        io->free(c.buf);
      }
      free(c.want);
      free(c.got);
      cb_pattern_free(&p);
    }
  return good;
}
