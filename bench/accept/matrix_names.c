/* The all-pairs matrix's pure parts: who sends to whom in each round, and
 * how a pair's ends are named (a host, or a GPU on a host for nccl). */
#include <stdio.h>

#include "matrix_names.h"

void cb_matrix_peers(int rank, int d, int nranks, int *src, int *dst) {
  *src = ((rank - d) % nranks + nranks) % nranks;
  *dst = (rank + d) % nranks;
}

const char *cb_matrix_end(char *buf, size_t len, const char *host, int gpu) {
  if (gpu < 0)
    snprintf(buf, len, "%s", host);
  else
    snprintf(buf, len, "%s:GPU%d", host, gpu);
  return buf;
}

/* A rank at fault is a node over MPI, one GPU (its NVLinks, its NIC rail)
 * over NCCL: the other GPUs of that host may be fine. */
const char *cb_matrix_fault_name(char *buf, size_t len, const char *host, int gpu) {
  char end[CB_MATRIX_END_MAX];
  snprintf(buf, len, "%s %s", gpu < 0 ? "node" : "gpu", cb_matrix_end(end, sizeof end, host, gpu));
  return buf;
}

const char *cb_matrix_link_name(char *buf, size_t len, const char *src_host, int src_gpu,
                                const char *dst_host, int dst_gpu) {
  char a[CB_MATRIX_END_MAX], b[CB_MATRIX_END_MAX];
  snprintf(buf, len, "link %s->%s", cb_matrix_end(a, sizeof a, src_host, src_gpu),
           cb_matrix_end(b, sizeof b, dst_host, dst_gpu));
  return buf;
}
