/* The reference step in a parallel layout (--tune --parallel L --shard S):
 * what one rank of a tp/ep/dp/pp job issues in one training step, as a
 * list of events, so the counts can be checked by hand and the executor
 * (layout_step.h) only replays them. Pure: no MPI.
 *
 * Per layer, forward then backward (layers / pp on each stage):
 *   tp      2 all-reduces of the activations forward and 2 backward, in
 *           the critical path; with sequence_parallel=1 an all-gather and
 *           a reduce-scatter in place of each (Megatron-LM)
 *   ep      every layer a mixture of experts: a dispatch and a combine
 *           all-to-all-v forward and the same two backward, topk copies of
 *           each token, the per-pair counts from --skew
 *   dp      shard none: DDP's all-reduce of gradient buckets as backward
 *           makes them ready; grad (ZeRO-2): reduce-scatter of them, and an
 *           all-gather of the updated parameters after the step; full
 *           (FSDP/ZeRO-3): each layer's parameters all-gathered before its
 *           forward and again before its backward, the next `prefetch`
 *           layers' in flight while this one computes (0: each gathered
 *           when needed, in the critical path), and each layer's gradients
 *           reduce-scattered after its backward
 *   pp      1F1B over `microbatches`: activations sent to the next stage
 *           after a forward, gradients to the previous after a backward;
 *           a stage blocks on its receives
 * Dense gradients are reduced over the ranks holding the same shard of the
 * dense weights (dp x ep ranks: Megatron's data-parallel group contains
 * the expert-parallel ranks); the experts' over dp alone. Compute is each
 * layer's GEMM FLOPs on this rank (divided by tp; experts' by the tokens
 * the rank receives). */
#ifndef CB_LAYOUT_H
#define CB_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "kernels/transformer.h"
#include "runtime/parallel.h"

enum cb_shard { CB_SHARD_NONE, CB_SHARD_GRAD, CB_SHARD_FULL, CB_NSHARDS };
extern const char *const cb_shard_names[CB_NSHARDS];
int cb_shard_lookup(const char *name); /* -1 when unknown */

/* The communicators a step runs on; each reports as a dimension. */
enum cb_step_comm {
  CB_SC_TP,
  CB_SC_EP,
  CB_SC_DP,  /* dense gradients and parameters: the dp x ep ranks */
  CB_SC_EDP, /* the experts' gradients: the dp ranks (ep > 1 only) */
  CB_SC_PP,
  CB_NSC
};
extern const int cb_step_comm_dim[CB_NSC]; /* enum cb_dim each reports as */
extern const char *const cb_step_comm_names[CB_NSC];

enum cb_ev_kind { CB_EV_COMPUTE, CB_EV_START, CB_EV_WAIT };
enum cb_ev_op {
  CB_EV_ALLREDUCE,
  CB_EV_ALLGATHER,
  CB_EV_REDUCE_SCATTER,
  CB_EV_ALLTOALLV,
  CB_EV_SEND,
  CB_EV_RECV,
  CB_NEV_OPS
};
extern const char *const cb_ev_op_names[CB_NEV_OPS];

struct cb_step_event {
  unsigned char kind, op, comm;
  unsigned char reverse; /* alltoallv: the combine, counts transposed */
  int slot;              /* START and WAIT: the request's slot */
  int peer;              /* send/recv: the pp stage */
  uint64_t elems;        /* the op's full buffer (allgather's output, reduce-scatter's input,
                            alltoallv's busiest send) */
  double flops;          /* COMPUTE */
};

struct cb_layout {
  struct cb_parallel par;
  int shard;             /* enum cb_shard */
  uint64_t bucket_elems; /* DDP/ZeRO-2 bucket, elements */
  int prefetch;          /* FSDP: layers gathered ahead; 1 as FSDP2 does by default, 0 none */
};

struct cb_step_plan {
  struct cb_step_event *ev;
  int n, cap;
  int nslots;          /* slots in use at most at once */
  uint64_t slot_elems; /* the largest buffer any event needs */
  double flops;        /* COMPUTE's total */
  int calls[CB_NSC][CB_NEV_OPS];
};

/* The layout refused before anything runs (CB_USAGE naming the value and
 * what would fit): layers not a multiple of pp, heads of tp, experts of
 * ep; a shard mode with dp = 1 (nothing to shard over), with pp > 1
 * (DeepSpeed refuses ZeRO-2/3 with pipeline parallelism too) or ep > 1
 * (not built); ep > 1 with experts < ep. */
int cb_layout_check(const struct cb_model *m, const struct cb_layout *l, struct cb_error *err);

/* Bytes of weights, gradients and Adam's states one rank holds, by the
 * ZeRO paper's mixed-precision count of P parameters (Rajbhandari et al.,
 * SC'20, sec. 5, fig. 1: 2 + 2 + 12 bytes each): none 16P, grad (stage 2)
 * 2P + 14P/dp, full (stage 3) 16P/dp; P is the rank's share after tp, pp
 * and ep. */
uint64_t cb_layout_state_bytes(const struct cb_model *m, const struct cb_layout *l);

/* The events rank `rank` issues in one step; recv_tokens: the tokens the
 * rank's experts receive per microbatch from the ep dispatch (--skew's
 * column sum), ignored without ep. -1 out of memory. */
int cb_layout_plan(const struct cb_model *m, const struct cb_layout *l, int rank,
                   double recv_tokens, struct cb_step_plan *p);
void cb_layout_plan_free(struct cb_step_plan *p);

/* The ranks in communicator sc (enum cb_step_comm) of the layout, and the
 * color every member of rank's shares (to split it from the world). */
int cb_layout_group_size(const struct cb_layout *l, int sc);
int cb_layout_color(const struct cb_layout *l, int rank, int sc);
/* The world ranks of rank's group in communicator sc, ascending, into
 * members[nranks]; returns how many. */
int cb_layout_members(const struct cb_layout *l, int nranks, int rank, int sc, int *members);

/* Elements of one layer's weights on a rank: dense part and one expert's
 * (the MLP) part, after tp's split. */
void cb_layout_layer_elems(const struct cb_model *m, const struct cb_layout *l, uint64_t *dense,
                           uint64_t *mlp);

#endif
