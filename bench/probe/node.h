/* What one node is made of, as the probe's pieces (gpus.c, nics.c,
 * place.c) fill it; one fixed-size struct so it travels over MPI as
 * bytes; and how the probe names what it finds (names.c). */
#ifndef CB_PROBE_NODE_H
#define CB_PROBE_NODE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CB_PROBE_MAX_GPUS 16
#define CB_PROBE_MAX_NICS 16
#define CB_PROBE_WHY 160

struct cb_probe_gpu {
  char name[96];
  char bus_id[32]; /* "0000:1b:00.0" */
  uint64_t mem_bytes;
  int sms, cc_major, cc_minor;
  int numa;                    /* -1: unknown */
  int nvlinks, nvlinks_active; /* -1: unknown (no NVML) */
  int nvlinks_to_switch;       /* active links to an NVSwitch */
  char nvlink_peers[8][32];    /* bus ids of GPUs at the other end of an active link */
  int npeers;
};

struct cb_probe_nic {
  char name[32];   /* ibverbs device (mlx5_0) or network interface (eth0) */
  char netdev[32]; /* the interface of an RDMA device, if known */
  char link[16];   /* "InfiniBand", "RoCE", "Ethernet" */
  int rdma;        /* an ibverbs device */
  int port;        /* RDMA port; 0 for a plain interface */
  char state[16];  /* "ACTIVE", "DOWN", "up", "down" */
  double gbps;     /* link rate; 0: unknown */
  char rate[32];   /* "4x NDR", "10000 Mb/s" */
  char bus_id[32]; /* PCI address; "" for a virtual interface */
  int numa;        /* -1: unknown */
  int mtu;         /* the RDMA device's interface MTU (RoCE, IPoIB); 0: unknown */
};

/* The evidence acceptance explains a slow node or link with (evidence.c):
 * each NVIDIA GPU and RDMA NIC function found in sysfs with its PCIe link,
 * IOMMU domain and the bridges above it; whether GPUDirect RDMA can work;
 * and the bridges with ACS redirecting peer traffic between a GPU and its
 * nearest NIC. Unreadable parts say "unknown" and why; gathering never
 * fails a run. */
#define CB_EVID_MAX_DEVS 32
#define CB_EVID_MAX_PATH 8
#define CB_EVID_MAX_ACS 8
#define CB_EVID_MAX_GPUS 16
struct cb_evid_dev {
  char kind;                       /* 'G' an NVIDIA GPU, 'N' an RDMA NIC's function */
  char name[32];                   /* "GPU 0000:1b:00.0", "mlx5_0" */
  char bus_id[16];                 /* "0000:1b:00.0" */
  double gts, max_gts;             /* PCIe link speed now and at most, GT/s; 0: unknown */
  int width, max_width;            /* lanes now and at most; 0: unknown */
  char iommu[12];                  /* the IOMMU group's type: "DMA", "DMA-FQ", "identity"... */
  char path[CB_EVID_MAX_PATH][16]; /* the bridges above it, nearest first */
  int npath;
};
/* One GPU's state through NVML (gpu_health.c), read when the node is
 * probed; -1 (or 0 for a clock) where NVML does not say. */
struct cb_gpu_health {
  char bus_id[16];
  int sm_mhz, sm_max_mhz;
  long long reasons;         /* clock event reasons (nvmlClocksEventReasons bits) */
  int ecc;                   /* 1 on, 0 off */
  long long ecc_uncorrected; /* volatile: since the driver loaded */
  int remap_pending, remap_failed;
  long long pcie_replay;
  int nvlinks, nvlinks_down; /* links the GPU has; those not active */
  int temperature_c;
  double power_w; /* < 0: unknown */
};
struct cb_evidence {
  int ngpus; /* GPUs NVML reports */
  struct cb_gpu_health gpus[CB_EVID_MAX_GPUS];
  char nvml_why[96]; /* why there is no NVML, or "" */
  int ndevs;
  struct cb_evid_dev devs[CB_EVID_MAX_DEVS];
  int gdr;          /* GPUDirect RDMA: 1 can work, 0 cannot, -1 unknown */
  char gdr_why[96]; /* how that was decided */
  int acs_known;    /* 0: some bridge's config space could not be read */
  char acs_why[96];
  int nacs; /* bridges between a GPU and its nearest NIC redirecting peer requests */
  char acs[CB_EVID_MAX_ACS][64]; /* "0000:00:01.0 (GPU0 <-> mlx5_0): ReqRedir CmplRedir" */
};

/* Error counters (counters.h reads them): an RDMA port's (port > 0) or a
 * GPU's through NVML (port 0, dev "GPU BUS-ID"). */
/* 8 dual-port mlx5 NICs carry about 830 error counters, 8 GPUs about 60;
 * beyond this many a node's are counted in `dropped` and said, never lost
 * in silence (issue 56: a cap of 96 hid mlx5_4 to mlx5_7). */
#define CB_MAX_COUNTERS 1024
struct cb_counter {
  char dev[24];
  int port;
  char name[40];
  uint64_t value;
};
/* One node's counters at one moment; fixed size so it travels as bytes. */
struct cb_counters {
  int n;
  int dropped;              /* counters found beyond CB_MAX_COUNTERS: not read */
  int unreadable;           /* files that hold no decimal count ("-1", "0x10"): unknown */
  char unreadable_what[80]; /* the first of them */
  struct cb_counter c[CB_MAX_COUNTERS];
};

struct cb_probe_node {
  char hostname[64];
  char cpu_model[128];
  int packages, cores, pus, numa_nodes; /* 0: unknown */
  char placement[CB_PROBE_WHY];         /* "hwloc 2.9.0", or why placement is unknown */
  int ngpus;
  char gpu_why[CB_PROBE_WHY]; /* why there are none */
  struct cb_probe_gpu gpus[CB_PROBE_MAX_GPUS];
  int nnics, nrdma;
  char rdma_why[CB_PROBE_WHY]; /* why there is no RDMA NIC */
  struct cb_probe_nic nics[CB_PROBE_MAX_NICS];
  /* nvidia-smi topo -m's distance names, "" when unknown */
  char gpu_nic[CB_PROBE_MAX_GPUS][CB_PROBE_MAX_NICS][8];
  char driver[32]; /* NVIDIA driver (NVML) */
  char cuda_driver[16], cuda_runtime[16];
  char nccl[48]; /* "2.28.9 (library)" or "(header)" */
  struct cb_evidence evidence;
  struct cb_counters counters; /* as the probe found them (--probe shows the nonzero ones) */
};

/* Every node, on rank 0 (nnodes 0 elsewhere). */
struct cb_probe {
  int nnodes;
  struct cb_probe_node *nodes;
};

/* Copies src into a fixed field, cut to fit and terminated. */
static inline void cb_probe_copy(char *dst, size_t len, const char *src) {
  size_t n = strnlen(src, len - 1);
  memcpy(dst, src, n);
  dst[n] = '\0';
}

/* The pieces, each filling its part of one node. */
void cb_probe_host(struct cb_probe_node *n);
void cb_probe_gpus(struct cb_probe_node *n);
void cb_probe_nics(struct cb_probe_node *n);
void cb_probe_placement(struct cb_probe_node *n);
void cb_probe_evidence(struct cb_probe_node *n); /* evidence.c */
void cb_probe_gpu_health(struct cb_evidence *e); /* gpu_health.c */

/* nvidia-smi topo -m's names for how far two PCI devices are apart, from
 * their nearest common ancestor: a PCI bridge (PIX with at most one bridge
 * below it on either side, else PXB), a host bridge (PHB), or the CPU side
 * (NODE within one NUMA node, SYS across them). */
enum cb_ancestor { CB_ANC_PCI_BRIDGE, CB_ANC_HOST_BRIDGE, CB_ANC_CPU };
const char *cb_pci_distance(enum cb_ancestor common, int bridges_below, int same_numa);

/* The PCI address a sysfs device link (/sys/class/infiniband/DEV/device)
 * points to, as "0000:1b:00.0"; "" when it is not a PCI function. nics.c */
void cb_probe_pci_of(const char *device_link, char *buf, size_t len);

/* Whether two PCI bus ids name one device ("00000000:1B:00.0" = "0000:1b:00.0"). */
int cb_bus_id_same(const char *a, const char *b);

/* "13.0" from CUDA's 13000; "2.28.9" from NCCL's 22809 (and 2.8.4 from 2804). */
void cb_cuda_version_string(int v, char *buf, size_t len);
void cb_nccl_version_string(int v, char *buf, size_t len);

#endif
