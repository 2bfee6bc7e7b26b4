/* Cost shapes of the collectives on one or two link tiers, and their
 * predictions for larger systems. Each formula is the textbook alpha-beta
 * cost of the algorithm (steps * alpha + bytes through the bottleneck *
 * beta); bench/model/PLANNING.md, lists them with their
 * assumptions. */
#include <math.h>
#include <string.h>

#include "model.h"

const char *const cb_mop_names[CB_NMOPS] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                            "alltoall"};
const char *const cb_tier_kind_names[CB_NTIERS] = {"intra-node", "inter-node"};
const char *const cb_algo_names[CB_NALGOS] = {"ring", "tree", "hierarchical"};

int cb_mop_find(const char *name) {
  for (int i = 0; i < CB_NMOPS; i++)
    if (strcmp(name, cb_mop_names[i]) == 0)
      return i;
  return -1;
}

/* a link's rendezvous waits over the flat algorithm's steps (0 without) */
static double flat_wait(int op, int p, int nodes, double bytes, const struct cb_link *l) {
  return l->gamma > 0
             ? l->gamma * cb_model_wait_bytes(op, CB_SHAPE_RING, p, nodes, bytes, l->rndv, l->queue)
             : 0;
}

double cb_model_flat_time(int op, int p, int nodes, double bytes, const struct cb_link *l) {
  struct cb_terms t = cb_model_flat_terms(op, p, nodes);
  return t.steps * l->alpha + t.share * bytes * l->beta + flat_wait(op, p, nodes, bytes, l);
}

double cb_model_busbw_factor(int op, int p) {
  if (p <= 1)
    return op == CB_MOP_BROADCAST ? 1 : 0; /* as the measured side (ops.c) */
  switch (op) {
  case CB_MOP_ALLREDUCE: return 2.0 * (p - 1) / p;
  case CB_MOP_BROADCAST: return 1;
  default: return (double)(p - 1) / p;
  }
}

double cb_model_busbw(int op, int p, double bytes, double time_s) {
  return time_s > 0 ? cb_model_busbw_factor(op, p) * bytes / time_s : NAN;
}

static double log2_steps(int n) {
  return n > 1 ? ceil(log2((double)n)) : 0;
}

/* A pipelined (double) binary tree whose latency part is `alpha_part`:
 * allreduce reduces up and broadcasts down (each rank sends the whole
 * buffer up and down once), allgather and reducescatter use recursive
 * doubling / halving (log steps, ring's volume); alltoall has no tree. */
static double tree_time(int op, double alpha_part, int p, double bytes, double beta) {
  switch (op) {
  case CB_MOP_ALLREDUCE: return 2 * alpha_part + 2 * bytes * beta;
  case CB_MOP_BROADCAST: return alpha_part + bytes * beta;
  case CB_MOP_ALLTOALL: return NAN;
  default: return alpha_part + (p - 1.0) / p * bytes * beta;
  }
}

static double ring(int op, const struct cb_link *in, const struct cb_link *out, int n, int nodes,
                   double bytes) {
  if (nodes == 1)
    return in->set ? cb_model_flat_time(op, n, 1, bytes, in) : NAN;
  if (!in->set || !out->set)
    return NAN;
  /* every step crosses a node boundary somewhere: the slower hop sets it */
  struct cb_terms inside = cb_model_flat_terms(op, n, 1),
                  across = cb_model_flat_terms(op, n, nodes);
  return inside.steps * fmax(in->alpha, out->alpha) +
         fmax(inside.share * bytes * in->beta, across.share * bytes * out->beta) +
         fmax(flat_wait(op, n, 1, bytes, in), flat_wait(op, n, nodes, bytes, out));
}

static double tree(int op, const struct cb_link *in, const struct cb_link *out, int n, int nodes,
                   int per_node, double bytes) {
  if (nodes == 1)
    return in->set ? tree_time(op, log2_steps(n) * in->alpha, n, bytes, in->beta) : NAN;
  if (!in->set || !out->set)
    return NAN;
  /* ranks numbered node by node: the top levels cross nodes, the rest not */
  double alpha_part = log2_steps(nodes) * out->alpha + log2_steps(per_node) * in->alpha;
  return tree_time(op, alpha_part, n, bytes, fmax(in->beta, out->beta));
}

/* Inside each node a flat phase over its ranks; between nodes the node's
 * ranks run `per_node` parallel inter-node phases on 1/per_node of the data
 * each, sharing the node's NICs, so the NICs carry the whole buffer once:
 * the same cost as one rank per node moving all of it. */
static double hier(int op, const struct cb_link *in, const struct cb_link *out, int n, int nodes,
                   int per_node, double bytes, int *inter_algo) {
  if (nodes == 1)
    return ring(op, in, out, n, 1, bytes);
  if (!in->set || !out->set || op == CB_MOP_ALLTOALL)
    return NAN;
  double r = cb_model_flat_time(op, nodes, 1, bytes, out);
  double t = tree_time(op, log2_steps(nodes) * out->alpha, nodes, bytes, out->beta);
  *inter_algo = t < r ? CB_ALGO_TREE : CB_ALGO_RING;
  double inter = fmin(r, t), intra;
  switch (op) {
  case CB_MOP_ALLREDUCE: /* reduce-scatter, then all-gather, inside the node */
    intra = 2 * cb_model_flat_time(CB_MOP_ALLGATHER, per_node, 1, bytes, in);
    break;
  default: /* allgather/reducescatter: one intra phase; broadcast: a chain */
    intra = cb_model_flat_time(op, per_node, 1, bytes, in);
  }
  return intra + inter;
}

/* Whether a link used over p ranks races for the rendezvous go-ahead. */
static int races(int op, int shape, int p, int nodes, double bytes, const struct cb_link *l) {
  return l->set && cb_model_races(op, shape, p, nodes, bytes, l);
}

/* The same for a predicted algorithm, through the shapes its phases have:
 * the tree's allgather and reducescatter are halving / doubling (log), its
 * allreduce and broadcast a tree; across nodes either link may race. */
static int predict_races(int op, int algo, const struct cb_link *in, const struct cb_link *out,
                         int n, int nodes, int per_node, int inter_algo, double bytes) {
  int tshape = op == CB_MOP_ALLGATHER || op == CB_MOP_REDUCESCATTER ? CB_SHAPE_LOG : CB_SHAPE_TREE;
  if (algo == CB_ALGO_HIER && nodes > 1)
    return races(op == CB_MOP_ALLREDUCE ? CB_MOP_ALLGATHER : op, CB_SHAPE_RING, per_node, 1, bytes,
                 in) ||
           races(op, inter_algo == CB_ALGO_TREE ? tshape : CB_SHAPE_RING, nodes, 1, bytes, out);
  int shape = algo == CB_ALGO_TREE ? tshape : CB_SHAPE_RING;
  return races(op, shape, n, 1, bytes, in) || (nodes > 1 && races(op, shape, n, nodes, bytes, out));
}

struct cb_prediction cb_model_predict(int op, int algo, const struct cb_system *s, int ngpus,
                                      double bytes) {
  int per_node = s->ranks_per_node < ngpus ? s->ranks_per_node : ngpus;
  if (per_node < 1)
    per_node = 1;
  int nodes = (ngpus + per_node - 1) / per_node;
  const struct cb_link *in = &s->tier[CB_TIER_INTRA], *out = &s->tier[CB_TIER_INTER];
  struct cb_prediction p = {.time_s = NAN, .busbw_Bps = NAN, .inter_algo = -1, .race = 0};
  switch (algo) {
  case CB_ALGO_RING: p.time_s = ring(op, in, out, ngpus, nodes, bytes); break;
  case CB_ALGO_TREE: p.time_s = tree(op, in, out, ngpus, nodes, per_node, bytes); break;
  case CB_ALGO_HIER: p.time_s = hier(op, in, out, ngpus, nodes, per_node, bytes, &p.inter_algo);
  }
  if (isfinite(p.time_s)) {
    p.busbw_Bps = cb_model_busbw(op, ngpus, bytes, p.time_s);
    p.race = predict_races(op, algo, in, out, ngpus, nodes, per_node, p.inter_algo, bytes);
  }
  return p;
}

int cb_model_best(int op, const struct cb_system *s, int ngpus, double bytes,
                  struct cb_prediction *best) {
  int which = -1;
  for (int a = 0; a < CB_NALGOS; a++) {
    struct cb_prediction p = cb_model_predict(op, a, s, ngpus, bytes);
    if (isfinite(p.time_s) && (which < 0 || p.time_s < best->time_s))
      *best = p, which = a;
  }
  return which;
}
