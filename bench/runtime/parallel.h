/* --parallel tp=T,ep=E,dp=D,pp=P: how a training job lays its ranks out,
 * as Megatron places them: tp innermost (consecutive ranks, inside a node),
 * then ep, dp, pp outermost, so
 *   rank = tp + T * (ep + E * (dp + D * pp)).
 * A dimension's group is the ranks that differ only in its index; each rank
 * is in one group of every dimension, and the groups of a dimension are its
 * communicators (split from the world, one per group). */
#ifndef CB_PARALLEL_H
#define CB_PARALLEL_H

#include <stddef.h>

#include "base/error.h"

enum cb_dim { CB_DIM_TP, CB_DIM_EP, CB_DIM_DP, CB_DIM_PP, CB_NDIMS };
extern const char *const cb_dim_names[CB_NDIMS];
int cb_dim_lookup(const char *name); /* -1 when unknown */

struct cb_parallel {
  int size[CB_NDIMS]; /* 1 where not given */
};

/* "tp=2,dp=2": each key at most once, each size at least 1; CB_USAGE naming
 * the bad item. The product is checked against the job by cb_parallel_fit. */
int cb_parallel_parse(const char *text, struct cb_parallel *p, struct cb_error *err);
/* "tp=2,dp=2": the dimensions larger than 1, innermost first ("dp=1" when
 * there are none), for records and messages. */
void cb_parallel_format(const struct cb_parallel *p, char *buf, size_t len);

/* Whether the layout fits a job of nranks whose rank r sits on node
 * node_of_rank[r]: the product is the rank count, and every tp and every ep
 * group lies within one node. CB_USAGE naming the value and what would fit. */
int cb_parallel_fit(const struct cb_parallel *p, int nranks, const int *node_of_rank,
                    struct cb_error *err);

/* Rank r's index along dim, its group's number among dim's groups (the
 * color to split by), and the world rank of member k of that group. */
int cb_parallel_index(const struct cb_parallel *p, int rank, int dim);
int cb_parallel_group(const struct cb_parallel *p, int rank, int dim);
int cb_parallel_member(const struct cb_parallel *p, int rank, int dim, int k);

#endif
