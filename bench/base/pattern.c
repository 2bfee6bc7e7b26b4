/* Check patterns: the value rank r holds at element i, and what a correct result holds
 * (pattern.h says more). */
#include "pattern.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"

/* Multipliers are primes that no modulus below divides, so stepping the
 * index, the rank or the seed by one always changes the residue. */
enum { MUL_INDEX = 1, MUL_RANK = 1000003, MUL_SEED = 7919 };
static const uint64_t primes[] = {2,   3,    5,    7,    13,   31,    61,    127,   251,
                                  509, 1021, 2039, 4093, 8191, 16381, 32749, 65521, 131071};
/* Bounds the O(modulus * nranks) table of reduced values. */
#define REDUCE_WORK_LIMIT (INT64_C(1) << 26)

/* The largest listed prime <= cap that does not divide `avoid` (0: any). */
static uint64_t pick_modulus(int64_t cap, int avoid) {
  uint64_t m = 1;
  for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++)
    if ((int64_t)primes[i] <= cap && (avoid == 0 || (uint64_t)avoid % primes[i] != 0))
      m = primes[i];
  return m;
}

static uint64_t base_residue(const struct cb_pattern *p, uint64_t index) {
  uint64_t m = p->modulus;
  return ((index % m) * MUL_INDEX + (p->seed % m) * MUL_SEED) % m;
}

static int64_t value_from_base(const struct cb_pattern *p, uint64_t base, int rank) {
  uint64_t m = p->modulus;
  return 1 + (int64_t)((base + ((uint64_t)rank % m) * (MUL_RANK % m)) % m);
}

static int build_tables(struct cb_pattern *p, struct cb_error *err) {
  const struct cb_dtype *t = &cb_dtypes[p->dtype];
  uint64_t m = p->modulus;
  p->value_bytes = malloc((m + 1) * t->size);
  p->reduced_bytes = malloc(m * t->size);
  if (!p->value_bytes || !p->reduced_bytes)
    return cb_fail(err, CB_RUNTIME, "out of memory for the check pattern");
  for (uint64_t v = 0; v <= m; v++)
    t->store(p->value_bytes, v, (int64_t)v);
  for (uint64_t b = 0; b < m; b++)
    t->store(p->reduced_bytes, b, p->reduced ? p->reduced[b] : 2 /* prod */);
  return CB_OK;
}

int cb_pattern_init(struct cb_pattern *p, int dtype, int redop, int nranks, uint64_t seed,
                    struct cb_error *err) {
  memset(p, 0, sizeof *p);
  p->dtype = dtype;
  p->redop = redop;
  p->nranks = nranks;
  p->seed = seed;
  int64_t limit = cb_dtypes[dtype].exact_limit;
  int64_t cap = limit < 131071 ? limit : 131071;
  if (redop == CB_PROD) {
    /* Exactly one rank holds a 2 at each element: the product is 2 for any
     * rank count and dtype, and its position moves with rank and seed. */
    p->modulus = 2;
    return build_tables(p, err);
  }
  /* Float sums must stay exact: n values <= cap sum to at most limit.
   * Integer sums stay under the type's maximum too while that leaves 5 or
   * more distinct values: MPI leaves signed overflow to the library, and
   * Open MPI 4.1's AVX reductions saturate int8 sums (100 + 100 = 127;
   * open-mpi/ompi#8045) where NCCL wraps. Past that (int8 from 25 ranks)
   * they wrap exactly like NCCL's and most MPIs' arithmetic: a cap there
   * shrank int8's modulus to 1 from 64 ranks on (every element the same,
   * so shifted or stale results passed). */
  int wraps = dtype == CB_INT8 || dtype == CB_INT32 || dtype == CB_INT64;
  if (redop == CB_SUM && limit / nranks < cap &&
      (!wraps || pick_modulus(limit / nranks, nranks) >= 5))
    cap = limit / nranks;
  if (redop != CB_NOREDOP && REDUCE_WORK_LIMIT / nranks < cap)
    cap = REDUCE_WORK_LIMIT / nranks;
  /* Over a multiple of m ranks every residue appears equally often, so
   * the sum would be the same at every element: avoid such moduli. */
  p->modulus = pick_modulus(cap, redop == CB_SUM ? nranks : 0);
  if (redop != CB_NOREDOP) {
    p->reduced = malloc(p->modulus * sizeof *p->reduced);
    if (!p->reduced)
      return cb_fail(err, CB_RUNTIME, "out of memory for the check pattern");
    for (uint64_t base = 0; base < p->modulus; base++) {
      uint64_t acc = (uint64_t)value_from_base(p, base, 0); /* wraps like ints */
      for (int r = 1; r < nranks; r++) {
        int64_t v = value_from_base(p, base, r);
        switch (redop) {
        case CB_SUM: acc += (uint64_t)v; break;
        case CB_MIN: acc = (int64_t)acc < v ? acc : (uint64_t)v; break;
        case CB_MAX: acc = (int64_t)acc > v ? acc : (uint64_t)v; break;
        default: break;
        }
      }
      p->reduced[base] = (int64_t)acc;
    }
  }
  return build_tables(p, err);
}

void cb_pattern_free(struct cb_pattern *p) {
  free(p->reduced);
  free(p->value_bytes);
  free(p->reduced_bytes);
  p->reduced = NULL;
  p->value_bytes = p->reduced_bytes = NULL;
}

struct cb_pattern cb_pattern_reseeded(const struct cb_pattern *p, uint64_t seed) {
  struct cb_pattern q = *p;
  q.seed = seed;
  return q;
}

int64_t cb_pattern_value(const struct cb_pattern *p, int rank, uint64_t index) {
  if (p->redop == CB_PROD)
    return (uint64_t)rank == (index + p->seed) % (uint64_t)p->nranks ? 2 : 1;
  return value_from_base(p, base_residue(p, index), rank);
}

int64_t cb_pattern_reduced(const struct cb_pattern *p, uint64_t index) {
  if (p->redop == CB_PROD)
    return 2;
  return p->reduced[base_residue(p, index)];
}

size_t cb_pattern_esize(const struct cb_pattern *p) {
  return cb_dtypes[p->dtype].size;
}

/* Fixed-size copies and compares compile to single moves. */
static inline void put(unsigned char *dst, const unsigned char *src, size_t size) {
  switch (size) {
  case 1: *dst = *src; break;
  case 2: memcpy(dst, src, 2); break;
  case 4: memcpy(dst, src, 4); break;
  default: memcpy(dst, src, 8); break;
  }
}

static inline int differs(const unsigned char *a, const unsigned char *b, size_t size) {
  switch (size) {
  case 1: return *a != *b;
  case 2: return memcmp(a, b, 2) != 0;
  case 4: return memcmp(a, b, 4) != 0;
  default: return memcmp(a, b, 8) != 0;
  }
}

/* Walks value(rank, first + k) for k < n: consecutive indexes step the
 * value through 1..m (prod: the rank holding the 2 steps through ranks). */
#define WALK_VALUES(p, rank, first, n, body)                                                       \
  do {                                                                                             \
    if ((p)->redop == CB_PROD) {                                                                   \
      uint64_t holder = ((first) + (p)->seed) % (uint64_t)(p)->nranks;                             \
      for (size_t k = 0; k < (n); k++) {                                                           \
        uint64_t v = holder == (uint64_t)(rank) ? 2 : 1;                                           \
        body;                                                                                      \
        holder = holder + 1 == (uint64_t)(p)->nranks ? 0 : holder + 1;                             \
      }                                                                                            \
    } else {                                                                                       \
      uint64_t v = (uint64_t)cb_pattern_value((p), (rank), (first));                               \
      for (size_t k = 0; k < (n); k++) {                                                           \
        body;                                                                                      \
        v = v == (p)->modulus ? 1 : v + 1;                                                         \
      }                                                                                            \
    }                                                                                              \
  } while (0)

void cb_pattern_fill(const struct cb_pattern *p, void *buf, int rank, uint64_t first, size_t n) {
  size_t size = cb_pattern_esize(p);
  unsigned char *out = buf;
  WALK_VALUES(p, rank, first, n, put(out + k * size, p->value_bytes + v * size, size));
}

size_t cb_pattern_count_wrong(const struct cb_pattern *p, const void *buf, int rank, uint64_t first,
                              size_t n) {
  size_t size = cb_pattern_esize(p), wrong = 0;
  const unsigned char *in = buf;
  WALK_VALUES(p, rank, first, n,
              wrong += (size_t)differs(in + k * size, p->value_bytes + v * size, size));
  return wrong;
}

size_t cb_pattern_count_wrong_reduced(const struct cb_pattern *p, const void *buf, uint64_t first,
                                      size_t n) {
  size_t size = cb_pattern_esize(p), wrong = 0;
  const unsigned char *in = buf;
  if (p->redop == CB_PROD) { /* every element is 2 */
    for (size_t k = 0; k < n; k++)
      wrong += (size_t)differs(in + k * size, p->reduced_bytes, size);
    return wrong;
  }
  uint64_t base = base_residue(p, first);
  for (size_t k = 0; k < n; k++) {
    wrong += (size_t)differs(in + k * size, p->reduced_bytes + base * size, size);
    base = base + 1 == p->modulus ? 0 : base + 1;
  }
  return wrong;
}

void cb_pattern_poison(int dtype, void *buf, size_t n) {
  const struct cb_dtype *t = &cb_dtypes[dtype];
  unsigned char minus_one[8];
  t->store(minus_one, 0, -1);
  for (size_t k = 0; k < n; k++)
    put((unsigned char *)buf + k * t->size, minus_one, t->size);
}
