/* --parallel's layouts (parallel.h says how ranks are placed). */
#include "parallel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CB_PARALLEL_MAX_GROUP (1 << 20) /* ranks: more than any job */

const char *const cb_dim_names[CB_NDIMS] = {"tp", "ep", "dp", "pp"};

int cb_dim_lookup(const char *name) {
  for (int d = 0; d < CB_NDIMS; d++)
    if (strcmp(name, cb_dim_names[d]) == 0)
      return d;
  return -1;
}

int cb_parallel_parse(const char *text, struct cb_parallel *p, struct cb_error *err) {
  char copy[256];
  int seen[CB_NDIMS] = {0};
  for (int d = 0; d < CB_NDIMS; d++)
    p->size[d] = 1;
  if (snprintf(copy, sizeof copy, "%s", text) >= (int)sizeof copy)
    return cb_fail(err, CB_USAGE, "--parallel: '%.40s...' is too long", text);
  if (!copy[0])
    return cb_fail(err, CB_USAGE, "--parallel: empty; give e.g. tp=2,dp=2");
  if (copy[0] == ',' || strstr(copy, ",,") || copy[strlen(copy) - 1] == ',')
    return cb_fail(err, CB_USAGE, "--parallel %s: an empty item; give e.g. tp=2,dp=2", text);
  char *save = NULL;
  for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(item, '=');
    if (eq)
      *eq = '\0';
    int d = cb_dim_lookup(item);
    if (!eq || d < 0)
      return cb_fail(err, CB_USAGE,
                     "--parallel %s: '%s' is not DIM=N with DIM one of tp, ep, dp, pp", text, item);
    char *end;
    errno = 0;
    long n = strtol(eq + 1, &end, 10);
    if (end == eq + 1 || *end || errno || n < 1 || n > CB_PARALLEL_MAX_GROUP)
      return cb_fail(err, CB_USAGE, "--parallel %s: %s=%s is not a group size from 1 to %d", text,
                     item, eq + 1, CB_PARALLEL_MAX_GROUP);
    if (seen[d]++)
      return cb_fail(err, CB_USAGE, "--parallel %s: %s is given twice", text, item);
    p->size[d] = (int)n;
  }
  return CB_OK;
}

void cb_parallel_format(const struct cb_parallel *p, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (int d = 0; d < CB_NDIMS; d++)
    if (p->size[d] > 1 && at < len)
      at += (size_t)snprintf(buf + at, len - at, "%s%s=%d", at ? "," : "", cb_dim_names[d],
                             p->size[d]);
  if (!at)
    snprintf(buf, len, "dp=1");
}

/* Ranks spanned by one group of dim: its stride is the product of the
 * dimensions inside it. */
static int stride(const struct cb_parallel *p, int dim) {
  int s = 1;
  for (int d = 0; d < dim; d++)
    s *= p->size[d];
  return s;
}

int cb_parallel_index(const struct cb_parallel *p, int rank, int dim) {
  return rank / stride(p, dim) % p->size[dim];
}

int cb_parallel_member(const struct cb_parallel *p, int rank, int dim, int k) {
  return rank - cb_parallel_index(p, rank, dim) * stride(p, dim) + k * stride(p, dim);
}

int cb_parallel_group(const struct cb_parallel *p, int rank, int dim) {
  int inner = stride(p, dim); /* the ranks below dim's index, and those above it */
  return rank % inner + inner * (rank / (inner * p->size[dim]));
}

int cb_parallel_fit(const struct cb_parallel *p, int nranks, const int *node_of_rank,
                    struct cb_error *err) {
  char text[96];
  cb_parallel_format(p, text, sizeof text);
  long product = 1;
  for (int d = 0; d < CB_NDIMS; d++)
    product *= p->size[d];
  if (product != nranks)
    return cb_fail(err, CB_USAGE,
                   "--parallel %s: its groups hold %ld ranks, the job has %d; the sizes' "
                   "product must be the rank count",
                   text, product, nranks);
  int per_node = 0; /* the most ranks any node holds */
  for (int r = 0, run = 0; r < nranks; r++) {
    run = r && node_of_rank[r] == node_of_rank[r - 1] ? run + 1 : 1;
    per_node = run > per_node ? run : per_node;
  }
  const int inside[] = {CB_DIM_TP, CB_DIM_EP};
  for (int i = 0; i < 2; i++) {
    int d = inside[i];
    if (p->size[d] > per_node)
      return cb_fail(err, CB_USAGE,
                     "--parallel %s: %s=%d is larger than a node (%d ranks on the fullest); %s "
                     "runs inside a node, at most %s=%d here",
                     text, cb_dim_names[d], p->size[d], per_node, cb_dim_names[d], cb_dim_names[d],
                     per_node);
    for (int r = 0; r < nranks; r++)
      for (int k = 1; k < p->size[d]; k++) {
        int m = cb_parallel_member(p, r, d, k);
        if (node_of_rank[m] != node_of_rank[cb_parallel_member(p, r, d, 0)])
          return cb_fail(err, CB_USAGE,
                         "--parallel %s: the %s group of rank %d spans two nodes (ranks %d and "
                         "%d); place whole %s groups on each node",
                         text, cb_dim_names[d], r, cb_parallel_member(p, r, d, 0), m,
                         cb_dim_names[d]);
      }
  }
  return CB_OK;
}
