/* The path NCCL actually used, read from its own INFO log (NCCL_DEBUG=INFO,
 * NCCL_DEBUG_SUBSYS including INIT and GRAPH): "Channel 00/0 : 0[0] ->
 * 1[0] via P2P/CUMEM" lines say which transport each connection took, the
 * GRAPH "Pattern ..., type NVL/PIX" line says whether peer-to-peer runs
 * over NVLink or PCIe. Pure text processing, so it is tested on real logs. */
#ifndef CB_NCCL_LOG_H
#define CB_NCCL_LOG_H

#include <stddef.h>

/* Writes the distinct paths `text` shows, joined by '+', in a fixed order:
 * nvlink, pcie, p2p (link unknown), shm, net-ib, net-roce, net-socket,
 * net (another plugin), collnet. Empty when the log shows no connection
 * (one rank, or the log was not written). */
void cb_nccl_log_paths(const char *text, char *label, size_t len);

#endif
