/* Open MPI 4.1's coll/tuned algorithms. The names are those `ompi_info
 * --param coll tuned --level 9` lists for 4.1.4; the rules are
 * ompi_coll_tuned_{allreduce,allgather,reduce_scatter_block,reduce}_intra_dec_fixed
 * of ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at tag v4.1.4
 * (commutative branch; every reduction collbench runs is commutative); the
 * fall-backs are those of ompi/mca/coll/base/coll_base_{allreduce,
 * allgather}.c at v4.1.4. Newer Open MPI releases may decide otherwise. */
#include "ompi_algo.h"

#include "ops/op.h"

#define MAX_ALGS 10
struct coll {
  const char *name;
  const char *algs[MAX_ALGS]; /* index = Open MPI's number; 0 is "ignore" */
};

static const struct coll colls[] = {
    [CB_OP_ALLREDUCE] = {"allreduce",
                         {"ignore", "basic_linear", "nonoverlapping", "recursive_doubling", "ring",
                          "segmented_ring", "rabenseifner"}},
    [CB_OP_ALLGATHER] = {"allgather",
                         {"ignore", "linear", "bruck", "recursive_doubling", "ring", "neighbor",
                          "two_proc"}},
    [CB_OP_REDUCESCATTER] = {"reduce_scatter_block",
                             {"ignore", "basic_linear", "recursive_doubling", "recursive_halving",
                              "butterfly"}},
    [CB_OP_BROADCAST] = {"bcast",
                         {"ignore", "basic_linear", "chain", "pipeline", "split_binary_tree",
                          "binary_tree", "binomial", "knomial", "scatter_allgather",
                          "scatter_allgather_ring"}},
    [CB_OP_ALLTOALL] = {"alltoall",
                        {"ignore", "linear", "pairwise", "modified_bruck", "linear_sync",
                         "two_proc"}},
};
#define NCOLLS (int)(sizeof colls / sizeof colls[0])

const char *cb_ompi_coll_name(int op) {
  return op >= 0 && op < NCOLLS ? colls[op].name : NULL;
}

const char *cb_ompi_algo_name(int op, int alg) {
  if (op < 0 || op >= NCOLLS || alg < 1 || alg >= MAX_ALGS)
    return NULL;
  return colls[op].algs[alg];
}

/* One communicator-size bracket of a rule: below `ranks`, the first
 * (bytes below, algorithm) pair that holds; the last pair has bytes 0,
 * meaning "any larger size". */
#define UPTO 10
struct bracket {
  int ranks; /* 0: every size left */
  struct {
    size_t below;
    int alg;
  } by[UPTO];
};

/* ompi_coll_tuned_allreduce_intra_dec_fixed, commutative branch */
static const struct bracket allreduce_rules[] = {
    {4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}, {0, 6}}},
    {8, {{16, 4}, {8192, 3}, {0, 6}}},
    {16, {{8192, 3}, {0, 6}}},
    {32, {{64, 5}, {4096, 3}, {0, 6}}},
    {64, {{128, 5}, {0, 6}}},
    {128, {{262144, 3}, {0, 6}}},
    {256, {{131072, 2}, {262144, 3}, {0, 6}}},
    {512, {{4096, 2}, {0, 6}}},
    {2048, {{2048, 2}, {16384, 3}, {0, 6}}},
    {4096, {{2048, 2}, {4096, 5}, {16384, 3}, {0, 6}}},
    {0, {{2048, 2}, {16384, 5}, {32768, 3}, {0, 6}}},
};

/* ompi_coll_tuned_allgather_intra_dec_fixed (2 ranks: two_proc) */
static const struct bracket allgather_rules[] = {
    {3, {{0, 6}}},
    {32, {{0, 3}}},
    {64, {{1024, 3}, {65536, 5}, {0, 4}}},
    {128, {{512, 3}, {65536, 5}, {0, 4}}},
    {256, {{512, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {0, 4}}},
    {512, {{32, 3}, {128, 2}, {1024, 3}, {131072, 5}, {524288, 4}, {1048576, 5}, {0, 4}}},
    {1024, {{64, 3}, {256, 2}, {2048, 3}, {0, 5}}},
    {2048, {{4, 3}, {8, 2}, {16, 3}, {32, 2}, {256, 3}, {512, 2}, {4096, 3}, {0, 5}}},
    {4096, {{32, 2}, {128, 3}, {512, 2}, {4096, 3}, {0, 5}}},
    {0, {{2, 3}, {8, 2}, {16, 3}, {512, 2}, {4096, 3}, {0, 5}}},
};

/* ompi_coll_tuned_reduce_scatter_block_intra_dec_fixed, commutative */
static const struct bracket reduce_scatter_block_rules[] = {
    {4, {{4, 2}, {8, 4}, {16, 3}, {128, 4}, {256, 3}, {4096, 4}, {8192, 3}, {131072, 4}, {0, 1}}},
    {8, {{8, 3}, {32, 2}, {256, 4}, {8192, 3}, {16384, 4}, {1048576, 3}, {0, 1}}},
    {16, {{4, 1}, {32, 3}, {128, 4}, {524288, 3}, {4194304, 1}, {0, 4}}},
    {32, {{32, 1}, {524288, 3}, {2097152, 1}, {4194304, 3}, {0, 4}}},
    {0, {{4, 3}, {16, 1}, {65536, 4}, {262144, 1}, {0, 4}}},
};

/* ompi_coll_tuned_reduce_intra_dec_fixed, commutative branch (the same file
 * and tag). It passes segment size 0 to every algorithm, so each runs
 * unsegmented: the whole buffer is one message per tree edge. */
static const struct bracket reduce_rules[] = {
    {4, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}, {0, 3}}},
    {8, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}, {0, 1}}},
    {16, {{8192, 4}, {0, 5}}},
    {32, {{4096, 4}, {0, 5}}},
    {256, {{0, 5}}},
    {512, {{8192, 5}, {16384, 6}, {0, 5}}},
    {2048, {{0, 5}}},
    {4096, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}, {0, 5}}},
    {0, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}, {0, 5}}},
};

static const char *const reduce_algs[] = {"ignore", "linear",   "chain",           "pipeline",
                                          "binary", "binomial", "in-order_binary", "rabenseifner"};

static int decide(const struct bracket *rules, int p, size_t bytes) {
  const struct bracket *b = rules;
  while (b->ranks && p >= b->ranks)
    b++;
  for (int i = 0; i < UPTO; i++)
    if (b->by[i].below == 0 || bytes < b->by[i].below)
      return b->by[i].alg;
  return 0; /* not reached: every bracket ends with {0, alg} */
}

int cb_ompi_rules(int op, int p, size_t block_bytes) {
  switch (op) {
  case CB_OP_ALLREDUCE: return decide(allreduce_rules, p, block_bytes);
  case CB_OP_ALLGATHER: return decide(allgather_rules, p, block_bytes);
  case CB_OP_REDUCESCATTER: return decide(reduce_scatter_block_rules, p, block_bytes);
  default: return 0;
  }
}

int cb_ompi_reduce_rule(int p, size_t bytes) {
  return decide(reduce_rules, p, bytes);
}

const char *cb_ompi_reduce_name(int alg) {
  int n = (int)(sizeof reduce_algs / sizeof reduce_algs[0]);
  return alg >= 1 && alg < n ? reduce_algs[alg] : NULL;
}

static int power_of_two(int p) {
  return p > 0 && (p & (p - 1)) == 0;
}

static int floor_power_of_two(int p) {
  int f = 1;
  while (2 * f <= p)
    f *= 2;
  return f;
}

int cb_ompi_effective(int op, int alg, int p, size_t count, size_t type_size, size_t segsize) {
  if (op == CB_OP_ALLREDUCE) {
    if (alg == 5) { /* COLL_BASE_COMPUTED_SEGCOUNT; too few segments: plain ring */
      size_t segcount = count;
      if (segsize >= type_size && segsize < type_size * count)
        segcount = segsize / type_size + (segsize % type_size > type_size / 2);
      if (count < (size_t)p * segcount)
        alg = 4;
    }
    if (alg == 4 && count < (size_t)p)
      alg = 3;
    if (alg == 6 && count < (size_t)floor_power_of_two(p))
      alg = 1;
  } else if (op == CB_OP_ALLGATHER) {
    if (alg == 3 && !power_of_two(p))
      alg = 2;
    if (alg == 5 && p % 2)
      alg = 4;
  }
  return alg;
}
