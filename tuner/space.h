/* What the host tuner searches: Open MPI coll/tuned allreduce algorithm x
 * segment size x bucket size, and the grid of valid combinations. Pure. */
#ifndef CB_SPACE_H
#define CB_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define CB_SPACE_MAX 32
/* coll/tuned's segmented ring: the only allreduce algorithm that reads the
 * segment size, so the segment dimension is pruned for every other one. */
#define CB_SEGMENTED_RING 5
#define CB_NALGORITHMS 7 /* 0 = Open MPI's own decision, 1..6 forced */

struct cb_tune_config {
  int algorithm; /* -1: not tunable here (MPICH): left as the library decides */
  long segsize;  /* bytes; 0 = the algorithm's default */
  uint64_t bucket_bytes;
};

struct cb_space {
  int algorithms[CB_SPACE_MAX], nalgorithms; /* 0: the MPI has no coll/tuned */
  long segments[CB_SPACE_MAX];
  int nsegments;
  uint64_t buckets[CB_SPACE_MAX];
  int nbuckets;
};

extern const char *const cb_algorithm_names[CB_NALGORITHMS];

int cb_config_equal(const struct cb_tune_config *a, const struct cb_tune_config *b);
/* "algorithm 5 (segmented ring) segsize 64 KiB bucket 4 MiB" */
const char *cb_config_format(const struct cb_tune_config *c, char *buf, size_t len);
/* Whether a combination is worth measuring (segment size only for 5). */
int cb_config_valid(const struct cb_tune_config *c);

/* Caps the buckets at the model's gradient bytes (a bucket larger than
 * every gradient is one bucket), keeps them ascending and distinct. */
void cb_space_cap_buckets(struct cb_space *s, uint64_t grad_bytes);
/* The valid grid; returns its size (out may be NULL to count). */
int cb_space_grid(const struct cb_space *s, struct cb_tune_config *out);

/* Comma lists for the options: algorithms 0-6, sizes with suffixes. */
int cb_space_parse_algorithms(const char *arg, struct cb_space *s, struct cb_error *err);
int cb_space_parse_sizes(const char *arg, const char *what, uint64_t *out, int *n,
                         struct cb_error *err);
void cb_space_defaults(struct cb_space *s);

#endif
