/* What the tuner searches, and the grid of valid combinations. Pure.
 *   host (mpi):  Open MPI coll/tuned allreduce algorithm x segment size x bucket
 *   GPU (nccl):  NCCL_ALGO x NCCL_PROTO x CTAs (ncclConfig_t) x bucket, with the
 *                (algorithm, protocol) pairs NCCL cannot run here pruned */
#ifndef CB_SPACE_H
#define CB_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define CB_SPACE_MAX 32
/* coll/tuned's segmented ring: the only allreduce algorithm that reads the
 * segment size, so the segment dimension is pruned for every other one. */
#define CB_SEGMENTED_RING 5
#define CB_NALGORITHMS 7 /* 0 = Open MPI's own decision, 1..6 forced */

enum cb_space_kind { CB_SPACE_MPI, CB_SPACE_NCCL };
/* NCCL: algorithm and protocol are 1 + the index in plugin.h's tables
 * (cb_nccl_algo_env, cb_nccl_proto_env); 0 = NCCL's own choice. */
#define CB_NCCL_ALGOS 8  /* 0 + Tree Ring CollnetDirect CollnetChain NVLS NVLSTree PAT */
#define CB_NCCL_PROTOS 4 /* 0 + LL LL128 Simple */

struct cb_tune_config {
  int algorithm; /* -1: not tunable here (MPICH): left as the library decides;
                    0: the library's own decision */
  long segsize;  /* mpi: bytes; 0 = the algorithm's default */
  uint64_t bucket_bytes;
  int protocol; /* nccl: 0 = NCCL's choice */
  int ctas;     /* nccl: ncclConfig_t minCTAs = maxCTAs; 0 = NCCL's choice */
};

struct cb_space {
  int kind;                                  /* enum cb_space_kind */
  int algorithms[CB_SPACE_MAX], nalgorithms; /* 0: nothing tunable (MPICH) */
  long segments[CB_SPACE_MAX];
  int nsegments;
  uint64_t buckets[CB_SPACE_MAX];
  int nbuckets;
  int protocols[CB_SPACE_MAX], nprotocols; /* nccl */
  int ctas[CB_SPACE_MAX], nctas;           /* nccl; 0: not searched */
  /* nccl: which (algorithm, protocol) pairs run here (cb_nccl_prune) */
  unsigned char pair_ok[CB_NCCL_ALGOS][CB_NCCL_PROTOS];
};

/* What decides which NCCL pairs run, as NCCL sees the communicator. */
struct cb_nccl_view {
  int nranks, nnodes, ranks_per_node; /* --share-gpu: every rank its own node */
  int cc;                             /* compute capability x 10; 0 unknown */
  int nvls;    /* NVLink SHARP: multicast-capable GPUs, more than one per node */
  int collnet; /* NCCL_COLLNET_ENABLE=1 and a CollNet (SHARP) plugin */
};

/* How NCCL will see the communicator, for pruning (algorithm, protocol);
 * the --plugin-out sweep and the tuner's search share it. */
struct cb_cluster;
struct cb_nccl_view cb_tune_nccl_view(const struct cb_cluster *cl, int share_gpu);

/* The view of one communicator split from that world w: its n members
 * (world ranks), node_of_rank the world's (NULL: every rank a node of its
 * own, as --share-gpu makes it). */
struct cb_nccl_view cb_nccl_group_view(const struct cb_nccl_view *w, const int *node_of_rank,
                                       const int *members, int n);

/* A named (algorithm, protocol) pair as one number, 1 .. CB_NCCL_NPAIRS:
 * 1 + (algorithm - 1) x 3 + protocol - 1, both 1-based as above. */
#define CB_NCCL_NPAIRS ((CB_NCCL_ALGOS - 1) * (CB_NCCL_PROTOS - 1))
int cb_nccl_pair_code(int algorithm, int protocol);
void cb_nccl_pair_of(int code, int *algorithm, int *protocol);
/* "Ring/LL128"; "library" for 0; NULL out of range */
const char *cb_nccl_pair_name(int code);
/* The pairs with both named that run for `coll` on view v (cb_nccl_prune),
 * as codes in ascending order into codes[CB_NCCL_NPAIRS]; returns how
 * many. */
int cb_nccl_pair_codes(const char *coll, const struct cb_nccl_view *v, int *codes);

/* Fills s->pair_ok for all-reduce of collective `coll` ("allreduce",
 * "allgather", "reducescatter", "broadcast") on that view; pair (0, 0),
 * NCCL's own choice, is always valid. Returns how many pairs with both
 * named are valid. */
int cb_nccl_prune(const char *coll, const struct cb_nccl_view *v,
                  unsigned char ok[CB_NCCL_ALGOS][CB_NCCL_PROTOS]);

extern const char *const cb_algorithm_names[CB_NALGORITHMS];

int cb_config_equal(const struct cb_tune_config *a, const struct cb_tune_config *b);
/* "algorithm 5 (segmented ring) segsize 64 KiB bucket 4 MiB";
 * nccl: "algo Ring proto Simple ctas 8 bucket 4 MiB" */
const char *cb_config_format(int kind, const struct cb_tune_config *c, char *buf, size_t len);
/* Whether a combination is worth measuring (mpi: segment size only for 5;
 * nccl: a pair that runs here). */
int cb_config_valid(const struct cb_space *s, const struct cb_tune_config *c);

/* The launch bucket of a search: COLLBENCH_BUCKET_BYTES (a tuned env file
 * sets it), else DDP's default bucket_cap_mb of 25; at most grad_bytes
 * (one bucket then holds every gradient). CB_USAGE on a bad value. */
#define CB_DDP_BUCKET_BYTES (25u << 20)
#define CB_BUCKET_VAR "COLLBENCH_BUCKET_BYTES"
int cb_space_launch_bucket(uint64_t grad_bytes, uint64_t *bucket, struct cb_error *err);

/* Caps the buckets at the model's gradient bytes (a bucket larger than
 * every gradient is one bucket), keeps them ascending and distinct. */
void cb_space_cap_buckets(struct cb_space *s, uint64_t grad_bytes);
/* The valid grid; returns its size (out may be NULL to count). */
int cb_space_grid(const struct cb_space *s, struct cb_tune_config *out);

/* Comma lists for the options: algorithms (mpi: 0-6; nccl: names such as
 * ring,tree or default), protocols (ll,ll128,simple,default), CTAs,
 * sizes with suffixes. */
int cb_space_parse_algorithms(const char *arg, struct cb_space *s, struct cb_error *err);
int cb_space_parse_protocols(const char *arg, struct cb_space *s, struct cb_error *err);
int cb_space_parse_ctas(const char *arg, struct cb_space *s, struct cb_error *err);
int cb_space_parse_sizes(const char *arg, const char *what, uint64_t *out, int *n,
                         struct cb_error *err);
void cb_space_defaults(struct cb_space *s);
/* The NCCL space: every algorithm and protocol (pruned later), no CTA
 * search, the same buckets. */
void cb_space_defaults_nccl(struct cb_space *s);

#endif
