/* The memory copy reference of relative thresholds. */
#ifndef CB_ACCEPT_MEMBW_H
#define CB_ACCEPT_MEMBW_H

#include "runtime/cluster.h"

/* Memory copy bandwidth of this machine as the ranks see it: every rank
 * copies at once (the ranks share the memory system during the checks too),
 * best of several copies, median over ranks. The same value on every rank. */
int cb_membw_measure(const struct cb_cluster *cl, double *bytes_per_s, struct cb_error *err);

#endif
