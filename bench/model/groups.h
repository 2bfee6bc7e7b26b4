/* Measured points grouped for fitting: one group per op, labels and link
 * tier. Shared by the model's front end and the report. */
#ifndef CB_MODEL_GROUPS_H
#define CB_MODEL_GROUPS_H

#include "../report/report.h"
#include "model.h"

struct cb_fit_group {
  int op, tier, inplace;
  const char *backend, *mem, *transport, *dtype, *redop; /* owned by the cb_rep_data */
  struct cb_fit_point *pts;
  int npts, cap;
  int ranks[16], nranks; /* the rank counts seen, for the tables */
  int fitted;            /* 0: the points could not separate alpha from beta */
  struct cb_fit fit;
};

struct cb_fit_groups {
  struct cb_fit_group *g;
  int n, cap;
};

/* Adds the collectives of d (only ops with want[op] set, or all when want
 * is NULL; only the series of one file, or all when file < 0). */
void cb_fit_groups_add(struct cb_fit_groups *gs, const struct cb_rep_data *d, const int *want,
                       int file);
void cb_fit_groups_fit(struct cb_fit_groups *gs);
/* The fitted group with the labels of series s at a tier, or NULL. */
const struct cb_fit_group *cb_fit_groups_match(const struct cb_fit_groups *gs,
                                               const struct cb_rep_series *s, int tier);
/* The group predictions use for op at tier: out of place first, then the
 * most points; NULL when none was fitted. */
const struct cb_fit_group *cb_fit_groups_pick(const struct cb_fit_groups *gs, int op, int tier);
void cb_fit_groups_free(struct cb_fit_groups *gs);
/* One op's tiers for predictions: the topology's (topo may be NULL),
 * replaced by fitted ones where the fit has them; from[k] says where tier
 * k came from, for tables and chart titles. ranks_per_node is left alone. */
void cb_fit_system(const struct cb_fit_groups *gs, const struct cb_topology *topo, int op,
                   struct cb_system *s, char from[CB_NTIERS][200]);

static inline int cb_point_tier(const struct cb_record *r) {
  return r->nnodes > 1 ? CB_TIER_INTER : CB_TIER_INTRA;
}

#endif
