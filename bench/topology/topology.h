/* Topology files (topologies/NAME.conf): a human-edited INI description of a
 * system — nodes, GPUs per node, link tiers with nominal figures — read by
 * the performance model (--predict), the report, the tuner and acceptance.
 * The acceptance checks the same file holds are acceptance's own sections
 * (accept/spec.c), read through a cb_topo_part. Format: topologies/README.md. */
#ifndef CB_TOPOLOGY_H
#define CB_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define CB_TOPO_MAX_TIERS 8
#define CB_TOPO_NAME_MAX 64
#define CB_TOPO_TEXT_MAX 256
/* The range of a bandwidth and a time a topology file may state (topology.c
 * says why); a tier's bandwidth is at least CB_TOPO_MIN_BPS. */
#define CB_TOPO_MIN_BPS 1e6
#define CB_TOPO_MAX_BPS 1e15
#define CB_TOPO_MIN_SECONDS 1e-9
#define CB_TOPO_MAX_SECONDS 3600.0

/* The greatest `scale` a file may state: the planner's range
 * (bench/model/model.h's CB_MODEL_MAX_GPUS, which says why; test_topology
 * holds them equal). */
#define CB_TOPO_MAX_SCALE 16384
#define CB_TOPO_MAX_SCALE_TEXT "16384"

enum cb_tier_scope { CB_SCOPE_INTRA, CB_SCOPE_INTER };

/* One class of link, e.g. NVLink inside a node or InfiniBand between nodes. */
struct cb_tier {
  char name[CB_TOPO_NAME_MAX]; /* from the section: [tier NAME] */
  char kind[CB_TOPO_NAME_MAX]; /* nvlink4, pcie5x16, ib-ndr, roce-200g, shm, tcp ... */
  int scope;                   /* enum cb_tier_scope */
  double bandwidth_Bps;        /* nominal, bytes/s per direction per GPU (intra) or per NIC */
  double latency_s;            /* nominal one-way small-message latency */
  int nics_per_node;           /* inter-node tiers: rails per node (default 1) */
};

/* What NCCL's cost model (bench/model/nccl_cost.h) needs of a GPU node,
 * [system] keys; -1: not given (nccl_predict.c fills defaults from the
 * tiers: NVLink generation from an intra tier's kind "nvlinkN"...). */
enum cb_nvswitch { CB_NVSWITCH_NO, CB_NVSWITCH_YES, CB_NVSWITCH_NVLS };
struct cb_topo_gpu {
  int arch;         /* enum cb_nc_arch: volta, ampere, hopper, blackwell */
  int nvlink;       /* NVLink generation, 0: none */
  int nvlink_links; /* per GPU */
  int nvswitch;     /* enum cb_nvswitch */
  int pcie_gen;     /* 3 to 6 */
  int sharp;        /* SHARP in the fabric (0/1) */
  int cpu_amd;      /* hosts' CPUs are AMD (0/1) */
  int nic_path;     /* GPU to NIC: NCCL's PATH_* (4 pix ... 9 sys); -1 unset */
  int cc; /* compute capability x 10 (86: 8.6), the least of a list; -1 unset: gpu_arch's own */
  int nvlink_peers; /* GPUs each reaches over NVLink (1: bridged pairs); -1 unset */
  int gpu_p2p;      /* PCIe peer-to-peer between GPUs (0: through host memory); -1 unset */
  int gdr;          /* GPUDirect RDMA between NICs and GPUs (0: staged in host memory); -1 unset */
  int gpu_path;     /* GPU to GPU over PCIe: NCCL's PATH_* (4 pix ... 9 sys); -1 unset */
  int cc_max;       /* the greatest of compute_capability's list; -1 unset */
  int p2p_level; /* NCCL_P2P_LEVEL as the job sets it: NCCL's PATH_* (0 loc ... 9 sys); -1 unset */
};

struct cb_topology {
  char path[CB_TOPO_TEXT_MAX];
  char name[CB_TOPO_TEXT_MAX];   /* [system] name */
  char source[CB_TOPO_TEXT_MAX]; /* [system] source: where the figures come from */
  int nodes;                     /* nodes in the described system (0: not stated) */
  int gpus_per_node;             /* 0 for hosts without GPUs */
  int ranks_per_node;            /* ranks the model places per node (default gpus, or 1) */
  int scale; /* GPUs (ranks) a defect is priced at; 0: not stated (nodes x ranks_per_node) */
  struct cb_topo_gpu gpu; /* for NCCL's cost model */
  struct cb_tier tiers[CB_TOPO_MAX_TIERS];
  int ntiers;
};

/* Where a key is read, for messages laid out as every topology message
 * is: "FILE:LINE: [SECTION] KEY: why". */
struct cb_topo_at {
  const char *file;
  const char *section; /* the section's header, without brackets */
  int line;
  struct cb_error *err;
};

/* Says a bad key (fmt takes the value once) into at->err; returns 0, the
 * INI reader's "stop". */
int cb_topo_bad(const struct cb_topo_at *at, const char *key, const char *fmt, const char *value);

/* The sections of a file that are not the system's, read by their owner
 * (acceptance's [check], [step], [matrix] and [baseline]: accept/spec.c).
 * Every reader of a file is handed the same part by its mode, so a file is
 * refused whole wherever it is read; NULL reads the system's sections
 * alone, any other section refused. */
struct cb_topo_part {
  void *user;
  const char *sections; /* its sections, for a refusal: "[check NAME] or [matrix]" */
  /* [section] begins: 1 it is the part's, begun; 0 refused (said); -1
   * not the part's */
  int (*begin)(void *user, const struct cb_topo_at *at, const char *section);
  /* the key a key stands for (an old spelling's new name, said once) */
  const char *(*key_name)(void *user, const struct cb_topo_at *at, const char *key);
  /* a key of one of its sections: 1 read, 0 refused (said) */
  int (*key)(void *user, const struct cb_topo_at *at, const char *key, const char *value);
  /* after the whole file, its system read and checked: CB_OK or the error */
  int (*finish)(void *user, const struct cb_topology *t, struct cb_error *err);
};

/* Reads and validates a file; a bad file is CB_USAGE with a message naming
 * file, line and key. `part` reads the sections that are not the system's. */
int cb_topology_load(const char *path, struct cb_topology *t, const struct cb_topo_part *part,
                     struct cb_error *err);

/* The same from text in memory (tests); `name` stands for the file in messages. */
int cb_topology_parse(const char *text, const char *name, struct cb_topology *t,
                      const struct cb_topo_part *part, struct cb_error *err);

/* The values a file's keys take, for the parts' keys alike: a number and
 * a unit of bandwidth ("460 GB/s", "400 Gb/s") or of time ("4.2 us") in
 * base units (0; -1 when it is not one; -2 out of range, which
 * cb_topo_range_text says as cb_topo_bad's format); a whole number in
 * [min, max] (0 or -1); a real number (0 or -1); a section's name, letters,
 * digits, '-', '_' or '.' (1, or 0 after saying why). */
int cb_topo_quantity(const char *text, int bandwidth, double *value);
/* A positive, finite number at text's start: what follows it past spaces
 * (its unit), or NULL when there is none. */
const char *cb_topo_number(const char *text, double *v);
const char *cb_topo_range_text(int bandwidth, int tier);
int cb_topo_int(const char *value, int min, int max, int *out);
int cb_topo_real(const char *value, double *out);
int cb_topo_section_name(const struct cb_topo_at *at, const char *name);

/* The tier of a scope, or NULL (the first one when there are several). */
const struct cb_tier *cb_topology_tier(const struct cb_topology *t, int scope);

/* A tier's index by name, or -1. */
int cb_topology_find_tier(const struct cb_topology *t, const char *name);

/* NCCL_P2P_LEVEL's name for a p2p_level (NCCL's PATH_*: "SYS" for 9) in
 * buf; "" for none. Returns buf. */
const char *cb_topo_p2p_level_name(int level, char *buf, size_t len);

#endif
