/* --tune --parallel L [--shard S]: the reference step as a tp/ep/dp/pp
 * layout issues it (layout.h), on the host: searched by coordinate descent
 * (unless --no-search) over the DDP/ZeRO-2 bucket (--tune-buckets) or
 * FSDP's prefetch depth (0-3), then each communicator's own Open MPI libnbc
 * algorithms; the launch settings and the tuned ones measured again
 * interleaved, with the exposed communication of each dimension and the
 * overhead's three-way verdict; --env-out says what one process-wide value
 * cannot. On a GPU (--backend nccl, or by default where one is usable)
 * the step runs NCCL and cuBLAS (layout_nccl.c) and the search turns each
 * communicator's NCCL (algorithm, protocol) pair per collective;
 * --env-out writes the per-collective NCCL_ALGO/NCCL_PROTO the
 * communicators agree on and --plugin-out a tuner-plugin rule per
 * communicator (layout_rules.h). */
#ifndef CB_TUNE_LAYOUT_H
#define CB_TUNE_LAYOUT_H

#include "options.h"
#include "runtime/cluster.h"

struct cb_settings;
int cb_tune_layout(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                   const struct cb_settings *s, struct cb_error *err);

#endif
