/* NCCL takes its paths and logging from the environment, read when the
 * first communicator is made: --transport and --share-gpu become NCCL_*
 * variables before MPI_Init. A variable the user set is never replaced. */
#ifndef CB_NCCL_ENV_H
#define CB_NCCL_ENV_H

#include <stddef.h>

#include "base/error.h"

struct cb_env_setting {
  const char *name, *value;
};

/* The transports --transport accepts for nccl, NULL-terminated. */
extern const char *const cb_nccl_transports[];

/* The settings one transport asks for, ending with {NULL}; NULL when the
 * transport is unknown. */
const struct cb_env_setting *cb_nccl_transport_env(const char *transport);

/* Sets each variable the user did not set; for one the user set to another
 * value, appends "NAME=value (wanted W)" to kept (';'-separated) instead.
 * Returns how many were kept. */
int cb_env_apply(const struct cb_env_setting *settings, char *kept, size_t len);

/* --share-gpu: NCCL_HOSTID "collbench-<rank>" so each rank counts as its
 * own node (NCCL refuses two ranks on one GPU of one host), and sockets
 * over loopback (NCCL_SOCKET_IFNAME=lo), unless set. */
void cb_nccl_share_gpu_env(int rank, char *kept, size_t len);

/* Whether an MPS control daemon serves this machine: its control pipe in
 * pipe_dir (CUDA_MPS_PIPE_DIRECTORY; NULL or "": MPS's default). Ranks
 * sharing a GPU without MPS take turns on it, and NCCL's kernels spin
 * while they wait for peers that are not running (NVIDIA's MPS guide:
 * without MPS, contexts of separate processes are time-sliced). */
#define CB_MPS_DEFAULT_PIPE_DIR "/tmp/nvidia-mps"
int cb_mps_running(const char *pipe_dir);

/* --register (enum cb_register) against the NCCL in use (ncclGetVersion's
 * code, 22809 for 2.28.9): NULL when it offers it, else why not (in why):
 * ncclCommRegister and ncclMemAlloc came in 2.19, ncclCommWindowRegister
 * in 2.27, as nccl-tests' -R checks them. */
const char *cb_nccl_register_refusal(int reg, int version, char *why, size_t len);

/* NCCL's function names, the prefixes of the per-collective form
 * (init.cc ncclFuncStr, NCCL >= 2.24). */
enum { CB_NCCL_NFUNCS = 5 };
extern const char *const cb_nccl_func_names[CB_NCCL_NFUNCS];
/* NCCL_ALGO's names, NCCL's order (ncclAlgoStr). */
enum { CB_NCCL_NALGO_NAMES = 7 };
extern const char *const cb_nccl_algo_names[CB_NCCL_NALGO_NAMES];

/* Which of names[0..n-1] `value` of `var` (NCCL_ALGO or NCCL_PROTO)
 * enables for function `func` ("allreduce"), as NCCL >= 2.24 parses it
 * (src/graph/tuning.cc parseList): enabled[i] = 1 or 0. A NULL value
 * enables everything. A name or prefix NCCL does not know, or an entry
 * without a prefix after the first, is a usage error naming the value
 * (NCCL would fail the communicator with ncclInvalidUsage). A function
 * NCCL_ALGO has no prefix for (alltoall, point-to-point) is left all on. */
int cb_nccl_parse_env(const char *var, const char *value, const char *func,
                      const char *const *names, int n, unsigned char *enabled,
                      struct cb_error *err);

#endif
