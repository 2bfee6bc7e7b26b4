/* --tune --parallel L [--shard S]: the reference step as a tp/ep/dp/pp
 * layout issues it (layout.h), on the host: searched by coordinate descent
 * (unless --no-search) over the DDP/ZeRO-2 bucket (--tune-buckets) or
 * FSDP's prefetch depth (0-3), then each communicator's own Open MPI libnbc
 * algorithms; the launch settings and the tuned ones measured again
 * interleaved, with the exposed communication of each dimension and the
 * overhead's three-way verdict; --env-out says what one process-wide value
 * cannot. On a GPU (--backend nccl, or by default where one is usable)
 * the step runs NCCL and cuBLAS (layout_nccl.c); NCCL's algorithm per
 * communicator is not searched yet. */
#ifndef CB_TUNE_LAYOUT_H
#define CB_TUNE_LAYOUT_H

#include "options.h"
#include "runtime/cluster.h"

struct cb_settings;
int cb_tune_layout(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                   const struct cb_settings *s, struct cb_error *err);

#endif
