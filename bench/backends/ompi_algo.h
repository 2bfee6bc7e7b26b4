/* Which coll/tuned algorithm Open MPI 4.1 runs for a collective: its
 * algorithm numbers and names, its fixed decision rules (transcribed), and
 * the fall-backs inside the algorithms. Pure logic, no MPI: the mpi
 * backend asks it, tests/unit/test_ompi_algo.c checks it. */
#ifndef CB_OMPI_ALGO_H
#define CB_OMPI_ALGO_H

#include <stddef.h>

/* The coll_tuned_<coll>_algorithm name of op (enum cb_op_id), e.g.
 * "allreduce" -> "allreduce"; NULL for ops coll/tuned does not serve. */
const char *cb_ompi_coll_name(int op);
/* Open MPI's name of algorithm alg of op ("ring"), NULL when out of range. */
const char *cb_ompi_algo_name(int op, int alg);
/* The algorithm Open MPI 4.1.4's fixed rules pick for op with p ranks and
 * `block_bytes` (the size its rule reads: allreduce the buffer, allgather
 * and reduce_scatter_block one rank's block), commutative operation;
 * 0 where the rules are not transcribed (broadcast, alltoall). */
int cb_ompi_rules(int op, int p, size_t block_bytes);
/* MPI_Reduce, which reduce_scatter_block's basic_linear calls on the whole
 * buffer before a linear scatter: the algorithm (coll_tuned_reduce_algorithm
 * numbers, CB_OMPI_REDUCE_*) Open MPI 4.1.4's fixed rules pick for p ranks
 * and `bytes` (the whole buffer), commutative, and its name ("binomial"). */
enum {
  CB_OMPI_REDUCE_LINEAR = 1,
  CB_OMPI_REDUCE_CHAIN,
  CB_OMPI_REDUCE_PIPELINE,
  CB_OMPI_REDUCE_BINARY,
  CB_OMPI_REDUCE_BINOMIAL,
  CB_OMPI_REDUCE_IN_ORDER_BINARY,
  CB_OMPI_REDUCE_RABENSEIFNER
};
int cb_ompi_reduce_rule(int p, size_t bytes);
const char *cb_ompi_reduce_name(int alg);
/* The algorithm that actually runs when alg is asked for: some fall back
 * (ring allreduce with fewer elements than ranks runs recursive doubling,
 * recursive-doubling allgather on a non-power-of-two runs bruck...).
 * count: elements per rank block; segsize: the segmented ring's. */
int cb_ompi_effective(int op, int alg, int p, size_t count, size_t type_size, size_t segsize);

#endif
