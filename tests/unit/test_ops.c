/* The op table: names, bus bandwidth factors (nccl-tests' formulas),
 * buffer shapes, time divisors and p2p pairing. */
#include <string.h>

#include "ops/op.h"
#include "tap.h"

static const int nranks_list[] = {1, 2, 3, 4, 8};
#define NNRANKS (int)(sizeof nranks_list / sizeof nranks_list[0])

/* nccl-tests (doc/PERFORMANCE.md): allreduce 2(n-1)/n; allgather,
 * reducescatter and alltoall (n-1)/n; broadcast 1 (0 with one rank: no
 * bus traffic); p2p 1. */
static double expected_factor(int op, int n) {
  switch (op) {
  case CB_OP_ALLREDUCE: return 2.0 * (n - 1) / n;
  case CB_OP_ALLGATHER:
  case CB_OP_REDUCESCATTER:
  case CB_OP_ALLTOALL:
  case CB_OP_ALLTOALLV: return (double)(n - 1) / n;
  case CB_OP_BROADCAST: return 1.0; /* nccl-tests: factor 1, one rank too */
  default: return 1.0;
  }
}

static void test_names(void) {
  static const char *const names[CB_NOPS] = {
      "allreduce", "allgather", "reducescatter", "broadcast", "alltoall",
      "p2p_lat",   "p2p_bw",    "p2p_bibw",      "alltoallv",
  };
  for (int i = 0; i < CB_NOPS; i++) {
    const struct cb_op *op = cb_ops[i];
    ok(op && op->id == (enum cb_op_id)i && strcmp(op->name, names[i]) == 0 &&
           cb_op_lookup(names[i]) == i,
       "op %d is '%s' and looks up to itself", i, names[i]);
    ok(op->shape && op->busbw_factor && op->time_divisor && op->fill && op->check,
       "%s has every function", names[i]);
    /* only ops with an in-place variant say where its result is */
    ok(!op->has_inplace == !op->inplace_result_offset, "%s: has_inplace matches offset fn",
       names[i]);
  }
  is_long(cb_op_lookup("allreduc"), -1, "lookup: prefix is unknown");
  is_long(cb_op_lookup("AllReduce"), -1, "lookup: case matters");
  is_long(cb_op_lookup(""), -1, "lookup: empty is unknown");
  ok(cb_ops[CB_OP_ALLREDUCE]->uses_redop && cb_ops[CB_OP_REDUCESCATTER]->uses_redop &&
         !cb_ops[CB_OP_ALLGATHER]->uses_redop && !cb_ops[CB_OP_P2P_BW]->uses_redop,
     "only allreduce and reducescatter reduce");
  ok(cb_ops[CB_OP_BROADCAST]->uses_root && !cb_ops[CB_OP_ALLREDUCE]->uses_root,
     "only broadcast has a root");
  for (int i = CB_OP_P2P_LAT; i <= CB_OP_P2P_BIBW; i++)
    ok(cb_ops[i]->min_ranks == 2 && !cb_ops[i]->has_inplace, "%s: 2+ ranks, no in-place",
       cb_ops[i]->name);
}

static void test_busbw(void) {
  for (int i = 0; i < CB_NOPS; i++)
    for (int k = 0; k < NNRANKS; k++) {
      int n = nranks_list[k];
      if (n < cb_ops[i]->min_ranks)
        continue; /* p2p never runs on one rank */
      is_double(cb_ops[i]->busbw_factor(n), expected_factor(i, n), 1e-15,
                "%s busbw factor, %d ranks", cb_ops[i]->name, n);
    }
}

/* 1 MiB of float: the expected element counts per rank, written out. */
static void test_shapes(void) {
  const uint64_t bytes = 1 << 20;
  const size_t esize = sizeof(float);
  for (int i = 0; i < CB_NOPS; i++)
    for (int k = 0; k < NNRANKS; k++) {
      int n = nranks_list[k];
      const struct cb_op *op = cb_ops[i];
      if (n < op->min_ranks)
        continue;
      struct cb_shape s;
      memset(&s, 0xa5, sizeof s); /* every field must be written */
      op->shape(bytes, esize, n, NULL, &s);
      struct cb_shape w = {0};
      size_t whole = bytes / esize;               /* 262144 */
      size_t block = bytes / (esize * (size_t)n); /* per-rank block, rounded down */
      switch (i) {
      case CB_OP_ALLREDUCE:
      case CB_OP_BROADCAST: w = (struct cb_shape){whole, whole, whole, whole, bytes, bytes}; break;
      case CB_OP_ALLGATHER: /* send one block, gather n */
        w = (struct cb_shape){
            block, block, block * n, block * n, block * n * esize, block * n * esize};
        break;
      case CB_OP_REDUCESCATTER: /* send n blocks, keep one */
        w = (struct cb_shape){block,     block * n,         block,
                              block * n, block * n * esize, block * n * esize};
        break;
      case CB_OP_ALLTOALL:
        w = (struct cb_shape){block,     block * n,         block * n,
                              block * n, block * n * esize, block * n * esize};
        break;
      case CB_OP_ALLTOALLV: /* uniform: every rank sends (and receives) the whole row */
        w = (struct cb_shape){whole, whole, whole, 0, bytes, bytes};
        break;
      case CB_OP_P2P_LAT:
      case CB_OP_P2P_BW: w = (struct cb_shape){whole, whole, whole, 0, bytes, bytes}; break;
      case CB_OP_P2P_BIBW: /* both directions count, as in OSU */
        w = (struct cb_shape){whole, whole, whole, 0, bytes, 2 * bytes};
        break;
      }
      ok(s.count == w.count && s.send_elems == w.send_elems && s.recv_elems == w.recv_elems &&
             s.inplace_elems == w.inplace_elems && s.bytes == w.bytes &&
             s.algbw_bytes == w.algbw_bytes,
         "%s shape, 1M float, %d ranks", op->name, n);
      if (s.count != w.count || s.bytes != w.bytes || s.algbw_bytes != w.algbw_bytes ||
          s.send_elems != w.send_elems || s.recv_elems != w.recv_elems ||
          s.inplace_elems != w.inplace_elems)
        diag("got count %zu send %zu recv %zu inplace %zu bytes %llu algbw %llu", s.count,
             s.send_elems, s.recv_elems, s.inplace_elems, (unsigned long long)s.bytes,
             (unsigned long long)s.algbw_bytes);
    }
  /* 3 ranks do not divide 1M: the row reports the bytes really moved */
  struct cb_shape s;
  cb_ops[CB_OP_ALLGATHER]->shape(1 << 20, 4, 3, NULL, &s);
  ok(s.count == 87381 && s.bytes == 1048572, "allgather 1M/3 ranks rounds down to 1048572 B");
}

static void test_divisors(void) {
  const int windows[] = {1, 8, 64};
  for (int i = 0; i < CB_NOPS; i++)
    for (int k = 0; k < 3; k++) {
      int w = windows[k];
      double want = i == CB_OP_P2P_LAT                           ? 2.0
                    : (i == CB_OP_P2P_BW || i == CB_OP_P2P_BIBW) ? (double)w
                                                                 : 1.0;
      is_double(cb_ops[i]->time_divisor(w), want, 0, "%s time divisor, window %d", cb_ops[i]->name,
                w);
    }
}

static void test_offsets(void) {
  is_long((long)cb_ops[CB_OP_REDUCESCATTER]->inplace_result_offset(100, 3), 300,
          "reducescatter in place: result in the rank's own block");
  is_long((long)cb_ops[CB_OP_ALLGATHER]->inplace_result_offset(100, 3), 0,
          "allgather in place: result at the start");
  is_long((long)cb_ops[CB_OP_ALLREDUCE]->inplace_result_offset(100, 3), 0,
          "allreduce in place: result at the start");
}

static void test_peers(void) {
  is_long(cb_p2p_peer(0, 2), 1, "peer of 0 in 2 is 1");
  is_long(cb_p2p_peer(1, 2), 0, "peer of 1 in 2 is 0");
  is_long(cb_p2p_peer(2, 4), 3, "peer of 2 in 4 is 3");
  is_long(cb_p2p_peer(3, 4), 2, "peer of 3 in 4 is 2");
  is_long(cb_p2p_peer(2, 3), -1, "rank 2 of 3 sits out");
  is_long(cb_p2p_peer(0, 1), -1, "a lone rank sits out");
  is_long(cb_p2p_peer(6, 7), -1, "rank 6 of 7 sits out");
  /* pairing is symmetric for every rank that has a peer */
  int symmetric = 1;
  for (int n = 1; n <= 9; n++)
    for (int r = 0; r < n; r++) {
      int p = cb_p2p_peer(r, n);
      if (p >= 0 && (p >= n || p == r || cb_p2p_peer(p, n) != r))
        symmetric = 0;
      if (p < 0 && !(n % 2 == 1 && r == n - 1))
        symmetric = 0;
    }
  ok(symmetric, "pairs are symmetric; only the last of an odd count sits out");
}

int main(void) {
  test_names();
  test_busbw();
  test_shapes();
  test_divisors();
  test_offsets();
  test_peers();
  done_testing();
  return exit_status();
}
