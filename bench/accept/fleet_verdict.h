/* Checks and the matrix judged against a fleet baseline. */
#ifndef CB_ACCEPT_FLEET_VERDICT_H
#define CB_ACCEPT_FLEET_VERDICT_H

#include "verdicts.h"

/* One figure against a distribution: status, the fail level (where z = -k)
 * and margin in v, the reasons appended to v->what. Pure. */
void cb_fleet_verdict(const struct cb_fleet *f, const struct cb_dist *d, int metric,
                      double measured, struct cb_verdict *v);

/* A check's record (NULL: not measured) against its baseline entry; name
 * is storage for the verdict's name ("fleet NAME"). */
void cb_fleet_judge_check(const struct cb_fleet *f, const struct cb_check *c,
                          const struct cb_record *rec, char *name, size_t name_size,
                          struct cb_verdict *v);

/* Whether a check's record is slower than the rule allows (to re-measure). */
int cb_fleet_suspect(const struct cb_fleet *f, const struct cb_check *c,
                     const struct cb_record *rec);

/* The matrix's pairs (rank 0 captured them) and the nodes' median pair
 * bandwidth against the fleet's pooled pair and node entries: a verdict per
 * node, one per slow link, or one PASS for all links. */
int cb_fleet_judge_pairs(const struct cb_cluster *cl, const struct cb_fleet *f,
                         const struct cb_pair *pairs, int npairs, struct cb_sink *sinks, int nsinks,
                         struct cb_accept_result *res, struct cb_error *err);

#endif
