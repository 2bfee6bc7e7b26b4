/* The communication backend of the overlap engine: one struct of functions
 * per implementation (host: MPI; an NCCL one on a CUDA stream plugs in the
 * same way). A "setting" is one configuration made live: for MPI a new
 * communicator created after the MPI_T writes, for NCCL a communicator
 * created with its NCCL_ALGO/NCCL_PROTO. start() must not block the
 * caller for the length of the all-reduce. */
#ifndef CB_COMM_H
#define CB_COMM_H

#include <stddef.h>

#include "base/error.h"
#include "config.h"
#include "runtime/cluster.h"
#include "space.h"

/* What the compute side hands the communication side. */
struct cb_comm_setup {
  int dtype;     /* of the gradients (enum cb_model_dtype) */
  void *stream;  /* the compute's cudaStream_t: all-reduces wait for it; NULL on host */
  int share_gpu; /* --share-gpu: ranks on one GPU, NCCL over its network transport */
};

struct cb_comm {
  const char *name;
  int kind;             /* the search space it takes (enum cb_space_kind) */
  const char *progress; /* how all-reduces advance while the CPU computes */
  int (*init)(const struct cb_cluster *cl, const struct cb_comm_setup *setup, void **ctx,
              struct cb_error *err);
  /* Fills which algorithms are tunable here (nalgorithms 0 when none) and
   * why not; the settings in effect at launch, read back from the library. */
  void (*tunable)(void *ctx, int *yes, char *why, size_t len);
  void (*launch)(void *ctx, struct cb_tune_config *cfg);
  /* The library's name and version, for the env file's header. */
  void (*version)(void *ctx, char *buf, size_t len);
  int (*open)(void *ctx, const struct cb_tune_config *cfg, void **setting, struct cb_error *err);
  /* In-place sum all-reduce of count floats with a setting; returns at once. */
  int (*start)(void *ctx, void *setting, void *buf, size_t count, struct cb_error *err);
  /* Gives the library the CPU between compute chunks; may do nothing. */
  void (*poll)(void *ctx);
  /* Waits until every started all-reduce has completed. */
  int (*wait_all)(void *ctx, struct cb_error *err);
  void (*close)(void *ctx, void *setting);
  void (*finalize)(void *ctx);
};

extern const struct cb_comm cb_comm_mpi;
#if CB_HAVE_NCCL
extern const struct cb_comm cb_comm_nccl;
#endif

#endif
