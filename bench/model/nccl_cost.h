/* NCCL's own cost model, as NCCL 2.28 runs it: which algorithm and protocol
 * it picks for a collective of a given size on a given system, and the time
 * its model gives that choice. Pure functions, no NCCL needed.
 *
 * The quantities are NCCL's (NVIDIA/nccl at tag v2.28.9-1): base and
 * per-hop latencies per algorithm and protocol and link kind, the
 * per-channel bandwidth caps, the LL/LL128/NVLS efficiencies and the
 * bus-to-algorithm bandwidth ratios of src/graph/tuning.cc:
 * ncclTopoTuneModel, the size corrections of ncclTopoGetAlgoTime, and the
 * minimum-time pick of src/enqueue.cc: topoGetAlgoInfo. What NCCL derives
 * from its topology search (src/graph/search.cc: ncclTopoCompute) -- the
 * channel count and per-channel bandwidth of each algorithm's graph -- is
 * approximated here from the topology file's figures (nccl_cost.c,
 * cb_nc_graphs, says how). The code is collbench's own; the numbers carry
 * over. bench/model/PLANNING.md, "NCCL's cost model", shows it against published runs. */
#ifndef CB_NCCL_COST_H
#define CB_NCCL_COST_H

#include "model.h"

/* NCCL's algorithm and protocol order (src/include/device.h). */
enum cb_nc_algo {
  CB_NC_TREE,
  CB_NC_RING,
  CB_NC_COLLNET_DIRECT,
  CB_NC_COLLNET_CHAIN,
  CB_NC_NVLS,
  CB_NC_NVLS_TREE,
  CB_NC_PAT,
  CB_NC_NALGOS
};
enum cb_nc_proto { CB_NC_LL, CB_NC_LL128, CB_NC_SIMPLE, CB_NC_NPROTOS };
extern const char *const cb_nc_algo_names[CB_NC_NALGOS];
extern const char *const cb_nc_proto_names[CB_NC_NPROTOS];
int cb_nc_algo_find(const char *name);  /* case-insensitive; -1 unknown */
int cb_nc_proto_find(const char *name); /* case-insensitive; -1 unknown */

/* GPU generations NCCL tells apart (its compute-capability index). */
enum cb_nc_arch { CB_NC_VOLTA, CB_NC_AMPERE, CB_NC_HOPPER, CB_NC_BLACKWELL, CB_NC_NARCHS };
extern const char *const cb_nc_arch_names[CB_NC_NARCHS];

/* What the model needs to know of a node and the fabric. */
struct cb_nc_hw {
  int arch;          /* enum cb_nc_arch */
  int gpus_per_node; /* GPUs (ranks) per node */
  int nvlink_gen;    /* 0: GPUs talk over PCIe only */
  int nvlink_links;  /* NVLinks per GPU (H100: 18, A100: 12) */
  int nvswitch;      /* GPUs reach each other through NVSwitch */
  int nvls;          /* the NVSwitch does NVLink SHARP (multicast and reduction) */
  int pcie_gen;      /* GPU and NIC x16 links: 3, 4, 5 or 6 */
  int nics_per_node; /* 0: single node only */
  double nic_GBps;   /* per NIC, per direction, GB/s (NDR 400 Gb/s: 50) */
  int sharp;         /* SHARP in the fabric (CollNet, and NVLS across nodes) */
  int cpu_amd;       /* AMD hosts: NCCL's multi-node LL cap and network overhead differ */
  /* the GPU-to-NIC path, NCCL's PATH_* (graph/topo.h): PIX 4, PXB 5 (an HGX
   * board's PCIe switch, and 0: taken as PXB), P2C 6, PXN 7, PHB 8, SYS 9 */
  int nic_path;
  int cc;           /* compute capability x 10 (86: 8.6); 0: the arch's first (70, 80, 90, 100) */
  int cc_max;       /* GPUs of several kinds: the greatest (x 10); 0: one kind */
  int nvlink_peers; /* without NVSwitch, GPUs each reaches over NVLink (1: pairs); 0: all */
  int fabric;       /* enum cb_nc_fabric: the network between nodes, from its tier's kind */
  int no_p2p;       /* the GPUs have no peer-to-peer (GeForce, gpu_p2p = no): NCCL goes
                       through host memory (SHM) */
  int gpu_path;     /* GPU to GPU over PCIe, NCCL's PATH_* (PIX 4 ... SYS 9); 0: not stated,
                       taken as PXB (peer-to-peer) */
  int p2p_level;    /* NCCL_P2P_LEVEL, NCCL's PATH_* (LOC 0 ... SYS 9); -1: NCCL's own
                       (PXB, SYS for two GPUs on an AMD CPU). cb_nccl_hw sets it. */
  int no_gdr;       /* the NICs cannot reach GPU memory (gdr = no): NCCL stages network
                       traffic in host memory, which its estimate does not carry */
};
enum { CB_NC_PATH_NVL = 1, CB_NC_PATH_PXB = 5, CB_NC_PATH_PXN = 7, CB_NC_PATH_SYS = 9 };
/* Networks the published figures tell apart (NCCL's model does not: its
 * NIC is its speed; what the fabric achieves of it differs). */
enum cb_nc_fabric {
  CB_NC_FABRIC_OTHER,
  CB_NC_FABRIC_IB,
  CB_NC_FABRIC_ROCE,
  CB_NC_FABRIC_EFA,
  CB_NC_FABRIC_TCPX,
  CB_NC_FABRIC_TCP
};
/* A tier kind's fabric: ib-ndr IB, roce-400g RoCE, efa EFA, tcpx/tcpxo
 * GPUDirect-TCPX, tcp/eth TCP sockets; anything else OTHER. */
int cb_nc_fabric_of(const char *kind);

/* One algorithm's graph, as NCCL's search would leave it. */
struct cb_nc_graph {
  int nch;                   /* channels */
  double bw_intra, bw_inter; /* GB/s per channel */
  int nvl;                   /* the intra-node path is NVLink (else PCIe) */
  int pattern;               /* NCCL_TOPO_PATTERN_* (graph.h); a tree's TREE (3) costs it 15% */
  int same_channels;         /* every channel the same path: broadcast pays one hop, not n */
};
enum { CB_NC_PATTERN_BALANCED_TREE = 1, CB_NC_PATTERN_TREE = 3, CB_NC_PATTERN_RING = 4 };

/* NCCL's tuning tables for one communicator (nranks over nnodes), in
 * NCCL's units: bandwidth GB/s of algorithm bandwidth, latency us; 0
 * bandwidth: the algorithm/protocol is off. Index op with enum cb_mop
 * (alltoall: NCCL runs it as point-to-point, no entry). */
struct cb_nc_comm {
  int nranks, nnodes, arch;
  struct cb_nc_graph g[CB_NC_NALGOS];
  double bw[CB_NMOPS][CB_NC_NALGOS][CB_NC_NPROTOS];
  double lat[CB_NMOPS][CB_NC_NALGOS][CB_NC_NPROTOS];
  int ring_nch; /* comm->nChannels (twice the ring graph's), for the ring plateau rule */
};

/* Calibration: multipliers of each algorithm/protocol's bandwidth and
 * latency (1: NCCL's own estimate). A fit (cb_nc_fit) changes the times
 * predicted, never NCCL's pick: NCCL does not see them. */
struct cb_nc_cal {
  double bw[CB_NC_NALGOS][CB_NC_NPROTOS];
  double lat[CB_NC_NALGOS][CB_NC_NPROTOS];
  int fitted[CB_NC_NALGOS][CB_NC_NPROTOS]; /* points each entry was fitted on */
};
void cb_nc_cal_identity(struct cb_nc_cal *c);

/* What NCCL after v2.28.9-1, the version this model follows, up to
 * v2.30.7-1 estimates otherwise for this hardware on nnodes nodes (a short
 * note), or "" where nothing we know of changes (bench/model/PLANNING.md,
 * "Which NCCL"). */
const char *cb_nc_newer_differs(const struct cb_nc_hw *hw, int nnodes);

/* Whether rings through per_node GPUs cross PCIe: no NVLink, or NVLink
 * bridged in pairs past two GPUs. */
int cb_nc_over_pcie(const struct cb_nc_hw *hw, int per_node);
/* The graphs NCCL's search would build (approximation; nccl_cost.c). */
void cb_nc_graphs(const struct cb_nc_hw *hw, int nnodes, struct cb_nc_graph g[CB_NC_NALGOS]);
/* ncclTopoTuneModel for nranks GPUs on nnodes nodes (nranks/nnodes per node). */
void cb_nc_tune(const struct cb_nc_hw *hw, int nranks, int nnodes, struct cb_nc_comm *c);
/* The same on given graphs (NCCL's own, read from its log, instead of
 * cb_nc_graphs's approximation): tests/unit/test_nccl_table.c. */
void cb_nc_tune_graphs(const struct cb_nc_hw *hw, int nranks, int nnodes,
                       const struct cb_nc_graph g[CB_NC_NALGOS], struct cb_nc_comm *c);
/* ncclTopoGetAlgoTime, in seconds (NaN: off), for `bytes` as collbench
 * counts them (the whole buffer; NCCL's nBytes). cal NULL: NCCL's own. */
double cb_nc_time(const struct cb_nc_comm *c, int op, int algo, int proto, double bytes,
                  const struct cb_nc_cal *cal);

struct cb_nc_choice {
  int algo, proto; /* -1: nothing applies */
  double time_s;   /* with the calibration */
  double busbw_Bps;
};
/* topoGetAlgoInfo: the algorithm/protocol of least time in NCCL's own
 * model for `bytes` of dtype reduced by redop (collbench's enum
 * cb_dtype_id and cb_redop_id: NVLS reduces some pairs only, an fp8 ring
 * past 8 ranks is shunned), only_algo >= 0: as NCCL_ALGO=that would, the
 * best protocol of it; and its time with the calibration. Returns the
 * algorithm or -1 (nothing applies, or cb_nc_refused says why). */
int cb_nc_pick(const struct cb_nc_comm *c, int op, double bytes, int dtype, int redop,
               int only_algo, const struct cb_nc_cal *cal, struct cb_nc_choice *out);
/* device.h's ncclNvlsSupported: NVLS reduces dtype with redop. */
int cb_nc_nvls_reduces(int dtype, int redop);
/* Why NCCL refuses op on dtype on this communicator's GPUs; NULL: it runs. */
const char *cb_nc_refused(const struct cb_nc_comm *c, int op, int dtype);

/* The smallest size (a power of two from 8 B to 64 GiB) at which the pick
 * changes from the one at `from` bytes; 0 when none does. */
double cb_nc_next_switch(const struct cb_nc_comm *c, int op, int dtype, int redop, double from);

/* --- calibration from measured runs --- */
struct cb_nc_point {
  int op, nranks, nnodes;
  int dtype, redop; /* enum cb_dtype_id, cb_redop_id: NCCL's pick depends on them */
  int algo, proto;  /* as recorded; -1: unknown, NCCL's pick is assumed */
  double bytes, time_s;
};
/* Fits, per algorithm/protocol with points, time = a * latency + b * bytes
 * / bandwidth (weighted least squares on relative residuals; one size only:
 * b alone), so cal->lat = a and cal->bw = 1/b. Points on hw (its topology)
 * with their node counts. Returns how many entries were fitted. */
int cb_nc_fit(const struct cb_nc_hw *hw, const struct cb_nc_point *pts, int n,
              struct cb_nc_cal *cal);

#endif
