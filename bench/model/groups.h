/* Measured points grouped for fitting: one group per op, labels, link
 * tier and recorded algorithm (results that record none form one group
 * with the ring's shape). Shared by the model's front end and the report. */
#ifndef CB_MODEL_GROUPS_H
#define CB_MODEL_GROUPS_H

#include "model.h"
#include "readback/readback.h"

struct cb_fit_group {
  int op, tier, inplace;
  int share_gpu; /* of --share-gpu runs: NCCL's network transport, each rank its own host */
  const char *backend, *mem, *transport, *dtype, *redop; /* owned by the cb_rep_data */
  char algo[32];  /* the algorithm the results recorded; "" none */
  char proto[16]; /* NCCL's protocol with NCCL's algorithm; "" none */
  int shape;      /* its enum cb_cost_shape, or -1 (fitted with the ring's) */
  struct cb_fit_point *pts;
  int npts, cap;
  int ranks[16], nranks; /* the rank counts seen, for the tables */
  int fitted;            /* 0: the points could not separate alpha from beta */
  int pooled;            /* 1: the "*" group's fit (too few points of its own) */
  struct cb_fit fit;
};

/* The algorithm name of a group fitted on all algorithms of one link. */
#define CB_ALL_ALGOS "*"

struct cb_fit_groups {
  struct cb_fit_group *g;
  int n, cap;
};

/* Adds the collectives of d (only ops with want[op] set, or all when want
 * is NULL; only the series of one file, or all when file < 0). */
void cb_fit_groups_add(struct cb_fit_groups *gs, const struct cb_rep_data *d, const int *want,
                       int file);
void cb_fit_groups_fit(struct cb_fit_groups *gs);
/* The fitted group with the labels of series s, the tier and algorithm
 * of its result r, or NULL. */
const struct cb_fit_group *cb_fit_groups_match(const struct cb_fit_groups *gs,
                                               const struct cb_rep_series *s,
                                               const struct cb_record *r);
/* The group's predicted time of result r, seconds. */
double cb_fit_group_time(const struct cb_fit_group *g, const struct cb_record *r);
/* 1 where that time is uncertain by a rendezvous race (cb_model_races),
 * with the smallest rendezvous size any fitted group of g's link (tier,
 * backend, transport) found: a group whose runs won the race found none. */
int cb_fit_group_races(const struct cb_fit_groups *gs, const struct cb_fit_group *g,
                       const struct cb_record *r);
/* The group predictions use for op at tier: out of place first, then the
 * most points; NULL when none was fitted. */
const struct cb_fit_group *cb_fit_groups_pick(const struct cb_fit_groups *gs, int op, int tier);
void cb_fit_groups_free(struct cb_fit_groups *gs);
/* The most ranks on one node any fitted point had (0: nothing fitted):
 * the ranks per node predictions assume when nothing else says. */
int cb_fit_groups_ranks_per_node(const struct cb_fit_groups *gs);
/* One op's tiers for predictions: the topology's (topo may be NULL),
 * replaced by fitted ones where the fit has them; from[k] says where tier
 * k came from, for tables and chart titles. ranks_per_node is left alone. */
void cb_fit_system(const struct cb_fit_groups *gs, const struct cb_topology *topo, int op,
                   struct cb_system *s, char from[CB_NTIERS][200]);

static inline int cb_point_tier(const struct cb_record *r) {
  return r->nnodes > 1 ? CB_TIER_INTER : CB_TIER_INTRA;
}

/* Prediction errors (predicted / measured - 1) summarised per op and
 * size, for --validate's and index.html's held-out tables. */
struct cb_err_point {
  int op;
  uint64_t bytes;
  double err;
};
struct cb_err_row {
  int op;
  uint64_t bytes;
  int points;
  double median_abs, max_abs, median; /* median: signed, says which way */
};
/* Sorts pts[0..n) by op, size and |error|, and writes one row per op and
 * size into rows (room for n); returns the number of rows. */
int cb_err_rows(struct cb_err_point *pts, int n, struct cb_err_row *rows);
/* The median of |e[0..n)| (n > 0); e becomes |e| in ascending order, so
 * e[n - 1] is the largest: every "median |error|" the model and the
 * report print (--validate, NCCL's check, the report's model tables). */
double cb_err_median_abs(double *e, int n);

/* The algorithm a result recorded: the library's (mpi), else NCCL's. */
static inline const char *cb_point_algo(const struct cb_record *r) {
  return r->algo[0] ? r->algo : r->nccl_algo;
}
/* NCCL's protocol, where the algorithm is NCCL's: a protocol has its own
 * latency and bandwidth (LL moves half the bytes per flag), so it is fitted
 * apart, as an algorithm is. */
static inline const char *cb_point_proto(const struct cb_record *r) {
  return r->algo[0] ? "" : r->nccl_proto;
}
/* "ring", "Ring/LL128", or "-" when nothing was recorded. */
const char *cb_fit_group_label(const struct cb_fit_group *g, char *buf, size_t len);

/* What --predict's step costs each bucket with: one entry per measured
 * size and rank count of each recorded algorithm of op's fitted groups,
 * with the labels of the groups predictions use (cb_fit_groups_pick), on
 * each tier; the fit of the algorithm's own group (or its pooled one).
 * Returns the count (0: nothing recorded; *out NULL) and the array,
 * which the caller frees. */
int cb_fit_groups_recorded(const struct cb_fit_groups *gs, int op, struct cb_recorded **out);

#endif
