/* --skew: how much each rank sends each other rank in an alltoallv, the
 * traffic of a mixture-of-experts layer's token dispatch. A row of size S
 * scales the matrix so the busiest sender sends S bytes in all:
 *   uniform   every pair the same (alltoallv = alltoall)
 *   zipf:E    rank j receives a share proportional to 1/(j+1)^E from every
 *             sender, as tokens crowd the popular experts: each rank sends
 *             S, the low ranks receive most
 *   FILE      a square matrix of bytes, cell [i][j] from rank i to rank j,
 *             whitespace-separated (nccl-tests 2.19's alltoallv matrix
 *             file); a larger one is cut to the first nranks rows and
 *             columns, as nccl-tests does. At S = the busiest row's sum the
 *             file's own bytes are sent.
 * Each sender's counts are whole elements that add up to its row's total
 * (largest remainders), computed alike on every rank. */
#ifndef CB_SKEW_H
#define CB_SKEW_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

enum cb_skew_kind { CB_SKEW_UNIFORM, CB_SKEW_ZIPF, CB_SKEW_FILE };

struct cb_skew {
  enum cb_skew_kind kind;
  double exponent; /* zipf */
  uint64_t *cells; /* file: dim x dim bytes, row-major */
  int dim;         /* file: its rows (= columns) */
  char label[96];  /* the record's "skew": "uniform", "zipf:1.2", "file:NAME" */
  /* cb_skew_bind's: the rank count and, per kind, the receive shares
   * (zipf) or the busiest row's sum (file) */
  int nranks;
  double *share;
  uint64_t max_row;
};

/* Parses SPEC (uniform, zipf:E with 0 <= E <= 10, or a file) into *k;
 * CB_USAGE naming the value, the row and column, or the file's problem. */
int cb_skew_parse(const char *spec, struct cb_skew *k, struct cb_error *err);

/* Fixes the rank count: CB_USAGE when a file has fewer rows than ranks or
 * its first nranks rows send nothing. Again with the same count: nothing. */
int cb_skew_bind(struct cb_skew *k, int nranks, struct cb_error *err);

void cb_skew_free(struct cb_skew *k);

/* Elements rank i sends each rank (counts[nranks]) when the busiest sender
 * sends `total`; -1 out of memory. Bound first; a NULL skew is uniform. */
int cb_skew_row(const struct cb_skew *k, int nranks, size_t total, int i, size_t *counts);

/* One rank's side of a row: counts and displacements, in elements, of what
 * it sends each peer and receives from each, and where its part starts in
 * each sender's stream (the check's offsets). Arrays of nranks. */
struct cb_skew_layout {
  size_t *send_counts, *send_displs, *recv_counts, *recv_displs, *src_offsets;
  size_t send_total, recv_total;
};
int cb_skew_layout_alloc(struct cb_skew_layout *l, int nranks);
int cb_skew_layout_fill(const struct cb_skew *k, int nranks, int rank, size_t total,
                        struct cb_skew_layout *l); /* -1: out of memory */
void cb_skew_layout_free(struct cb_skew_layout *l);

/* Over all ranks: the largest send and receive totals, in elements. */
int cb_skew_extremes(const struct cb_skew *k, int nranks, size_t total, size_t *max_send,
                     size_t *max_recv); /* -1: out of memory */

#endif
