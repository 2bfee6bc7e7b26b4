/* Where check patterns are written and read. Host-accessible memory is
 * filled and checked by pattern.c directly; device memory by the GPU
 * kernels (kernels/gpu_pattern.cu, as nccl-tests does) once a self-check
 * has proven them equal to pattern.c in this process, and otherwise
 * through a host staging copy. The ops call the cb_io_* helpers, which
 * pick the right one from their context, so no op knows where its
 * buffers live. */
#ifndef CB_PATTERN_IO_H
#define CB_PATTERN_IO_H

#include <stddef.h>
#include <stdint.h>

#include "base/pattern.h"

/* Pattern work on memory the host cannot touch. Every function returns 0,
 * or -1 with the reason in why. */
struct cb_pattern_io {
  const char *name; /* "GPU kernels" */
  int (*fill)(const struct cb_pattern *p, void *buf, int rank, uint64_t first, size_t n, char *why,
              size_t len);
  /* rank < 0: against the reduced values */
  int (*count_wrong)(const struct cb_pattern *p, const void *buf, int rank, uint64_t first,
                     size_t n, size_t *wrong, char *why, size_t len);
  int (*poison)(int dtype, void *buf, size_t n, char *why, size_t len);
  /* Only for the self-check: a buffer of its kind, and copies to/from it. */
  int (*alloc)(size_t bytes, void **buf, char *why, size_t len);
  void (*free)(void *buf);
  int (*copy)(void *dst, const void *src, size_t bytes, int to_buf, char *why, size_t len);
};

/* What an op's fill and check go through: NULL, or io NULL, for host
 * memory. The first failure sticks in why; the engine reports it. */
struct cb_pattern_access {
  const struct cb_pattern_io *io;
  int failed;
  char why[256];
};

void cb_io_fill(struct cb_pattern_access *a, const struct cb_pattern *p, void *buf, int rank,
                uint64_t first, size_t n);
size_t cb_io_count_wrong(struct cb_pattern_access *a, const struct cb_pattern *p, const void *buf,
                         int rank, uint64_t first, size_t n);
size_t cb_io_count_wrong_reduced(struct cb_pattern_access *a, const struct cb_pattern *p,
                                 const void *buf, uint64_t first, size_t n);
void cb_io_poison(struct cb_pattern_access *a, int dtype, void *buf, size_t n);

/* Proves io equal to pattern.c: fills for several dtypes and reductions
 * read back bit for bit, poison likewise, and counts on buffers with
 * planted errors find exactly those. 1 when it passes; 0 with what
 * differed, so a wrong kernel can never report wrong = 0. */
int cb_pattern_io_selfcheck(const struct cb_pattern_io *io, char *why, size_t len);

/* The GPU kernels' io, once per process: NULL when this build has no CUDA,
 * or (with why) when there is no GPU or the self-check failed. */
const struct cb_pattern_io *cb_gpu_pattern_io(char *why, size_t len);

/* The same, agreed over cl's ranks: the kernels where every rank's
 * passed, else NULL with why (this rank's reason, or that another rank's
 * failed; a rank other than 0 says its own on stderr). Collective. */
struct cb_cluster;
const struct cb_pattern_io *cb_gpu_pattern_io_all(const struct cb_cluster *cl, char *why,
                                                  size_t len);

#endif
