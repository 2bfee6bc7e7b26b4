/* Topology files (topologies/NAME.conf): a human-edited INI description of a
 * system — nodes, GPUs per node, link tiers with nominal figures — and the
 * acceptance checks it should pass. Acceptance (--accept) runs the checks;
 * the performance model (--predict) reads the tiers. Format: topologies/README.md. */
#ifndef CB_TOPOLOGY_H
#define CB_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "kernels/transformer.h"

#define CB_TOPO_MAX_TIERS 8
#define CB_TOPO_MAX_CHECKS 32
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

/* What a check compares: bandwidths are better high, times better low. */
enum cb_metric { CB_METRIC_BUSBW, CB_METRIC_ALGBW, CB_METRIC_TIME };
extern const char *const cb_metric_names[];

/* A threshold is absolute, or a fraction of a reference measured at run
 * time on this machine: its memory copy bandwidth ("5% membw"), or the
 * median bandwidth of all pairs in the [matrix] ("40% pairbw"); or a
 * fraction of what the performance model expects of the check on the
 * file's [system] and [tier]s ("80% model", bench/accept/expected.c). */
enum cb_reference { CB_REF_NONE, CB_REF_MEMBW, CB_REF_PAIRBW, CB_REF_MODEL, CB_NREFS };
extern const char *const cb_reference_names[CB_NREFS];
struct cb_threshold {
  int set;       /* 0: no such level */
  double value;  /* base units (bytes/s or seconds), or a fraction of the reference */
  int reference; /* enum cb_reference */
  int line;      /* where the file gives it, for messages */
};

struct cb_check {
  char name[CB_TOPO_NAME_MAX]; /* [check NAME] */
  int line;                    /* where the section starts, for messages */
  int op, mem, dtype;          /* indexes into the op, memory and dtype tables */
  const char *backend_name;    /* mpi, nccl, ucx or verbs, built here or not */
  char transport[32];          /* "auto" unless given */
  uint64_t bytes;
  int metric;  /* enum cb_metric */
  int inplace; /* which variant is judged (default out of place) */
  struct cb_threshold warn, fail;
  /* `ceiling = TIER`: the physical limit the figure is judged against too,
   * that tier's bandwidth; under ceiling_fraction of it fails (a whole fleet
   * degraded alike looks normal to a fleet baseline), over it warns. */
  char ceiling[CB_TOPO_NAME_MAX]; /* "" when none */
  int ceiling_tier;               /* its index in tiers[], when ceiling is set */
  double ceiling_fraction;
};

/* ceiling_fraction when the file gives none: a healthy link measures well
 * over 0.6 of its nominal rate (nccl-tests: 0.82 of NVLink 4 with Ring, 0.92-0.98
 * of NDR 400 per NIC; topologies/h100-ndr.conf cites the sources), a PCIe link trained a generation
 * down measures 0.5. */
#define CB_CEILING_FRACTION 0.6

/* Outlier rules for the all-pairs matrix (section [matrix]; ClusterKit's
 * defaults when absent: 0.9 of the median bandwidth, 2.1x the best latency). */
struct cb_matrix_rules {
  int set; /* the file has a [matrix] section: --accept runs the matrix */
  uint64_t bytes;
  double bw_fraction, lat_factor;
};

void cb_matrix_rules_defaults(struct cb_matrix_rules *m);

/* A [step NAME] check (or [step]): the reference training step of --tune
 * run on the cluster under test, judged on its communication overhead,
 * (T_step - T_compute) / T_step, against `limit`. */
#define CB_TOPO_MAX_STEPS 8
struct cb_step_check {
  char name[CB_TOPO_NAME_MAX];
  int line;
  int model_set;
  struct cb_model model; /* model = preset, then model_config = hidden=,... */
  uint64_t bucket_bytes; /* default DDP's 25 MiB, capped at the gradients */
  int ranks;             /* the rank count the check is for; 0: any */
  int reps;              /* rounds of the three phases (default 10) */
  double limit;          /* a share of the step, 0 < limit < 1 */
  /* seconds of compute a step takes on one GPU (or rank), for pricing
   * defects at `scale`; 0: the step's T_compute as measured in the run */
  double compute_s;
};

/* [baseline]: judge the checks (and the matrix's pairs and nodes) against a
 * fleet baseline too (--baseline FILE and --repeat N override). */
struct cb_baseline_rules {
  int set;
  char file[CB_TOPO_TEXT_MAX]; /* relative to the topology file's folder */
  double k;                    /* robust z under -k FAILs (default CB_BASELINE_K) */
  long min_runs;               /* fewer figures than this: cannot judge */
  long repeat;                 /* re-measures of a suspect check before it FAILs (-1: default) */
};
void cb_baseline_rules_defaults(struct cb_baseline_rules *b);

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
  struct cb_check checks[CB_TOPO_MAX_CHECKS];
  int nchecks;
  struct cb_matrix_rules matrix;
  struct cb_step_check steps[CB_TOPO_MAX_STEPS];
  int nsteps;
  struct cb_baseline_rules baseline;
  char renamed[CB_TOPO_TEXT_MAX + 96]; /* an old key's notice ("" none): the caller says it */
};

/* Reads and validates a file; a bad file is CB_USAGE with a message naming
 * file, line and key. */
int cb_topology_load(const char *path, struct cb_topology *t, struct cb_error *err);

/* The same from text in memory (tests); `name` stands for the file in messages. */
int cb_topology_parse(const char *text, const char *name, struct cb_topology *t,
                      struct cb_error *err);

/* The tier of a scope, or NULL (the first one when there are several). */
const struct cb_tier *cb_topology_tier(const struct cb_topology *t, int scope);

/* A threshold in base units, given the measured references (bytes/s,
 * indexed by enum cb_reference). */
double cb_threshold_value(const struct cb_threshold *th, const double *reference_Bps);

/* Whether any check's threshold is relative to this reference. */
int cb_topology_uses(const struct cb_topology *t, int reference);
/* NCCL_P2P_LEVEL's name for a p2p_level (NCCL's PATH_*: "SYS" for 9) in
 * buf; "" for none. Returns buf. */
const char *cb_topo_p2p_level_name(int level, char *buf, size_t len);

#endif
