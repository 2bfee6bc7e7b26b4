/* The backend interface: one struct of functions per backend, one file per
 * backend in backends/. A new backend is a new file plus a line in
 * backends/registry.c; the engine, timing and outputs stay untouched. */
#ifndef CB_BACKEND_H
#define CB_BACKEND_H

#include <stddef.h>

#include "base/error.h"
#include "ops/op.h"
#include "runtime/cluster.h"
#include "runtime/memory.h"

struct cb_settings;

/* One execution of one op. */
struct cb_op_args {
  const struct cb_op *op;
  const void *send; /* NULL when in place */
  void *recv;       /* output, or the single buffer in place */
  size_t count;     /* elements per rank block (struct cb_shape) */
  int dtype, redop, root, peer, window;
  long graph; /* > 0: run() launches a CUDA graph of this many ops (nccl --graph) */
  /* alltoallv: this rank's per-peer counts and displacements in elements
   * (ops/skew.h); NULL for the other ops */
  const struct cb_skew_layout *layout;
};

struct cb_backend {
  const char *name;
  const char *const *transports; /* NULL-terminated; the first is the default */
  size_t max_count;              /* largest element count one call takes (MPI: INT_MAX) */
  /* Before MPI_Init: set the process-wide environment a transport needs.
   * May be NULL. */
  int (*pre_mpi_init)(const char *transport, struct cb_error *err);
  /* Usable on this host now? Returns 0 and says why when not. */
  int (*probe)(char *why, size_t len);
  /* Whether memory kind `mem` (enum cb_mem) can run on this backend here,
   * asked before MPI starts (--list, explicit --backend with --mem); 0 with
   * the reason. May be NULL: every kind the build allocates. */
  int (*mem_usable)(int mem, char *why, size_t len);
  /* Library name and version, for --list and the run record. */
  void (*version)(char *buf, size_t len);
  int (*init)(const struct cb_cluster *cl, const struct cb_settings *s, const char *transport,
              void **ctx, struct cb_error *err);
  /* NULL when the combination runs, else a short reason. ctx may be NULL
   * (before any backend starts, so a run that would skip everything is
   * refused before its outputs open): then only the reasons that need no
   * context, NULL for the rest. */
  const char *(*unsupported)(void *ctx, const struct cb_op *op, int mem, int dtype, int redop,
                             int inplace);
  int (*alloc)(void *ctx, int mem, size_t bytes, void **ptr, struct cb_error *err);
  void (*free)(void *ctx, int mem, void *ptr);
  /* Copies between host and device memory, which the host cannot touch;
   * the engine fills and checks device buffers through a staging copy.
   * NULL: the backend has no device memory. */
  int (*copy)(void *ctx, void *dst, const void *src, size_t bytes, struct cb_error *err);
  int (*run)(void *ctx, const struct cb_op_args *args, struct cb_error *err);
  /* Waits until every run() issued so far has completed. */
  int (*sync)(void *ctx, struct cb_error *err);
  /* The device's own time (CUDA events) from the first run() after the
   * last sync() to that sync(), in seconds; NULL: the backend has none. */
  double (*device_seconds)(void *ctx);
  /* The path the op actually takes with memory kind `mem`, for the record
   * ("shm", "tcp"...; ucx and verbs say how GPU memory went: "/cuda",
   * "/dma-buf"). */
  void (*transport_label)(void *ctx, const struct cb_op *op, int mem, char *buf, size_t len);
  /* The link's data rate in Gb/s (verbs: the port's speed x width), 0 when
   * unknown. May be NULL. */
  double (*line_gbps)(void *ctx);
  /* The algorithm, protocol and channel count the library chose for the op
   * last run (nccl: from its TUNING log); "" and 0 when unknown. May be NULL. */
  void (*algorithm)(void *ctx, const struct cb_op *op, char *algo, size_t alen, char *proto,
                    size_t plen, int *channels);
  /* What the library ran for the calls since the last ask ("Ring/Simple/4":
   * nccl, from its profiler plugin); "" when it cannot say. May be NULL. */
  void (*ran)(void *ctx, char *buf, size_t len);
  /* How the library used the network for the op (nccl: the devices its NET
   * plugin listed, and GPUDirect RDMA 1 used, -1 not used, 0 unknown), for
   * acceptance's causes. May be NULL. */
  void (*net_use)(void *ctx, const struct cb_op *op, int *nics, int *gdr);
  /* --matrix on this backend: enqueue one group of `window` receives of
   * `bytes` into recv (window x bytes) from rank `from` and `window` sends of
   * send to rank `to`, either -1 for none; sync() waits for it. NULL: the
   * matrix runs over MPI on host memory only. */
  int (*shift)(void *ctx, const void *send, void *recv, size_t bytes, int window, int from, int to,
               struct cb_error *err);
  /* The GPU this rank drives (its CUDA device index), -1 for none: how the
   * matrix names a pair's ends. May be NULL. */
  int (*device_index)(void *ctx);
  /* The algorithm the library runs for args' op and size, named as the
   * library names it, and by = "forced" or "rules" (struct cb_record's
   * algo, algo_by); "" when it does not say. May be NULL. */
  void (*coll_algo)(void *ctx, const struct cb_op_args *args, char *name, size_t len, char *by,
                    size_t blen);
  /* --concurrent: ops side by side on communicators of part of the ranks.
   * split(): the ranks passing the same color, ordered by key, as one
   * communicator (collective over every rank; *comm its handle). start():
   * args' op on comm, not waited for; `slot` (below CB_MAX_CONCURRENT)
   * names it to test(), which sets *done once it has completed. NULL: the
   * backend runs one op at a time only. */
  int (*split)(void *ctx, int color, int key, void **comm, struct cb_error *err);
  int (*start)(void *ctx, void *comm, const struct cb_op_args *args, int slot,
               struct cb_error *err);
  int (*test)(void *ctx, int slot, int *done, struct cb_error *err);
  void (*free_comm)(void *ctx, void *comm);
  /* Where an in-place result starts, if not the op's convention. May be NULL. */
  size_t (*inplace_result_offset)(const struct cb_op *op, size_t count, int rank);
  void (*finalize)(void *ctx);
};

extern const struct cb_backend *const cb_backends[];
/* cb_backends[CB_BACKEND_MPI] is mpi, the default (registry.c asserts it). */
#define CB_BACKEND_MPI 0
extern const int cb_nbackends;
int cb_backend_lookup(const char *name); /* -1 when unknown */

/* Backends this binary lacks, and why (for --list); ends with {NULL}. */
struct cb_unbuilt_backend {
  const char *name, *why;
};
extern const struct cb_unbuilt_backend cb_unbuilt_backends[];

#endif
