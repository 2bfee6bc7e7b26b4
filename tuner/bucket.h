/* DDP-style gradient buckets (Li et al., "PyTorch Distributed",
 * VLDB 2020, section 3.2.3; torch.nn.parallel.DistributedDataParallel's
 * bucket_cap_mb): tensors are taken
 * in the order their gradients become ready and packed into buckets of
 * about `cap` bytes; a bucket closes once it holds `cap` bytes or more, and
 * a tensor is never split across buckets. Pure: unit-tested. */
#ifndef CB_BUCKET_H
#define CB_BUCKET_H

#include <stddef.h>
#include <stdint.h>

struct cb_bucket {
  int first, ntensors;  /* tensors first .. first+ntensors-1 (ready order) */
  size_t offset, elems; /* the contiguous slice of the flat gradient buffer */
};

/* Fills out[0..n-1] and returns n (at most ntensors); cap 0 means one
 * tensor per bucket. */
int cb_buckets_assign(const size_t *tensor_elems, int ntensors, size_t elem_size, uint64_t cap,
                      struct cb_bucket *out);

#endif
