/* DDP-style gradient buckets: tensors packed in gradient-ready order (bucket.h says more). */
#include "bucket.h"

int cb_buckets_assign(const size_t *tensor_elems, int ntensors, size_t elem_size, uint64_t cap,
                      struct cb_bucket *out) {
  int n = 0;
  size_t offset = 0;
  for (int t = 0; t < ntensors; t++) {
    if (n == 0 || (uint64_t)out[n - 1].elems * elem_size >= cap) {
      out[n].first = t;
      out[n].ntensors = 0;
      out[n].offset = offset;
      out[n].elems = 0;
      n++;
    }
    out[n - 1].ntensors++;
    out[n - 1].elems += tensor_elems[t];
    offset += tensor_elems[t];
  }
  return n;
}
