/* cb_nccl_launch (nccl_launch.h): NCCL's calls for each op. */
#include "nccl_launch.h"

#include "base/dtype.h"
#include "ops/skew.h"

/* A failed call: its text for the message; a group still open (in_group)
 * is the caller's to end, after it has read NCCL's error. */
#define ATTEMPT(x, in_group)                                                                       \
  do {                                                                                             \
    ncclResult_t rc_ = (x);                                                                        \
    if (rc_ != ncclSuccess) {                                                                      \
      *call = #x, *group = in_group;                                                               \
      return rc_;                                                                                  \
    }                                                                                              \
  } while (0)
#define TRY(x) ATTEMPT(x, 0)
#define TRY_GROUP(x) ATTEMPT(x, 1)

static ncclDataType_t nccl_type(int dtype) {
  switch (dtype) {
  case CB_INT8: return ncclInt8;
  case CB_INT32: return ncclInt32;
  case CB_INT64: return ncclInt64;
  case CB_DOUBLE: return ncclFloat64;
  case CB_HALF: return ncclFloat16;
  case CB_BFLOAT16: return ncclBfloat16;
  case CB_FP8_E4M3: return ncclFloat8e4m3; /* NCCL >= 2.24 */
  case CB_FP8_E5M2: return ncclFloat8e5m2;
  default: return ncclFloat32;
  }
}

static ncclRedOp_t nccl_op(int redop) {
  switch (redop) {
  case CB_PROD: return ncclProd;
  case CB_MIN: return ncclMin;
  case CB_MAX: return ncclMax;
  default: return ncclSum;
  }
}

static size_t esize(const struct cb_op_args *a) {
  return cb_dtypes[a->dtype].size;
}

/* In place, each op reads its input where nccl-tests (and NCCL) expect it. */
static const void *input(const struct cb_nccl_lane *l, const struct cb_op_args *a) {
  if (a->send)
    return a->send;
  if (a->op->id == CB_OP_ALLGATHER)
    return (const char *)a->recv + (size_t)l->rank * a->count * esize(a);
  return a->recv;
}

static ncclResult_t run_p2p(const struct cb_nccl_lane *l, const struct cb_op_args *a,
                            const char **call, int *group) {
  ncclDataType_t t = nccl_type(a->dtype);
  int peer = a->peer, even = l->rank % 2 == 0;
  if (peer < 0)
    return ncclSuccess; /* the odd rank out */
  switch (a->op->id) {
  case CB_OP_P2P_LAT: /* a ping-pong: stream order makes the second wait for the first */
    if (even) {
      TRY(ncclSend(a->send, a->count, t, peer, l->comm, l->stream));
      TRY(ncclRecv(a->recv, a->count, t, peer, l->comm, l->stream));
    } else {
      TRY(ncclRecv(a->recv, a->count, t, peer, l->comm, l->stream));
      TRY(ncclSend(a->send, a->count, t, peer, l->comm, l->stream));
    }
    return ncclSuccess;
  case CB_OP_P2P_BW: /* a window one way, then a one-element acknowledgement */
    TRY(ncclGroupStart());
    for (int i = 0; i < a->window; i++)
      TRY_GROUP(even ? ncclSend(a->send, a->count, t, peer, l->comm, l->stream)
                     : ncclRecv(a->recv, a->count, t, peer, l->comm, l->stream));
    TRY(ncclGroupEnd());
    /* the receiver's buffer is only read; the sender's is never checked */
    TRY(even ? ncclRecv(a->recv, 1, t, peer, l->comm, l->stream)
             : ncclSend(a->recv, 1, t, peer, l->comm, l->stream));
    return ncclSuccess;
  default: /* p2p_bibw: both directions in one group */
    TRY(ncclGroupStart());
    for (int i = 0; i < a->window; i++) {
      TRY_GROUP(ncclSend(a->send, a->count, t, peer, l->comm, l->stream));
      TRY_GROUP(ncclRecv(a->recv, a->count, t, peer, l->comm, l->stream));
    }
    TRY(ncclGroupEnd());
    return ncclSuccess;
  }
}

/* NCCL has no all-to-all: one group of a send and a receive per peer. */
static ncclResult_t run_alltoall(const struct cb_nccl_lane *l, const struct cb_op_args *a,
                                 const char **call, int *group) {
  ncclDataType_t t = nccl_type(a->dtype);
  size_t block = a->count * esize(a);
  TRY(ncclGroupStart());
  for (int p = 0; p < l->nranks; p++) {
    TRY_GROUP(
        ncclSend((const char *)a->send + (size_t)p * block, a->count, t, p, l->comm, l->stream));
    TRY_GROUP(ncclRecv((char *)a->recv + (size_t)p * block, a->count, t, p, l->comm, l->stream));
  }
  TRY(ncclGroupEnd());
  return ncclSuccess;
}

/* alltoallv as nccl-tests runs it: a group of a send and a receive per
 * peer with anything to move. */
static ncclResult_t run_alltoallv(const struct cb_nccl_lane *l, const struct cb_op_args *a,
                                  const char **call, int *group) {
  const struct cb_skew_layout *v = a->layout;
  ncclDataType_t t = nccl_type(a->dtype);
  size_t es = esize(a);
  TRY(ncclGroupStart());
  for (int p = 0; p < l->nranks; p++) {
    if (v->send_counts[p])
      TRY_GROUP(ncclSend((const char *)a->send + v->send_displs[p] * es, v->send_counts[p], t, p,
                         l->comm, l->stream));
    if (v->recv_counts[p])
      TRY_GROUP(ncclRecv((char *)a->recv + v->recv_displs[p] * es, v->recv_counts[p], t, p, l->comm,
                         l->stream));
  }
  TRY(ncclGroupEnd());
  return ncclSuccess;
}

ncclResult_t cb_nccl_launch(const struct cb_nccl_lane *l, const struct cb_op_args *a,
                            const char **call, int *group) {
  *call = "", *group = 0;
  ncclDataType_t t = nccl_type(a->dtype);
  const void *in = input(l, a);
  switch (a->op->id) {
  case CB_OP_ALLREDUCE:
    TRY(ncclAllReduce(in, a->recv, a->count, t, nccl_op(a->redop), l->comm, l->stream));
    return ncclSuccess;
  case CB_OP_ALLGATHER:
    TRY(ncclAllGather(in, a->recv, a->count, t, l->comm, l->stream));
    return ncclSuccess;
  case CB_OP_REDUCESCATTER: {
    /* in place, the result lands in this rank's block (nccl-tests) */
    void *out = a->send ? a->recv : (char *)a->recv + (size_t)l->rank * a->count * esize(a);
    TRY(ncclReduceScatter(in, out, a->count, t, nccl_op(a->redop), l->comm, l->stream));
    return ncclSuccess;
  }
  case CB_OP_BROADCAST:
    TRY(ncclBroadcast(in, a->recv, a->count, t, a->root, l->comm, l->stream));
    return ncclSuccess;
  case CB_OP_ALLTOALL: return run_alltoall(l, a, call, group);
  case CB_OP_ALLTOALLV: return run_alltoallv(l, a, call, group);
  default: return run_p2p(l, a, call, group);
  }
}
