/* A check judged against its tier's ceiling. */
#ifndef CB_ACCEPT_CEILING_H
#define CB_ACCEPT_CEILING_H

#include "verdicts.h"
#include <stddef.h>

/* A check with a `ceiling` (its tier's bandwidth) judged against it: FAIL
 * under its ceiling_fraction, WARN over the ceiling, else PASS; the verdict
 * says the share of the ceiling measured. rec NULL: not measured. Pure. */
void cb_ceiling_judge(const struct cb_accept_spec *t, const struct cb_check *c,
                      const struct cb_record *rec, char *name, size_t name_size,
                      struct cb_verdict *v);

#endif
