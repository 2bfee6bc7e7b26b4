/* Host-side launch arithmetic for the CUDA kernels, kept in C so it is tested
 * without a GPU. */
#include "launch.h"

struct cb_launch cb_launch_dims(size_t n, unsigned threads, unsigned max_blocks) {
  struct cb_launch l = {0, threads ? threads : 1};
  if (n == 0)
    return l;
  size_t blocks = (n + l.threads - 1) / l.threads;
  l.blocks = blocks < max_blocks ? (unsigned)blocks : (max_blocks ? max_blocks : 1);
  return l;
}
