/* What several ops share: busbw factors, window divisors, buffer offsets
 * and the p2p pairing. The ops call these; the table (ops.c) calls the
 * ops, so these sit below both. */
#include "op.h"

int cb_p2p_peer(int rank, int nranks) {
  int peer = rank ^ 1;
  return peer < nranks ? peer : -1;
}

/* Broadcast's (and the pairs') bus bandwidth is its algbw at any rank
 * count, one rank included, as nccl-tests' BroadcastGetBw (factor 1). */
double cb_busbw_one(int nranks) {
  (void)nranks;
  return 1.0;
}
double cb_busbw_gather(int nranks) {
  return (double)(nranks - 1) / (double)nranks;
}
double cb_divisor_one(int window) {
  (void)window;
  return 1.0;
}
size_t cb_offset_zero(size_t count, int rank) {
  (void)count;
  (void)rank;
  return 0;
}
