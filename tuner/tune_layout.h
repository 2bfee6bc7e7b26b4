/* --tune --parallel L [--shard S]: the reference step as a tp/ep/dp/pp
 * layout issues it (layout.h), timed at the launch settings on the host,
 * with the exposed communication of each dimension and the overhead's
 * three-way verdict. Not built yet: the per-communicator search (each
 * dimension its own algorithm), the GPU step. */
#ifndef CB_TUNE_LAYOUT_H
#define CB_TUNE_LAYOUT_H

#include "options.h"
#include "runtime/cluster.h"

int cb_tune_layout(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                   struct cb_error *err);

#endif
