/* Check patterns: the value rank r holds at element i for check seed s.
 * Values are small integers chosen so that a result from a wrong offset, a
 * wrong rank or a stale buffer differs from the expected one, and so that
 * every reduction stays exact in the dtype (floats) or wraps exactly like
 * the backend's arithmetic (integers). */
#ifndef CB_PATTERN_H
#define CB_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct cb_pattern {
  int dtype, redop, nranks;
  uint64_t seed;
  uint64_t modulus; /* values are 1..modulus (prod: 1 or 2) */
  int64_t *reduced; /* [modulus] reduction over ranks, by base residue */
  /* The same values already stored in the dtype, so filling and checking
   * large buffers is a copy or compare per element. */
  unsigned char *value_bytes;   /* [modulus + 1] value v at v * size */
  unsigned char *reduced_bytes; /* [modulus] reduced[b] at b * size */
};

/* redop may be CB_NOREDOP for data-movement ops. */
int cb_pattern_init(struct cb_pattern *p, int dtype, int redop, int nranks, uint64_t seed,
                    struct cb_error *err);
void cb_pattern_free(struct cb_pattern *p);
/* p under another seed: its tables depend on dtype, redop and rank count
 * only (the seed moves the index's residue), so the copy shares them and
 * costs nothing where init builds O(modulus * nranks) values (about 2 ms
 * for a float sum). Free only p, after its last copy's use. */
struct cb_pattern cb_pattern_reseeded(const struct cb_pattern *p, uint64_t seed);

int64_t cb_pattern_value(const struct cb_pattern *p, int rank, uint64_t index);
int64_t cb_pattern_reduced(const struct cb_pattern *p, uint64_t index);

/* Bytes per element of the pattern's dtype. */
size_t cb_pattern_esize(const struct cb_pattern *p);

/* buf[k] = value(rank, first + k) for k < n. */
void cb_pattern_fill(const struct cb_pattern *p, void *buf, int rank, uint64_t first, size_t n);
/* Number of k < n with buf[k] != value(rank, first + k). */
size_t cb_pattern_count_wrong(const struct cb_pattern *p, const void *buf, int rank, uint64_t first,
                              size_t n);
/* Number of k < n with buf[k] != reduced(first + k). */
size_t cb_pattern_count_wrong_reduced(const struct cb_pattern *p, const void *buf, uint64_t first,
                                      size_t n);
/* A value no pattern produces (-1), so unwritten results show up. */
void cb_pattern_poison(int dtype, void *buf, size_t n);

#endif
