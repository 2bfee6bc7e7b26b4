#include "space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

const char *const cb_algorithm_names[CB_NALGORITHMS] = {
    "default decision", "basic linear", "nonoverlapping", "recursive doubling", "ring",
    "segmented ring",   "rabenseifner",
};

int cb_config_equal(const struct cb_tune_config *a, const struct cb_tune_config *b) {
  return a->algorithm == b->algorithm && a->segsize == b->segsize &&
         a->bucket_bytes == b->bucket_bytes;
}

int cb_config_valid(const struct cb_tune_config *c) {
  return c->segsize == 0 || c->algorithm == CB_SEGMENTED_RING;
}

const char *cb_config_format(const struct cb_tune_config *c, char *buf, size_t len) {
  char seg[32], bucket[32];
  cb_format_size(c->bucket_bytes, bucket, sizeof bucket);
  if (c->algorithm < 0)
    snprintf(buf, len, "algorithm (library's) bucket %s", bucket);
  else if (c->segsize)
    snprintf(buf, len, "algorithm %d (%s) segsize %s bucket %s", c->algorithm,
             cb_algorithm_names[c->algorithm],
             cb_format_size((uint64_t)c->segsize, seg, sizeof seg), bucket);
  else
    snprintf(buf, len, "algorithm %d (%s) bucket %s", c->algorithm,
             c->algorithm < CB_NALGORITHMS ? cb_algorithm_names[c->algorithm] : "?", bucket);
  return buf;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

void cb_space_cap_buckets(struct cb_space *s, uint64_t grad_bytes) {
  for (int i = 0; i < s->nbuckets; i++)
    if (s->buckets[i] > grad_bytes)
      s->buckets[i] = grad_bytes;
  qsort(s->buckets, (size_t)s->nbuckets, sizeof s->buckets[0], cmp_u64);
  int n = 0;
  for (int i = 0; i < s->nbuckets; i++)
    if (n == 0 || s->buckets[i] != s->buckets[n - 1])
      s->buckets[n++] = s->buckets[i];
  s->nbuckets = n;
}

int cb_space_grid(const struct cb_space *s, struct cb_tune_config *out) {
  int n = 0;
  int nalg = s->nalgorithms ? s->nalgorithms : 1;
  for (int a = 0; a < nalg; a++) {
    int alg = s->nalgorithms ? s->algorithms[a] : -1;
    int nseg = alg == CB_SEGMENTED_RING ? s->nsegments : 1;
    for (int g = 0; g < nseg; g++)
      for (int b = 0; b < s->nbuckets; b++) {
        struct cb_tune_config c = {alg, alg == CB_SEGMENTED_RING ? s->segments[g] : 0,
                                   s->buckets[b]};
        if (out)
          out[n] = c;
        n++;
      }
  }
  return n;
}

int cb_space_parse_algorithms(const char *arg, struct cb_space *s, struct cb_error *err) {
  char copy[256], *save = NULL;
  if (snprintf(copy, sizeof copy, "%s", arg) >= (int)sizeof copy)
    return cb_fail(err, CB_USAGE, "--tune-algorithms: '%s' is too long", arg);
  s->nalgorithms = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    long v;
    char *end;
    v = strtol(tok, &end, 10);
    if (*tok < '0' || *tok > '9' || *end || v < 0 || v >= CB_NALGORITHMS)
      return cb_fail(err, CB_USAGE,
                     "--tune-algorithms: '%s' is not an allreduce algorithm 0-6 of coll/tuned",
                     tok);
    int seen = 0;
    for (int i = 0; i < s->nalgorithms; i++)
      seen |= s->algorithms[i] == (int)v;
    if (!seen)
      s->algorithms[s->nalgorithms++] = (int)v;
  }
  if (s->nalgorithms == 0)
    return cb_fail(err, CB_USAGE, "--tune-algorithms: empty list '%s'", arg);
  return CB_OK;
}

int cb_space_parse_sizes(const char *arg, const char *what, uint64_t *out, int *n,
                         struct cb_error *err) {
  /* MPI counts and segment sizes are ints */
  return cb_parse_size_list(arg, what, 1ull << 30, out, CB_SPACE_MAX, n, err);
}

void cb_space_defaults(struct cb_space *s) {
  memset(s, 0, sizeof *s);
  for (int a = 0; a < CB_NALGORITHMS; a++)
    s->algorithms[s->nalgorithms++] = a;
  static const long segs[] = {16 << 10, 64 << 10, 256 << 10, 1 << 20};
  for (size_t i = 0; i < sizeof segs / sizeof segs[0]; i++)
    s->segments[s->nsegments++] = segs[i];
  for (uint64_t b = 1 << 20; b <= 256u << 20; b *= 2) /* 1 MiB .. 256 MiB */
    s->buckets[s->nbuckets++] = b;
}
