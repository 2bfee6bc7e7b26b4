/* Open MPI 4.1.4's coll/tuned choices as collbench transcribed them: each
 * case below was read off coll_tuned_decision_fixed.c and
 * coll_base_{allreduce,allgather}.c at tag v4.1.4 (see ompi_algo.c). */
#include <string.h>

#include "backends/ompi_algo.h"
#include "ops/op.h"
#include "tap.h"

static void rule(int op, int p, size_t bytes, const char *want) {
  int alg = cb_ompi_rules(op, p, bytes);
  const char *got = cb_ompi_algo_name(op, alg);
  ok(got && strcmp(got, want) == 0, "%s, %d ranks, %zu B: rules pick %s (got %s)",
     cb_ompi_coll_name(op), p, bytes, want, got ? got : "none");
}

static void reduce(int p, size_t bytes, const char *want) {
  const char *got = cb_ompi_reduce_name(cb_ompi_reduce_rule(p, bytes));
  ok(got && strcmp(got, want) == 0, "reduce, %d ranks, %zu B: rules pick %s (got %s)", p, bytes,
     want, got ? got : "none");
}

int main(void) {
  is_str(cb_ompi_algo_name(CB_OP_ALLREDUCE, 6), "rabenseifner", "allreduce 6 is rabenseifner");
  is_str(cb_ompi_algo_name(CB_OP_ALLGATHER, 2), "bruck", "allgather 2 is bruck");
  ok(cb_ompi_algo_name(CB_OP_ALLREDUCE, 7) == NULL && cb_ompi_coll_name(CB_OP_P2P_LAT) == NULL,
     "no algorithm 7 for allreduce; p2p is not coll/tuned's");
  /* allreduce, commutative: comm < 4: < 4096 recursive doubling, < 8192 ring,
   * < 16384 rd, < 65536 ring, < 262144 segmented ring, else rabenseifner */
  rule(CB_OP_ALLREDUCE, 2, 1024, "recursive_doubling");
  rule(CB_OP_ALLREDUCE, 2, 4096, "ring");
  rule(CB_OP_ALLREDUCE, 2, 65536, "segmented_ring");
  rule(CB_OP_ALLREDUCE, 2, 262144, "rabenseifner");
  rule(CB_OP_ALLREDUCE, 4, 8191, "recursive_doubling");     /* comm < 8 */
  rule(CB_OP_ALLREDUCE, 8, 8192, "rabenseifner");           /* comm < 16 */
  rule(CB_OP_ALLREDUCE, 5000, 20000, "recursive_doubling"); /* the last bracket */
  /* allgather: 2 ranks two_proc; < 32 ranks recursive doubling; 32..63:
   * < 1024 rd, < 65536 neighbor, else ring */
  rule(CB_OP_ALLGATHER, 2, 1 << 20, "two_proc");
  rule(CB_OP_ALLGATHER, 8, 1 << 20, "recursive_doubling");
  rule(CB_OP_ALLGATHER, 40, 65536, "ring");
  /* reduce_scatter_block (per-rank block): comm < 4, >= 131072 basic linear;
   * comm < 8: < 1048576 recursive halving, else basic linear */
  rule(CB_OP_REDUCESCATTER, 2, 131072, "basic_linear");
  rule(CB_OP_REDUCESCATTER, 4, 65536, "recursive_halving");
  rule(CB_OP_REDUCESCATTER, 8, 1 << 20, "basic_linear"); /* comm < 16: < 4 MiB linear */
  /* reduce (the whole buffer; reduce_scatter_block basic_linear runs it),
   * commutative: comm < 4: < 262144 linear, < 524288 pipeline, < 1048576
   * chain, else pipeline; comm < 8: < 4096 binary, < 65536 chain, < 262144
   * binomial, < 524288 linear, < 1048576 binomial, else linear; comm < 16:
   * < 8192 binary, else binomial; 256..511: 8192..16383 in-order binary */
  reduce(2, 131072, "linear");
  reduce(2, 262144, "pipeline");
  reduce(2, 524288, "chain");
  reduce(2, 1 << 20, "pipeline");
  reduce(4, 4095, "binary");
  reduce(4, 4096, "chain");
  reduce(4, 65536, "binomial");
  reduce(4, 131072, "binomial");
  reduce(4, 262144, "linear");
  reduce(4, 524288, "binomial");
  reduce(4, 1 << 20, "linear");
  reduce(4, 8 << 20, "linear");
  reduce(8, 8191, "binary");
  reduce(8, 8192, "binomial");
  reduce(8, 8 << 20, "binomial");
  reduce(300, 8192, "in-order_binary");
  reduce(5000, 1024, "in-order_binary");
  ok(cb_ompi_reduce_name(7) && strcmp(cb_ompi_reduce_name(7), "rabenseifner") == 0 &&
         cb_ompi_reduce_name(8) == NULL && cb_ompi_reduce_name(0) == NULL,
     "reduce algorithm 7 is rabenseifner, 8 and 0 (ignore) are none");
  ok(cb_ompi_rules(CB_OP_BROADCAST, 4, 1024) == 0, "broadcast rules not transcribed: 0");
  /* fall-backs inside the algorithms */
  ok(cb_ompi_effective(CB_OP_ALLREDUCE, 4, 8, 4, 4, 0) == 3,
     "ring allreduce with fewer elements than ranks runs recursive doubling");
  ok(cb_ompi_effective(CB_OP_ALLREDUCE, 5, 4, 1 << 20, 4, 0) == 4,
     "segmented ring without a segment size is the ring");
  ok(cb_ompi_effective(CB_OP_ALLREDUCE, 5, 4, 1 << 20, 4, 65536) == 5,
     "segmented ring with 64 KiB segments over 4 MiB stays segmented");
  ok(cb_ompi_effective(CB_OP_ALLGATHER, 3, 6, 100, 4, 0) == 2,
     "recursive doubling allgather on 6 ranks runs bruck");
  ok(cb_ompi_effective(CB_OP_ALLGATHER, 5, 5, 100, 4, 0) == 4 &&
         cb_ompi_effective(CB_OP_ALLGATHER, 5, 4, 100, 4, 0) == 5,
     "neighbor exchange on an odd count runs ring, on an even one itself");
  done_testing();
  return exit_status();
}
