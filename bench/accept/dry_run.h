/* --accept FILE --dry-run: what every check will be judged against, read
 * from the file alone (no MPI, nothing measured): absolute levels, the
 * references measured at run time, and the model's figures with their pick
 * and band, so "what should this cluster deliver?" is answered before the
 * first run. */
#ifndef CB_ACCEPT_DRY_RUN_H
#define CB_ACCEPT_DRY_RUN_H

#include <stdio.h>

#include "spec.h"

/* Prints the plan to out. ranks > 0: the model's figures at that many
 * ranks on `nodes` nodes, else at the file's [system] scale. Returns
 * CB_OK, or CB_USAGE where a model level has no answer (as --accept would
 * refuse it). */
int cb_accept_dry_run(const struct cb_accept_spec *t, int ranks, int nodes, FILE *out,
                      struct cb_error *err);

#endif
