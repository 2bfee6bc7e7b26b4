/* Cost shapes per algorithm: which shape a recorded algorithm name has,
 * and its steps and bytes. The shapes are the textbook alpha-beta costs
 * (Thakur, Rabenseifner and Gropp 2005; NCCL's tuning.cc for Tree);
 * constant factors a shape gets wrong are absorbed by beta, since every
 * algorithm is fitted apart; what must be right is how each grows with p. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "backends/ompi_algo.h"
#include "model.h"

const char *const cb_shape_names[CB_NSHAPES] = {"ring", "log", "doubling", "tree", "linear"};

/* Steps and the fraction of the bytes each rank sends in the flat
 * algorithm: ring reduce-scatter + all-gather for allreduce, ring for
 * allgather and reducescatter, a pipelined chain for broadcast, pairwise
 * exchange for alltoall. Only alltoall depends on the node count: a node's
 * ranks send (nodes-1)/nodes of their data through the node's NICs at once. */
struct cb_terms cb_model_flat_terms(int op, int p, int nodes) {
  double q = p, steps = p - 1;
  if (p <= 1)
    return (struct cb_terms){0, 0};
  switch (op) {
  case CB_MOP_ALLREDUCE: return (struct cb_terms){2 * steps, 2 * steps / q};
  case CB_MOP_BROADCAST: return (struct cb_terms){steps, 1};
  case CB_MOP_ALLTOALL:
    if (nodes > 1)
      return (struct cb_terms){steps, q / nodes * (nodes - 1) / nodes};
    return (struct cb_terms){steps, steps / q};
  default: return (struct cb_terms){steps, steps / q};
  }
}

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

/* Whole-buffer messages on the critical path of Open MPI's binary-tree
 * reduce run unsegmented, below shifted rank s (coll_base_topo.c's
 * build_tree, fanout 2: s on level l, delta = 2^l, has children s + delta
 * and s + 2 delta): a node takes its children's buffers in turn, each once
 * that child holds its own subtree's. */
static int binary_messages(int s, int p) {
  int delta = 1, t = 0;
  while (2 * delta - 1 <= s)
    delta *= 2;
  for (int i = 1; i <= 2 && s + i * delta < p; i++) {
    int c = binary_messages(s + i * delta, p);
    t = (c > t ? c : t) + 1;
  }
  return t;
}

/* Open MPI 4.1.4's MPI_Reduce of `bytes` on p ranks, the algorithm its fixed
 * rules pick (cb_ompi_reduce_rule), unsegmented as those rules run it:
 * linear receives p-1 buffers at the root in turn, chain (fanout 0 is 1)
 * and pipeline pass the buffer along p-1 hops, binomial's root takes its L
 * children's buffers in turn, smallest subtree first, so each child is
 * done by then (coll_base_topo.c, in-order bmtree), binary per
 * binary_messages (in-order binary, only at 256 ranks and more at 8-16
 * KiB, costed as binary), rabenseifner (under 8 B) halves and gathers. */
static struct cb_terms reduce_terms(int p, double bytes) {
  double q = p, L = log2_ceil(p), m;
  switch (cb_ompi_reduce_rule(p, (size_t)bytes)) {
  case CB_OMPI_REDUCE_BINOMIAL: return (struct cb_terms){L, L};
  case CB_OMPI_REDUCE_BINARY:
  case CB_OMPI_REDUCE_IN_ORDER_BINARY: m = binary_messages(0, p); return (struct cb_terms){m, m};
  case CB_OMPI_REDUCE_RABENSEIFNER: return (struct cb_terms){2 * L, 2 * (q - 1) / q};
  default: return (struct cb_terms){q - 1, q - 1};
  }
}

struct cb_terms cb_model_terms(int op, int shape, int p, int nodes, double bytes) {
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
    case CB_MOP_REDUCESCATTER: {
      /* Open MPI's reduce_scatter_block basic_linear: the library's own
       * reduce of the whole buffer to rank 0, then a scatter of p-1 blocks
       * from it (linear: coll/tuned's scatter rules pick binomial for
       * blocks under 16 KiB at 4-31 ranks, the same bytes in fewer steps) */
      struct cb_terms r = reduce_terms(p, bytes);
      return (struct cb_terms){r.steps + q - 1, r.share + ring};
    }
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
  struct cb_terms t = cb_model_terms(op, shape, p, nodes, bytes);
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
  if (shape == CB_SHAPE_LINEAR && op == CB_MOP_REDUCESCATTER) {
    /* the reduce's messages (the whole buffer, but rabenseifner's), then p-1 blocks */
    struct cb_terms r = reduce_terms(p, bytes);
    return r.steps * waited(r.share * bytes / r.steps, rndv, queue) +
           (p - 1) * waited(bytes / p, rndv, queue);
  }
  return t.steps * waited(t.share * bytes / t.steps, rndv, queue);
}

double cb_model_time(int op, int shape, int p, int nodes, double bytes, const struct cb_link *l) {
  struct cb_terms t = cb_model_terms(op, shape, p, nodes, bytes);
  double wait = l->gamma > 0
                    ? l->gamma * cb_model_wait_bytes(op, shape, p, nodes, bytes, l->rndv, l->queue)
                    : 0;
  return t.steps * l->alpha + t.share * bytes * l->beta + wait;
}

/* Up to how many ranks each shape's steps are exchanges with one peer, the
 * two sending to each other at once over one connection, per op: halving
 * and doubling at any count (log's broadcast: its all-gather; log counts
 * bruck too, whose send and receive peers differ beyond 2 ranks: it
 * over-warns there); a ring, and the pairwise or linear alltoall, only at
 * 2 ranks, where both neighbours are one peer; a chain, tree or root sends
 * one way. */
#define ANY INT_MAX
static const int pairwise_upto[CB_NSHAPES][CB_NMOPS] = {
    /* allreduce, allgather, reducescatter, broadcast, alltoall */
    [CB_SHAPE_RING] = {2, 2, 2, 0, 2},         /* broadcast: a chain */
    [CB_SHAPE_LOG] = {ANY, ANY, ANY, ANY, 2},  /* alltoall: bruck */
    [CB_SHAPE_DOUBLING] = {ANY, 0, ANY, 0, 0}, /* allreduce and reducescatter only */
    [CB_SHAPE_TREE] = {0, 0, 0, 0, 0},         /* up, then down */
    [CB_SHAPE_LINEAR] = {0, 0, 0, 0, 2},       /* alltoall: the flat pairwise one */
};

int cb_model_races(int op, int shape, int p, int nodes, double bytes, const struct cb_link *l) {
  if (shape < 0)
    shape = CB_SHAPE_RING;
  /* a step's message at least rndv is one that waits: wait bytes > 0 */
  return l->gamma > 0 && p >= 2 && p <= pairwise_upto[shape][op] &&
         cb_model_wait_bytes(op, shape, p, nodes, bytes, l->rndv, l->queue) > 0;
}
