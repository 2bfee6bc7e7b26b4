/* The path NCCL actually used, read from its own INFO log (NCCL_DEBUG=INFO,
 * NCCL_DEBUG_SUBSYS including INIT and GRAPH): "Channel 00/0 : 0[0] ->
 * 1[0] via P2P/CUMEM" lines say which transport each connection took, the
 * GRAPH "Pattern ..., type NVL/PIX" line says whether peer-to-peer runs
 * over NVLink or PCIe. Pure text processing, so it is tested on real logs. */
#ifndef CB_NCCL_LOG_H
#define CB_NCCL_LOG_H

#include <stddef.h>
#include <stdint.h>

/* Writes the distinct paths `text` shows, joined by '+', in a fixed order:
 * nvlink, nvls (NVLink SHARP: a "NVLS comm" line), pcie, p2p (link
 * unknown), shm, net-ib, net-roce, net-socket, net (another plugin),
 * collnet. Empty when the log shows no connection
 * (one rank, or the log was not written). */
void cb_nccl_log_paths(const char *text, char *label, size_t len);

/* The algorithm and protocol NCCL chose for collective `func` (NCCL's
 * name: "AllReduce", "AllGather", "ReduceScatter", "Broadcast") at `bytes`
 * (NCCL's count x type size: one rank's block), from the TUNING lines rank
 * 0 writes for every call (NCCL 2.28 src/enqueue.cc):
 *   "... NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE
 *    channel{Lo..Hi}={0..1}"
 * Names are given as NCCL_ALGO / NCCL_PROTO spell them (Tree, Ring,
 * CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT; LL, LL128, Simple),
 * distinct choices joined by '+' in that order. A bare index in place of
 * a name is read as NCCL's enum order (a fallback, not seen in a real log). Empty when no line
 * matches. */
/* *channels: the most channels one such call ran on (Hi - Lo + 1); 0
 * when unknown. */
void cb_nccl_log_choice(const char *text, const char *func, uint64_t bytes, char *algo, size_t alen,
                        char *proto, size_t plen, int *channels);

/* How NCCL used the network (issue 41), from the NET plugin's device line
 * ("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ...", or
 * "NET/Socket : Using [0]eth0:...") and the connections ("... via
 * NET/IB/0/GDRDMA"): *nics, the devices the plugin listed (0: no such
 * line); *gdr, 1 when a network connection used GPUDirect RDMA, -1 when
 * network connections did and none used it, 0 when there were none. */
void cb_nccl_log_net(const char *text, int *nics, int *gdr);

/* NCCL's name for a collective op ("allreduce" -> "AllReduce"); NULL for
 * ops NCCL does not tune (point-to-point, alltoall by send/receive). */
const char *cb_nccl_func_name(const char *op);

#endif
