/* The RDMA ports' and GPUs' error counters (issue 41 item 2), read on
 * every node before and after each acceptance check so a slow link comes
 * with what rose while it was measured ("mlx5_2 port 1: symbol_error
 * +412", "GPU 0000:1b:00.0: xid_79 +1"). RDMA ports through base/sysfs.h:
 * /sys/class/infiniband/DEV/ports/N/counters (the InfiniBand PortCounters
 * errors) and every file of hw_counters; GPUs through NVML (nvml.h), as
 * port 0 of "GPU BUS-ID". */
#ifndef CB_PROBE_COUNTERS_H
#define CB_PROBE_COUNTERS_H

#include <stdint.h>

#include "node.h"
#include "runtime/cluster.h"

/* This node's counters now. */
void cb_counters_read(struct cb_counters *out);
/* Every node's counters, in node order, on rank 0 (local rank 0 of each
 * node reads; all[] has cl->nnodes entries on rank 0). Collective. */
int cb_counters_gather(const struct cb_cluster *cl, struct cb_counters *all);
/* What rose from before to after (a counter absent before counts from 0;
 * one that went down was reset: not counted); returns how many rose. Pure. */
int cb_counters_delta(const struct cb_counters *before, const struct cb_counters *after,
                      struct cb_counters *rose);

#endif
