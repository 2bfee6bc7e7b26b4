/* The events of one step of a parallel layout (layout.h says what each
 * dimension issues and why). */
#include "layout.h"

#include <stdlib.h>
#include <string.h>

const char *const cb_shard_names[CB_NSHARDS] = {"none", "grad", "full"};
const int cb_step_comm_dim[CB_NSC] = {CB_DIM_TP, CB_DIM_EP, CB_DIM_DP, CB_DIM_DP, CB_DIM_PP};
const char *const cb_step_comm_names[CB_NSC] = {"tp", "ep", "dp", "dp-experts", "pp"};
const char *const cb_ev_op_names[CB_NEV_OPS] = {"allreduce", "allgather", "reducescatter",
                                                "alltoallv", "send",      "recv"};

int cb_shard_lookup(const char *name) {
  for (int i = 0; i < CB_NSHARDS; i++)
    if (strcmp(name, cb_shard_names[i]) == 0)
      return i;
  return -1;
}

int cb_layout_check(const struct cb_model *m, const struct cb_layout *l, struct cb_error *err) {
  const int *n = l->par.size;
  const char *shard = cb_shard_names[l->shard];
  if (m->layers % n[CB_DIM_PP])
    return cb_fail(err, CB_USAGE,
                   "--parallel pp=%d: the workload's %ld layers do not split into %d equal "
                   "stages (pp must divide layers)",
                   n[CB_DIM_PP], m->layers, n[CB_DIM_PP]);
  if (m->heads % n[CB_DIM_TP])
    return cb_fail(err, CB_USAGE,
                   "--parallel tp=%d: the workload's %ld attention heads do not split into %d "
                   "(tp must divide heads, as Megatron-LM requires)",
                   n[CB_DIM_TP], m->heads, n[CB_DIM_TP]);
  if (n[CB_DIM_EP] > 1 && m->experts % n[CB_DIM_EP])
    return cb_fail(err, CB_USAGE,
                   "--parallel ep=%d: the workload's experts=%ld do not split into %d (give "
                   "--workload-config experts=N with N a multiple of ep)",
                   n[CB_DIM_EP], m->experts, n[CB_DIM_EP]);
  if (l->shard != CB_SHARD_NONE && n[CB_DIM_DP] < 2)
    return cb_fail(err, CB_USAGE,
                   "--shard %s: the layout has dp=1, so there is nothing to shard over (give "
                   "--parallel with dp=2 or more, or --shard none)",
                   shard);
  if (l->shard != CB_SHARD_NONE && n[CB_DIM_PP] > 1)
    return cb_fail(err, CB_USAGE,
                   "--shard %s with pp=%d: sharded gradients do not go with pipeline stages "
                   "(DeepSpeed refuses ZeRO-2/3 with pipeline parallelism too); give --shard "
                   "none",
                   shard, n[CB_DIM_PP]);
  if (l->shard != CB_SHARD_NONE && n[CB_DIM_EP] > 1)
    return cb_fail(err, CB_USAGE,
                   "--shard %s with ep=%d: sharding the experts' data-parallel group is not "
                   "built; give --shard none",
                   shard, n[CB_DIM_EP]);
  return CB_OK;
}

static uint64_t div_up(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

void cb_layout_layer_elems(const struct cb_model *m, const struct cb_layout *l, uint64_t *dense,
                           uint64_t *mlp) {
  uint64_t t = (uint64_t)l->par.size[CB_DIM_TP], e = 0;
  static const int mlp_kinds[] = {CB_T_MLP_DOWN_W, CB_T_MLP_DOWN_B, CB_T_MLP_UP_W, CB_T_MLP_UP_B};
  for (size_t i = 0; i < sizeof mlp_kinds / sizeof mlp_kinds[0]; i++)
    e += cb_model_tensor_elems(m, mlp_kinds[i]);
  *mlp = div_up(e, t);
  *dense = div_up(cb_model_layer_params(m) - e, t);
}

int cb_layout_group_size(const struct cb_layout *l, int sc) {
  const int *n = l->par.size;
  switch (sc) {
  case CB_SC_TP: return n[CB_DIM_TP];
  case CB_SC_EP: return n[CB_DIM_EP];
  case CB_SC_DP: return n[CB_DIM_DP] * n[CB_DIM_EP];
  case CB_SC_EDP: return n[CB_DIM_EP] > 1 ? n[CB_DIM_DP] : 1;
  default: return n[CB_DIM_PP];
  }
}

int cb_layout_color(const struct cb_layout *l, int rank, int sc) {
  const struct cb_parallel *p = &l->par;
  switch (sc) {
  case CB_SC_TP: return cb_parallel_group(p, rank, CB_DIM_TP);
  case CB_SC_EP: return cb_parallel_group(p, rank, CB_DIM_EP);
  case CB_SC_DP: /* the dense group: same tp and pp index */
    return cb_parallel_index(p, rank, CB_DIM_TP) +
           p->size[CB_DIM_TP] * cb_parallel_index(p, rank, CB_DIM_PP);
  case CB_SC_EDP: return cb_parallel_group(p, rank, CB_DIM_DP);
  default: return cb_parallel_group(p, rank, CB_DIM_PP);
  }
}

int cb_layout_members(const struct cb_layout *l, int nranks, int rank, int sc, int *members) {
  int color = cb_layout_color(l, rank, sc), n = 0;
  for (int r = 0; r < nranks; r++)
    if (cb_layout_color(l, r, sc) == color)
      members[n++] = r;
  return n;
}

/* The rank's parameters: its stage's layers, dense weights and its experts. */
static double rank_params(const struct cb_model *m, const struct cb_layout *l) {
  uint64_t dense, mlp;
  cb_layout_layer_elems(m, l, &dense, &mlp);
  int ep = l->par.size[CB_DIM_EP];
  double experts = ep > 1 ? (double)m->experts / ep : 1;
  return (double)(m->layers / l->par.size[CB_DIM_PP]) * ((double)dense + experts * (double)mlp);
}

uint64_t cb_layout_state_bytes(const struct cb_model *m, const struct cb_layout *l) {
  double p = rank_params(m, l), d = l->par.size[CB_DIM_DP];
  switch (l->shard) {
  case CB_SHARD_GRAD: return (uint64_t)(2 * p + 14 * p / d);
  case CB_SHARD_FULL: return (uint64_t)(16 * p / d);
  default: return (uint64_t)(16 * p);
  }
}

/* Building one rank's list: slots are handed out lowest free first and
 * freed by their WAIT; `pending` keeps the started ones in issue order for
 * the step's end. */
struct builder {
  struct cb_step_plan *p;
  const struct cb_model *m;
  const struct cb_layout *l;
  int group[CB_NSC]; /* ranks in each communicator */
  int *busy, *pending, npending, cap_slots;
  int failed;
};

static void push(struct builder *b, struct cb_step_event e) {
  struct cb_step_plan *p = b->p;
  if (b->failed)
    return;
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 256;
    struct cb_step_event *ev = realloc(p->ev, (size_t)cap * sizeof *ev);
    if (!ev) {
      b->failed = 1;
      return;
    }
    p->ev = ev, p->cap = cap;
  }
  p->ev[p->n++] = e;
}

static void compute(struct builder *b, double flops) {
  push(b, (struct cb_step_event){.kind = CB_EV_COMPUTE, .flops = flops, .slot = -1});
  b->p->flops += flops;
}

static int start(struct builder *b, int comm, int op, uint64_t elems, int peer, int reverse) {
  if (b->failed)
    return -1;
  int s = 0;
  while (s < b->cap_slots && b->busy[s])
    s++;
  if (s == b->cap_slots) {
    int cap = b->cap_slots ? 2 * b->cap_slots : 16;
    int *busy = realloc(b->busy, (size_t)cap * sizeof *busy);
    int *pending = busy ? realloc(b->pending, (size_t)cap * sizeof *pending) : NULL;
    if (busy)
      b->busy = busy;
    if (!pending) {
      b->failed = 1;
      return -1;
    }
    b->pending = pending;
    memset(b->busy + b->cap_slots, 0, (size_t)(cap - b->cap_slots) * sizeof *busy);
    b->cap_slots = cap;
  }
  b->busy[s] = 1;
  b->pending[b->npending++] = s;
  if (s + 1 > b->p->nslots)
    b->p->nslots = s + 1;
  if (elems > b->p->slot_elems)
    b->p->slot_elems = elems;
  b->p->calls[comm][op]++;
  push(b, (struct cb_step_event){.kind = CB_EV_START,
                                 .op = (unsigned char)op,
                                 .comm = (unsigned char)comm,
                                 .reverse = (unsigned char)reverse,
                                 .slot = s,
                                 .peer = peer,
                                 .elems = elems});
  return s;
}

static void wait(struct builder *b, int s) {
  if (b->failed || s < 0)
    return;
  const struct cb_step_event *st = NULL;
  for (int i = b->p->n - 1; i >= 0 && !st; i--)
    if (b->p->ev[i].kind == CB_EV_START && b->p->ev[i].slot == s)
      st = &b->p->ev[i];
  struct cb_step_event e = *st;
  e.kind = CB_EV_WAIT;
  push(b, e);
  b->busy[s] = 0;
  for (int i = 0; i < b->npending; i++)
    if (b->pending[i] == s) {
      memmove(b->pending + i, b->pending + i + 1, (size_t)(b->npending - i - 1) * sizeof(int));
      b->npending--;
      break;
    }
}

/* An op in the critical path: started and waited for at once; nothing
 * where the communicator has one rank. */
static void call(struct builder *b, int comm, int op, uint64_t elems, int peer, int reverse) {
  if (b->group[comm] > 1)
    wait(b, start(b, comm, op, elems, peer, reverse));
}

static void drain(struct builder *b) {
  while (b->npending > 0 && !b->failed)
    wait(b, b->pending[0]);
}

/* A collective's buffer in whole per-rank pieces. */
static uint64_t rounded(uint64_t elems, int ranks) {
  return div_up(elems, (uint64_t)ranks) * (uint64_t)ranks;
}

/* The step's per-layer quantities. */
struct shape {
  int layers, micro, stage, stages;
  int ahead; /* FSDP: the prefetch depth, at most layers - 1 */
  uint64_t act, dispatch, dense, mlp, experts_local, layer_full;
  double attn_flops, mlp_flops;
  uint64_t acc_dense, acc_expert; /* gradients waiting for a bucket */
  int *ag;                        /* FSDP: each layer's all-gather slot */
};

static void flush(struct builder *b, struct shape *s) {
  int grad = b->l->shard == CB_SHARD_GRAD;
  if (s->acc_dense && b->group[CB_SC_DP] > 1) {
    uint64_t n = grad ? rounded(s->acc_dense, b->group[CB_SC_DP]) : s->acc_dense;
    start(b, CB_SC_DP, grad ? CB_EV_REDUCE_SCATTER : CB_EV_ALLREDUCE, n, -1, 0);
  }
  if (s->acc_expert && b->group[CB_SC_EDP] > 1)
    start(b, CB_SC_EDP, CB_EV_ALLREDUCE, s->acc_expert, -1, 0);
  s->acc_dense = s->acc_expert = 0;
}

/* FSDP: layer l's parameters before it computes (gathered now when
 * nothing prefetched them), and layer `next`'s gather started, `ahead`
 * layers on in the pass's direction. */
static void gathered(struct builder *b, struct shape *s, int l, int next) {
  if (s->ag[l] < 0)
    call(b, CB_SC_DP, CB_EV_ALLGATHER, s->layer_full, -1, 0);
  else
    wait(b, s->ag[l]);
  s->ag[l] = -1;
  if (s->ahead > 0 && next >= 0 && next < s->layers)
    s->ag[next] = start(b, CB_SC_DP, CB_EV_ALLGATHER, s->layer_full, -1, 0);
}

static void forward_layer(struct builder *b, struct shape *s, int l) {
  int sp = b->m->sequence_parallel != 0;
  if (b->l->shard == CB_SHARD_FULL)
    gathered(b, s, l, l + s->ahead);
  if (sp)
    call(b, CB_SC_TP, CB_EV_ALLGATHER, s->act, -1, 0);
  compute(b, s->attn_flops);
  call(b, CB_SC_TP, sp ? CB_EV_REDUCE_SCATTER : CB_EV_ALLREDUCE, s->act, -1, 0);
  if (sp)
    call(b, CB_SC_TP, CB_EV_ALLGATHER, s->act, -1, 0);
  call(b, CB_SC_EP, CB_EV_ALLTOALLV, s->dispatch, -1, 0);
  compute(b, s->mlp_flops);
  call(b, CB_SC_EP, CB_EV_ALLTOALLV, s->dispatch, -1, 1);
  call(b, CB_SC_TP, sp ? CB_EV_REDUCE_SCATTER : CB_EV_ALLREDUCE, s->act, -1, 0);
}

/* The mirror of forward_layer: the gradient of an all-gather is a
 * reduce-scatter and the other way round; of the forward's all-reduce
 * (Megatron's g) nothing, of its identity (f) an all-reduce. */
static void backward_layer(struct builder *b, struct shape *s, int l, int last) {
  int sp = b->m->sequence_parallel != 0;
  if (b->l->shard == CB_SHARD_FULL)
    gathered(b, s, l, l - s->ahead);
  if (sp)
    call(b, CB_SC_TP, CB_EV_ALLGATHER, s->act, -1, 0);
  call(b, CB_SC_EP, CB_EV_ALLTOALLV, s->dispatch, -1, 0);
  compute(b, 2 * s->mlp_flops);
  call(b, CB_SC_EP, CB_EV_ALLTOALLV, s->dispatch, -1, 1);
  call(b, CB_SC_TP, sp ? CB_EV_REDUCE_SCATTER : CB_EV_ALLREDUCE, s->act, -1, 0);
  if (sp)
    call(b, CB_SC_TP, CB_EV_ALLGATHER, s->act, -1, 0);
  compute(b, 2 * s->attn_flops);
  call(b, CB_SC_TP, sp ? CB_EV_REDUCE_SCATTER : CB_EV_ALLREDUCE, s->act, -1, 0);
  if (b->l->shard == CB_SHARD_FULL) {
    if (b->group[CB_SC_DP] > 1)
      start(b, CB_SC_DP, CB_EV_REDUCE_SCATTER, s->layer_full, -1, 0);
    return;
  }
  if (!last) /* gradients accumulate; only the last microbatch's are reduced */
    return;
  if (b->l->par.size[CB_DIM_EP] > 1) /* the experts' weights are not the dense group's */
    s->acc_dense += s->dense, s->acc_expert += s->experts_local;
  else
    s->acc_dense += s->dense + s->mlp;
  if (s->acc_dense + s->acc_expert >= b->l->bucket_elems)
    flush(b, s);
}

/* FSDP: a pass's first `ahead` layers' gathers, from `first` in the
 * direction `dir`, before it starts. */
static void prefetch(struct builder *b, struct shape *s, int first, int dir) {
  for (int k = 0; k < s->ahead; k++)
    s->ag[first + dir * k] = start(b, CB_SC_DP, CB_EV_ALLGATHER, s->layer_full, -1, 0);
}

static void forward(struct builder *b, struct shape *s) {
  if (s->stage > 0)
    call(b, CB_SC_PP, CB_EV_RECV, s->act, s->stage - 1, 0);
  if (b->l->shard == CB_SHARD_FULL)
    prefetch(b, s, 0, 1);
  for (int l = 0; l < s->layers; l++)
    forward_layer(b, s, l);
  if (s->stage + 1 < s->stages)
    start(b, CB_SC_PP, CB_EV_SEND, s->act, s->stage + 1, 0);
}

static void backward(struct builder *b, struct shape *s, int last) {
  if (s->stage + 1 < s->stages)
    call(b, CB_SC_PP, CB_EV_RECV, s->act, s->stage + 1, 0);
  if (b->l->shard == CB_SHARD_FULL)
    prefetch(b, s, s->layers - 1, -1);
  for (int l = s->layers - 1; l >= 0; l--)
    backward_layer(b, s, l, last);
  if (s->stage > 0)
    start(b, CB_SC_PP, CB_EV_SEND, s->act, s->stage - 1, 0);
}

int cb_layout_plan(const struct cb_model *m, const struct cb_layout *l, int rank,
                   double recv_tokens, struct cb_step_plan *p) {
  memset(p, 0, sizeof *p);
  const int *n = l->par.size;
  struct builder b = {.p = p, .m = m, .l = l};
  for (int c = 0; c < CB_NSC; c++)
    b.group[c] = cb_layout_group_size(l, c);
  struct shape s = {.layers = (int)(m->layers / n[CB_DIM_PP]),
                    .micro = n[CB_DIM_PP] > 1 ? (int)m->microbatches : 1,
                    .stage = cb_parallel_index(&l->par, rank, CB_DIM_PP),
                    .stages = n[CB_DIM_PP]};
  double t = (double)(m->seq * m->batch), h = (double)m->hidden, tp = n[CB_DIM_TP];
  int ep = n[CB_DIM_EP];
  s.act = (uint64_t)(m->seq * m->batch * m->hidden);
  s.dispatch = (uint64_t)(m->seq * m->batch * m->topk * m->hidden);
  cb_layout_layer_elems(m, l, &s.dense, &s.mlp);
  s.experts_local = ep > 1 ? s.mlp * (uint64_t)(m->experts / ep) : 0;
  s.layer_full = rounded(s.dense + s.mlp, b.group[CB_SC_DP]);
  /* the projections' 8th^2 and the attention products' 4 b s^2 h forward,
   * the MLP's 16th^2 (for the tokens the rank's experts receive), over tp */
  s.attn_flops =
      (8 * t * h * h + 4.0 * (double)m->batch * (double)m->seq * (double)m->seq * h) / tp;
  s.mlp_flops = 16 * (ep > 1 ? recv_tokens : t) * h * h / tp;
  s.ahead = l->prefetch < 0 ? 0 : l->prefetch < s.layers ? l->prefetch : s.layers - 1;
  s.ag = malloc((size_t)s.layers * sizeof *s.ag);
  if (!s.ag)
    return -1;
  for (int i = 0; i < s.layers; i++)
    s.ag[i] = -1; /* no gather in flight */
  /* 1F1B (PipeDream-Flush, as Megatron-LM schedules it): warm-up forwards,
   * then one forward and one backward in turn, then the rest backward */
  int warm = s.stages - s.stage - 1 < s.micro ? s.stages - s.stage - 1 : s.micro;
  int steady = s.micro - warm, done = 0;
  for (int i = 0; i < warm; i++)
    forward(&b, &s);
  for (int i = 0; i < steady; i++) {
    forward(&b, &s);
    backward(&b, &s, ++done == s.micro);
  }
  for (int i = 0; i < warm; i++)
    backward(&b, &s, ++done == s.micro);
  flush(&b, &s);
  drain(&b);
  if (l->shard == CB_SHARD_GRAD) /* ZeRO-2: the updated parameters, gathered */
    call(&b, CB_SC_DP, CB_EV_ALLGATHER,
         rounded((uint64_t)s.layers * (s.dense + s.mlp), b.group[CB_SC_DP]), -1, 0);
  free(s.ag);
  free(b.busy);
  free(b.pending);
  if (b.failed) {
    cb_layout_plan_free(p);
    return -1;
  }
  return 0;
}

void cb_layout_plan_free(struct cb_step_plan *p) {
  free(p->ev);
  memset(p, 0, sizeof *p);
}
