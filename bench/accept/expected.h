/* What the performance model expects of an acceptance check, for its
 * "80% model" levels: NCCL's own cost model (uncalibrated) for an nccl
 * check on a GPU system, with the band its class of system has in
 * published figures; the alpha-beta model on the file's tiers for a check
 * on a system without GPUs. A check the model cannot answer for is the
 * file's mistake: refused, never judged against a guess. */
#ifndef CB_ACCEPT_EXPECTED_H
#define CB_ACCEPT_EXPECTED_H

#include <stddef.h>

#include "base/error.h"
#include "results/verdict.h"
#include "spec.h"

/* Whether the check has a level relative to the model. */
int cb_check_uses_model(const struct cb_check *c);

/* The model's figure for check c at `ranks` ranks on `nodes` nodes, in the
 * verdict's unit (GB/s or us). Returns 0, or -1 with why[] the model
 * cannot say. */
int cb_expected_of(const struct cb_accept_spec *t, const struct cb_check *c, int ranks, int nodes,
                   struct cb_expected *e, char *why, size_t len);
/* The same for a check's model level: CB_OK, or CB_USAGE naming the file,
 * the level's line and key, and why. */
int cb_expected_for(const struct cb_accept_spec *t, const struct cb_check *c, int ranks, int nodes,
                    struct cb_expected *e, struct cb_error *err);

/* The scale a file describes, for --dry-run: its nodes (1 when not
 * stated) and ranks_per_node on each. */
void cb_expected_scale(const struct cb_accept_spec *t, int *ranks, int *nodes);

/* A threshold in the verdict's unit, given the references measured (bytes/s)
 * and the model's figure e (NULL: none); NaN when not set. */
double cb_level_value(const struct cb_check *c, const struct cb_threshold *th, const double *refs,
                      const struct cb_expected *e);

#endif
