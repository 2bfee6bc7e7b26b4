/* NCCL takes its paths and logging from the environment, read when the
 * first communicator is made: --transport and --share-gpu become NCCL_*
 * variables before MPI_Init. A variable the user set is never replaced. */
#ifndef CB_NCCL_ENV_H
#define CB_NCCL_ENV_H

#include <stddef.h>

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

#endif
