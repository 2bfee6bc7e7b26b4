/* One node's copy matrix as measured (timing.c, with CUDA events): its
 * cells, and what measures them. */
#ifndef CB_COPY_TIMING_H
#define CB_COPY_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

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
  char sm_why[200]; /* not empty: the SM copy kernel cannot run here, and why */
  int ngpus, ncells;
  struct cb_copy_cell cells[CB_COPY_MAX_CELLS];
};

/* This node's GPUs, or 0 and why not ("cudaGetDeviceCount: ..."); the
 * smallest GPU memory in *min_mem. */
int cb_copy_gpus(uint64_t *min_mem, char *why, size_t len);

/* Measures this node (CUDA); fills `out`. */
int cb_copy_measure(uint64_t bytes, struct cb_copy_node *out, struct cb_error *err);

#endif
