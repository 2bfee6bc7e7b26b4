/* --import-nccl-tests: the mode main() hands over to; prints its own
 * errors and returns the exit status. */
#ifndef CB_IMPORT_RUN_H
#define CB_IMPORT_RUN_H

#include "modes/cli.h"

int cb_import_run(const struct cb_import_cli *c);

#endif
