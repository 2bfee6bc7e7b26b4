/* The copy matrix (--op copy): on every node, local rank 0 (which sees all
 * the node's GPUs) times copies between every GPU pair, by copy engine and
 * by SM kernel, one way and both ways at once, and between pinned host
 * memory and each GPU. The cells go to the sinks' pair method, labelled
 * with the matrix kind and the link (NVLink, PCIe, host, local). */
#ifndef CB_COPY_H
#define CB_COPY_H

#include <stdint.h>

#include "../output/sink.h"
#include "output/runinfo.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"
#include "timing.h"

/* A usage error (2) on every rank when some node has no GPU, or when the
 * buffers (two of --max-bytes per GPU) cannot fit; before any output. */
int cb_copy_validate(const struct cb_cluster *cl, const struct cb_settings *s,
                     struct cb_error *err);

/* Runs the matrix on every node and feeds the sinks on rank 0; wrong
 * bytes are counted in sum->wrong. */
int cb_copy_run(const struct cb_cluster *cl, const struct cb_settings *s,
                const struct cb_run_info *ri, struct cb_sink *sinks, int nsinks,
                struct cb_summary *sum, struct cb_error *err);

#endif
