/* The settings a run starts from before its options: nccl-tests-like, mpi
 * allreduce of float sum, 8 B to 64 MiB. Here, above the ops and backends
 * it names, not in runtime/settings.c, which they read. */
#ifndef CB_DEFAULTS_H
#define CB_DEFAULTS_H

#include "runtime/settings.h"

void cb_settings_defaults(struct cb_settings *s);

#endif
