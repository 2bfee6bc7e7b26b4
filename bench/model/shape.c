/* Cost shapes per algorithm: which shape a recorded algorithm name has,
 * and its steps and bytes. The shapes are the textbook alpha-beta costs
 * (Thakur, Rabenseifner and Gropp 2005; NCCL's tuning.cc for Tree);
 * constant factors a shape gets wrong are absorbed by beta, since every
 * algorithm is fitted apart; what must be right is how each grows with p. */
#include <math.h>
#include <string.h>

#include "model.h"

const char *const cb_shape_names[CB_NSHAPES] = {"ring", "log", "doubling", "tree", "linear"};

/* Recorded names: Open MPI 4.1 coll/tuned's (bench/backends/ompi_algo.c)
 * and NCCL's (its TUNING log). recursive_doubling moves more than the
 * halving kind for allreduce (the whole buffer each step) and for
 * reduce_scatter_block (all but the partner's blocks each step). */
static const struct {
  const char *name;
  int shape;
} names[] = {
    {"ring", CB_SHAPE_RING},
    {"segmented_ring", CB_SHAPE_RING},
    {"neighbor", CB_SHAPE_RING},
    {"pairwise", CB_SHAPE_RING},
    {"chain", CB_SHAPE_RING},
    {"pipeline", CB_SHAPE_RING},
    {"scatter_allgather_ring", CB_SHAPE_RING},
    {"Ring", CB_SHAPE_RING},
    {"rabenseifner", CB_SHAPE_LOG},
    {"recursive_halving", CB_SHAPE_LOG},
    {"recursive_doubling", CB_SHAPE_LOG},
    {"butterfly", CB_SHAPE_LOG},
    {"bruck", CB_SHAPE_LOG},
    {"modified_bruck", CB_SHAPE_LOG},
    {"two_proc", CB_SHAPE_LOG},
    {"scatter_allgather", CB_SHAPE_LOG},
    {"PAT", CB_SHAPE_LOG},
    {"Tree", CB_SHAPE_TREE},
    {"binomial", CB_SHAPE_TREE},
    {"binary_tree", CB_SHAPE_TREE},
    {"split_binary_tree", CB_SHAPE_TREE},
    {"knomial", CB_SHAPE_TREE},
    {"nonoverlapping", CB_SHAPE_TREE},
    {"basic_linear", CB_SHAPE_LINEAR},
    {"linear", CB_SHAPE_LINEAR},
    {"linear_sync", CB_SHAPE_LINEAR},
};

int cb_model_shape_of(int op, const char *algo) {
  if (!algo || !*algo)
    return CB_SHAPE_RING;
  if ((op == CB_MOP_ALLREDUCE || op == CB_MOP_REDUCESCATTER) &&
      strcmp(algo, "recursive_doubling") == 0)
    return CB_SHAPE_DOUBLING;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(algo, names[i].name) == 0)
      return names[i].shape;
  return -1;
}

static double log2_ceil(int p) {
  return p > 1 ? ceil(log2((double)p)) : 0;
}

struct cb_terms cb_model_terms(int op, int shape, int p, int nodes) {
  double q = p, L = log2_ceil(p), ring = (q - 1) / q;
  /* a non-power-of-two folds the extra ranks in and out: 2 more steps */
  double fold = (p & (p - 1)) ? 2 : 0;
  if (p <= 1)
    return (struct cb_terms){0, 0};
  switch (shape) {
  case CB_SHAPE_LOG:
    if (op == CB_MOP_ALLREDUCE) /* reduce-scatter by halving, all-gather by doubling */
      return (struct cb_terms){2 * L + fold, 2 * ring};
    if (op == CB_MOP_BROADCAST) /* scatter, then all-gather by doubling */
      return (struct cb_terms){2 * L, 2 * ring};
    if (op == CB_MOP_ALLTOALL) /* bruck: half the data in each of L steps */
      return (struct cb_terms){L, L / 2};
    return (struct cb_terms){L + fold, ring};
  case CB_SHAPE_DOUBLING:
    /* Open MPI's reduce_scatter_block recursive doubling sends p - 2^k of
     * the p blocks in step k (coll_base_reduce_scatter_block.c: "alpha
     * log(p) + beta m (log(p) - (p-1)/p)"; the extra sends of a
     * non-power-of-two are left out, as there) */
    if (op == CB_MOP_REDUCESCATTER)
      return (struct cb_terms){L, L - ring};
    return (struct cb_terms){L + fold, L + fold};
  case CB_SHAPE_TREE:
    if (op == CB_MOP_ALLREDUCE)
      return (struct cb_terms){2 * L, 2};
    if (op == CB_MOP_BROADCAST)
      return (struct cb_terms){L, 1};
    return (struct cb_terms){L, ring};
  case CB_SHAPE_LINEAR:
    switch (op) {
    case CB_MOP_ALLREDUCE: return (struct cb_terms){2 * (q - 1), 2 * (q - 1)};
    case CB_MOP_BROADCAST: return (struct cb_terms){q - 1, q - 1};
    case CB_MOP_ALLTOALL: return cb_model_flat_terms(op, p, nodes);
    case CB_MOP_REDUCESCATTER:
      /* Open MPI's reduce_scatter_block basic_linear calls the library's own
       * reduce (for large buffers a pipelined tree: the buffer crosses each
       * link once) and scatter: 4 to 8 shaped nodes, 4 MiB took 634 and 670
       * ms, not the 2.1 times a root moving p-1 buffers would take */
      return (struct cb_terms){2 * L, 1 + ring};
    default: /* gather or reduce to the root, then broadcast or scatter */
      return (struct cb_terms){2 * (q - 1), (q - 1) + ring};
    }
  default: return cb_model_flat_terms(op, p, nodes);
  }
}

static double waited(double msg, double rndv, double queue) {
  return msg >= rndv ? fmin(msg, queue) : 0;
}

/* Each step's message: halving and doubling move n/2, n/4 ... n/2^L (twice
 * for allreduce, plus a whole buffer to fold a non-power-of-two in and a
 * block out); reduce-scatter's recursive doubling n - 2^k n/p in step k;
 * every other shape the same message each step, its bytes term spread
 * over its steps (ring: n/p). */
double cb_model_wait_bytes(int op, int shape, int p, int nodes, double bytes, double rndv,
                           double queue) {
  struct cb_terms t = cb_model_terms(op, shape, p, nodes);
  if (t.steps <= 0)
    return 0;
  if (shape == CB_SHAPE_LOG &&
      (op == CB_MOP_ALLREDUCE || op == CB_MOP_ALLGATHER || op == CB_MOP_REDUCESCATTER)) {
    double w = 0, L = log2_ceil(p), times = op == CB_MOP_ALLREDUCE ? 2 : 1;
    for (int k = 1; k <= L; k++)
      w += times * waited(bytes / pow(2, k), rndv, queue);
    if (p & (p - 1))
      w += waited(bytes, rndv, queue) +
           waited(op == CB_MOP_ALLREDUCE ? bytes : bytes / p, rndv, queue);
    return w;
  }
  if (shape == CB_SHAPE_DOUBLING && op == CB_MOP_REDUCESCATTER) {
    double w = 0;
    for (int k = 0; k < t.steps; k++)
      w += waited(bytes * (1 - pow(2, k) / p), rndv, queue);
    return w;
  }
  return t.steps * waited(t.share * bytes / t.steps, rndv, queue);
}

double cb_model_time(int op, int shape, int p, int nodes, double bytes, const struct cb_link *l) {
  struct cb_terms t = cb_model_terms(op, shape, p, nodes);
  double wait = l->gamma > 0
                    ? l->gamma * cb_model_wait_bytes(op, shape, p, nodes, bytes, l->rndv, l->queue)
                    : 0;
  return t.steps * l->alpha + t.share * bytes * l->beta + wait;
}
