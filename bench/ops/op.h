/* The op table: what each operation moves, how its bus bandwidth is
 * computed and how its result is checked. How an op runs is a backend's
 * business (backend.h); one small file per op lives in ops/. */
#ifndef CB_OP_H
#define CB_OP_H

#include <stddef.h>
#include <stdint.h>

#include "base/pattern.h"
#include "runtime/pattern_io.h"

enum cb_op_id {
  CB_OP_ALLREDUCE,
  CB_OP_ALLGATHER,
  CB_OP_REDUCESCATTER,
  CB_OP_BROADCAST,
  CB_OP_ALLTOALL,
  CB_OP_P2P_LAT,
  CB_OP_P2P_BW,
  CB_OP_P2P_BIBW,
  CB_OP_ALLTOALLV, /* named, not swept: below CB_NSWEPT_OPS are "all" and --sweep's */
  CB_NOPS
};
#define CB_NSWEPT_OPS CB_OP_ALLTOALLV

struct cb_skew;        /* ops/skew.h: alltoallv's per-pair counts */
struct cb_skew_layout; /* and one rank's side of them */

/* Per-rank buffers for one op at one size, in elements. */
struct cb_shape {
  size_t count;         /* elements per rank block: the table's count */
  size_t send_elems;    /* out-of-place input */
  size_t recv_elems;    /* out-of-place output */
  size_t inplace_elems; /* the single in-place buffer */
  uint64_t bytes;       /* the row's size (nccl-tests convention) */
  uint64_t algbw_bytes; /* bytes that algbw divides by time */
};

/* What filling and checking need to know about this rank. */
struct cb_op_ctx {
  const struct cb_pattern *pattern;
  int rank, nranks, root;
  int peer; /* p2p partner, -1 when this rank sits out */
  size_t count;
  int inplace;
  /* How fill and check reach the buffers (cb_io_*): NULL for host memory. */
  struct cb_pattern_access *access;
  /* alltoallv: this rank's counts and offsets (count is then the busiest
   * sender's total); NULL for the other ops */
  const struct cb_skew_layout *layout;
};

struct cb_op {
  const char *name;
  enum cb_op_id id;
  int uses_redop, uses_root, has_inplace;
  int skewed; /* its per-pair counts come from --skew (cb_op_ctx.layout) */
  int min_ranks;
  /* skew: alltoallv's (bound to nranks; NULL is uniform), ignored by the rest */
  void (*shape)(uint64_t bytes, size_t type_size, int nranks, const struct cb_skew *skew,
                struct cb_shape *out);
  double (*busbw_factor)(int nranks);
  /* Reported time = time per run() / divisor: a ping-pong is two one-way
   * trips, a bandwidth window carries `window` messages. */
  double (*time_divisor)(int window);
  /* Writes this rank's input into `input` (the send buffer, or the single
   * buffer when ctx->inplace). */
  void (*fill)(const struct cb_op_ctx *ctx, void *input);
  /* Counts wrong elements of this rank's output. */
  size_t (*check)(const struct cb_op_ctx *ctx, const void *output);
  /* Where an in-place result starts, in elements (nccl-tests convention);
   * a backend may override it. */
  size_t (*inplace_result_offset)(size_t count, int rank);
};

extern const struct cb_op *const cb_ops[CB_NOPS];

int cb_op_lookup(const char *name); /* -1 when unknown */

/* The p2p partner of rank: pairs (0,1), (2,3), ...; -1 for the odd one out. */
int cb_p2p_peer(int rank, int nranks);

/* Shared pieces the op files combine. */
double cb_busbw_one(int nranks);
double cb_busbw_gather(int nranks); /* (n-1)/n */
double cb_divisor_one(int window);
size_t cb_offset_zero(size_t count, int rank);

#endif
