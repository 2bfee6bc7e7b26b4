/* How the matrix names a pair's ends, a rank at fault and a link. */
#ifndef CB_ACCEPT_MATRIX_NAMES_H
#define CB_ACCEPT_MATRIX_NAMES_H

#include "runtime/cluster.h"
#include <stddef.h>

/* A pair's end: "HOST", or "HOST:GPU3" where the rank drives a GPU (gpu >= 0;
 * the nccl matrix). A rank at fault: "node HOST" or "gpu HOST:GPU3"; a pair
 * at fault: "link A->B". Each returns buf. */
#define CB_MATRIX_END_MAX (CB_HOSTNAME_MAX + 16)
const char *cb_matrix_end(char *buf, size_t len, const char *host, int gpu);
const char *cb_matrix_fault_name(char *buf, size_t len, const char *host, int gpu);
const char *cb_matrix_link_name(char *buf, size_t len, const char *src_host, int src_gpu,
                                const char *dst_host, int dst_gpu);

#endif
