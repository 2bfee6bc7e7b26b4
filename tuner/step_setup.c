/* What the reference step runs on: its backends chosen, the host model's
 * memory checked (step_setup.h says more). */
#include "step_setup.h"

#include <stdio.h>
#include <string.h>

#include "comm.h"
#include "config.h"
#include "kernels/compute.h"
#include "kernels/transformer.h"
#include "runtime/gpu.h"
#include "runtime/pattern_io.h"

static long mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
      break;
  if (f)
    fclose(f);
  return kb;
}

uint64_t cb_mem_available_bytes(void) {
  long kb = mem_available();
  return kb > 0 ? (uint64_t)kb * 1024 : 0;
}

int cb_tune_check_memory(const struct cb_cluster *cl, const struct cb_model *m,
                         struct cb_error *err) {
  long kb = mem_available();
  double need = (double)cb_model_host_bytes(m) * cl->local_size;
  if (kb > 0 && need > (double)kb * 1024.0 * 0.9)
    return cb_fail(err, CB_USAGE,
                   "--workload %s: %d ranks on %s need %.1f GiB for weights, gradients and "
                   "activations, %.1f GiB are available: choose a smaller workload or "
                   "--workload-config (e.g. seq=, layers=)",
                   m->name, cl->local_size, cl->hostname, need / (1 << 30), (double)kb / (1 << 20));
  return CB_OK;
}

/* Which library --tune tunes: --backend, else nccl where this build has
 * the GPU step and a GPU is usable, else mpi. */
int cb_tune_choose(const char *backend, const struct cb_compute **compute,
                   const struct cb_comm **comm, struct cb_error *err) {
  const char *why, *gpu_why;
  const struct cb_compute *gpu = cb_compute_gpu(&gpu_why);
  char none[256] = "";
  int gpus = gpu ? cb_gpu_count(none, sizeof none) : 0;
  int want_nccl = backend ? !strcmp(backend, "nccl") : gpus > 0 && CB_HAVE_NCCL;
  if (want_nccl) {
#if CB_HAVE_NCCL
    if (!gpu)
      return cb_fail(err, CB_USAGE, "--tune --backend nccl: %s", gpu_why);
    if (!gpus)
      return cb_fail(err, CB_USAGE, "--tune --backend nccl: %s", none);
    *compute = gpu, *comm = &cb_comm_nccl;
    return CB_OK;
#endif
  }
  if (!(*compute = cb_compute_host(&why)))
    return cb_fail(err, CB_USAGE, "--tune: %s", why);
  *comm = &cb_comm_mpi;
  return CB_OK;
}

/* Collbench's GPU kernels are admitted by their self-check on the bound GPU (the check
 * patterns' kernels, built for the same architectures as the step's); where they cannot run,
 * the host computes the step and its gradients go to the GPU, said on rank 0. */
int cb_tune_device_step(const struct cb_cluster *cl, const struct cb_compute **compute,
                        struct cb_error *err) {
  char why[256] = "";
  if (cb_gpu_pattern_io_all(cl, why, sizeof why))
    return CB_OK;
  const char *no;
  const struct cb_compute *h = cb_compute_host_gpu(&no);
  if (!h)
    return cb_fail(err, CB_USAGE,
                   "--tune --backend nccl: collbench's GPU kernels cannot run here "
                   "(%s), and the host's step cannot stand in: %s",
                   why, no);
  if (cl->rank == 0)
    fprintf(stderr,
            "collbench: --tune nccl: collbench's GPU kernels cannot run here (%s): the step is "
            "computed on the host (OpenBLAS, float) and its gradients copied to the GPU as they "
            "become ready; T_compute is the host's\n",
            why);
  *compute = h;
  return CB_OK;
}
