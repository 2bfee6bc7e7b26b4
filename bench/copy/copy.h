/* The copy matrix (--op copy): on every node, local rank 0 (which sees all
 * the node's GPUs) times copies between every GPU pair, by copy engine and
 * by SM kernel, one way and both ways at once, and between pinned host
 * memory and each GPU. The cells go to the sinks' pair method, labelled
 * with the matrix kind and the link (NVLink, PCIe, host, local). */
#ifndef CB_COPY_H
#define CB_COPY_H

#include <stdint.h>

#include "core/cluster.h"
#include "../output/sink.h"
#include "core/runinfo.h"
#include "core/settings.h"

#define CB_COPY_MAX_GPUS 16
#define CB_COPY_REPS 5 /* timed copies per cell; the median is reported */
#define CB_COPY_MAX_CELLS (4 * CB_COPY_MAX_GPUS * CB_COPY_MAX_GPUS + 2 * CB_COPY_MAX_GPUS)

struct cb_copy_cell {
  char matrix[16]; /* copy_ce, copy_ce_bidir, copy_sm, copy_sm_bidir, copy_h2d, copy_d2h */
  char link[8];    /* NVLink, PCIe, host, local */
  int src, dst;    /* GPU indices; -1 is pinned host memory */
  double GBps;     /* bytes moved (both directions for _bidir) / median time, 1e9 B/s */
  long wrong;      /* bytes of the destination that differ from the source */
};

/* What one node measured; travels to rank 0 as bytes. */
struct cb_copy_node {
  int status; /* CB_OK or the error that stopped this node */
  char why[512];
  int ngpus, ncells;
  struct cb_copy_cell cells[CB_COPY_MAX_CELLS];
};

/* A usage error (2) on every rank when some node has no GPU, or when the
 * buffers (two of --max-bytes per GPU) cannot fit; before any output. */
int cb_copy_validate(const struct cb_cluster *cl, const struct cb_settings *s,
                     struct cb_error *err);

/* Runs the matrix on every node and feeds the sinks on rank 0; wrong
 * bytes are counted in sum->wrong. */
int cb_copy_run(const struct cb_cluster *cl, const struct cb_settings *s,
                const struct cb_run_info *ri, struct cb_sink *sinks, int nsinks,
                struct cb_summary *sum, struct cb_error *err);

/* This node's GPUs, or 0 and why not ("cudaGetDeviceCount: ..."); the
 * smallest GPU memory in *min_mem. */
int cb_copy_gpus(uint64_t *min_mem, char *why, size_t len);

/* Measures this node (CUDA); fills `out`. */
int cb_copy_measure(uint64_t bytes, struct cb_copy_node *out, struct cb_error *err);

/* The link between two GPUs. With NVML: NVLink when an active link joins
 * them directly or both have active links to NVSwitches, else PCIe.
 * Without NVML: NVLink when peer access is possible and peer atomics are
 * native (PCIe peers lack them), else PCIe. "local" for one GPU. */
const char *cb_copy_link(int same_gpu, int nvml_known, int nvlink_direct, int both_on_switch,
                         int p2p_access, int native_atomics);

#endif
