/* The parallel layouts' step (tuner/layout.c): the calls each layout issues
 * per communicator in one step of `tiny`, counted by hand; FSDP's prefetch;
 * 1F1B's order; every member of a communicator issuing its collectives
 * alike; the refusals and ZeRO's memory count. */
#include <string.h>

#include "tap.h"
#include "tuner/layout.h"

/* tiny: hidden 128, 4 layers, 4 heads, seq 64, batch 1; 4 microbatches,
 * 4 experts, top-2. A layer: 12h^2 + 13h = 198272 weights, of which the
 * MLP's 8h^2 + 5h = 131712; the rest, 66560, dense. act = 64 * 128. */
#define ACT 8192u
#define LAYER 198272u
#define MLP 131712u
#define DENSE 66560u

static struct cb_model tiny(void) {
  struct cb_model m;
  struct cb_error err;
  cb_model_preset("tiny", &m, &err);
  return m;
}

static int depth = 1; /* FSDP's prefetch depth for make_plan */

static int make_plan(const struct cb_model *m, const char *par, int shard, uint64_t bucket,
                     int rank, double recv_tokens, struct cb_step_plan *p) {
  struct cb_layout l = {.shard = shard, .bucket_elems = bucket, .prefetch = depth};
  struct cb_error err = {0};
  if (cb_parallel_parse(par, &l.par, &err) || cb_layout_check(m, &l, &err)) {
    diag("%s: %s", par, err.msg);
    return -1;
  }
  return cb_layout_plan(m, &l, rank, recv_tokens, p);
}

/* The calls made, every other count zero. */
struct want {
  int comm, op, calls;
  uint64_t elems; /* of each; 0: not checked */
};

static void check_calls(const struct cb_step_plan *p, const struct want *w, int nw,
                        const char *what) {
  int expect[CB_NSC][CB_NEV_OPS] = {{0}};
  for (int i = 0; i < nw; i++)
    expect[w[i].comm][w[i].op] = w[i].calls;
  int same = 1;
  for (int c = 0; c < CB_NSC; c++)
    for (int o = 0; o < CB_NEV_OPS; o++)
      if (p->calls[c][o] != expect[c][o]) {
        diag("%s: %s %s: %d calls, want %d", what, cb_step_comm_names[c], cb_ev_op_names[o],
             p->calls[c][o], expect[c][o]);
        same = 0;
      }
  ok(same, "%s: calls per communicator as counted by hand", what);
  for (int i = 0; i < nw; i++) {
    if (!w[i].elems)
      continue;
    int sized = 1;
    for (int e = 0; e < p->n; e++)
      if (p->ev[e].kind == CB_EV_START && p->ev[e].comm == w[i].comm && p->ev[e].op == w[i].op)
        sized &= p->ev[e].elems == w[i].elems;
    ok(sized, "%s: each %s %s carries %llu elements", what, cb_step_comm_names[w[i].comm],
       cb_ev_op_names[w[i].op], (unsigned long long)w[i].elems);
  }
  /* every start waited for, once, and never a wait without its start */
  int open[256] = {0}, sound = p->nslots <= 256;
  for (int e = 0; e < p->n && sound; e++)
    if (p->ev[e].kind == CB_EV_START)
      sound &= open[p->ev[e].slot]++ == 0;
    else if (p->ev[e].kind == CB_EV_WAIT)
      sound &= open[p->ev[e].slot]-- == 1;
  for (int s = 0; s < p->nslots && sound; s++)
    sound &= open[s] == 0;
  ok(sound, "%s: every op started is waited for once, by the step's end", what);
}

static void test_tp_fsdp(void) {
  struct cb_model m = tiny();
  struct cb_step_plan p;
  if (make_plan(&m, "tp=2,dp=2", CB_SHARD_FULL, 0, 3, 0, &p))
    return (void)ok(0, "tp=2,dp=2 --shard full planned");
  /* tp: 2 all-reduces forward and 2 backward in each of 4 layers; dp: each
   * layer gathered before forward and before backward, and its gradients
   * reduce-scattered: the layer's weights over tp (99136) */
  const struct want w[] = {{CB_SC_TP, CB_EV_ALLREDUCE, 16, ACT},
                           {CB_SC_DP, CB_EV_ALLGATHER, 8, LAYER / 2},
                           {CB_SC_DP, CB_EV_REDUCE_SCATTER, 4, LAYER / 2}};
  check_calls(&p, w, 3, "tp=2,dp=2 full");
  /* prefetch: while layer l computes, layer l+1's gather (l-1's in
   * backward) is in flight: 3 of 4 layers each way, 2 computes a layer */
  int inflight = 0, overlapped = 0, computes = 0;
  for (int e = 0; e < p.n; e++) {
    const struct cb_step_event *ev = &p.ev[e];
    if (ev->kind != CB_EV_COMPUTE && ev->op == CB_EV_ALLGATHER && ev->comm == CB_SC_DP)
      inflight += ev->kind == CB_EV_START ? 1 : -1;
    if (ev->kind == CB_EV_COMPUTE)
      computes++, overlapped += inflight > 0;
  }
  is_long(computes, 16, "16 computes: attention and MLP, forward and backward, 4 layers");
  is_long(overlapped, 12, "12 of them with the next layer's parameters being gathered");
  double t = 64, h = 128, attn = (8 * t * h * h + 4 * 64 * 64 * h) / 2, mlp = 16 * t * h * h / 2;
  is_double(p.flops, 4 * 3 * (attn + mlp), 1,
            "FLOPs: 4 layers of forward and 2x backward, over tp");
  cb_layout_plan_free(&p);
}

/* --tune's prefetch depths: d layers' gathers in flight while a layer
 * computes (fewer near a pass's end), none with d = 0; the same calls at
 * every depth, and a depth past the stage's layers the same as layers - 1. */
static void test_prefetch(void) {
  struct cb_model m = tiny();
  /* per depth: computes with a gather in flight, the most in flight at a
   * compute: forward and backward alike, 4 layers of 2 computes each */
  static const struct {
    int depth, overlapped, most;
  } want[] = {{0, 0, 0}, {1, 12, 1}, {2, 12, 2}, {3, 12, 3}, {9, 12, 3}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    struct cb_step_plan p;
    depth = want[i].depth;
    int rc = make_plan(&m, "dp=4", CB_SHARD_FULL, 0, 1, 0, &p);
    depth = 1;
    if (rc) {
      ok(0, "dp=4 --shard full, prefetch %d, planned", want[i].depth);
      continue;
    }
    const struct want w[] = {{CB_SC_DP, CB_EV_ALLGATHER, 8, 0},
                             {CB_SC_DP, CB_EV_REDUCE_SCATTER, 4, 0}};
    char what[64];
    snprintf(what, sizeof what, "dp=4 full, prefetch %d", want[i].depth);
    check_calls(&p, w, 2, what);
    int inflight = 0, overlapped = 0, most = 0;
    for (int e = 0; e < p.n; e++) {
      const struct cb_step_event *ev = &p.ev[e];
      if (ev->kind != CB_EV_COMPUTE && ev->op == CB_EV_ALLGATHER)
        inflight += ev->kind == CB_EV_START ? 1 : -1;
      if (ev->kind == CB_EV_COMPUTE) {
        overlapped += inflight > 0;
        most = inflight > most ? inflight : most;
      }
    }
    is_long(overlapped, want[i].overlapped, "%s: computes with a gather in flight", what);
    is_long(most, want[i].most, "%s: the most gathers in flight at a compute", what);
    cb_layout_plan_free(&p);
  }
}

static void test_ddp_zero2(void) {
  struct cb_model m = tiny();
  struct cb_step_plan p;
  /* buckets of one layer's weights on this rank: one all-reduce a layer */
  if (make_plan(&m, "tp=2,dp=2", CB_SHARD_NONE, LAYER / 2, 0, 0, &p) == 0) {
    const struct want w[] = {{CB_SC_TP, CB_EV_ALLREDUCE, 16, ACT},
                             {CB_SC_DP, CB_EV_ALLREDUCE, 4, LAYER / 2}};
    check_calls(&p, w, 2, "tp=2,dp=2 none, 1-layer buckets");
    cb_layout_plan_free(&p);
  }
  /* DDP's 25 MB: the whole model in one bucket */
  if (make_plan(&m, "tp=2,dp=2", CB_SHARD_NONE, (25u << 20) / 4, 0, 0, &p) == 0) {
    const struct want w[] = {{CB_SC_TP, CB_EV_ALLREDUCE, 16, ACT},
                             {CB_SC_DP, CB_EV_ALLREDUCE, 1, 4 * LAYER / 2}};
    check_calls(&p, w, 2, "tp=2,dp=2 none, 25 MB buckets");
    cb_layout_plan_free(&p);
  }
  if (make_plan(&m, "dp=4", CB_SHARD_GRAD, (25u << 20) / 4, 1, 0, &p) == 0) {
    const struct want w[] = {{CB_SC_DP, CB_EV_REDUCE_SCATTER, 1, 4 * LAYER},
                             {CB_SC_DP, CB_EV_ALLGATHER, 1, 4 * LAYER}};
    check_calls(&p, w, 2, "dp=4 grad");
    cb_layout_plan_free(&p);
  }
  m.sequence_parallel = 1;
  if (make_plan(&m, "tp=2,dp=2", CB_SHARD_NONE, (25u << 20) / 4, 0, 0, &p) == 0) {
    const struct want w[] = {{CB_SC_TP, CB_EV_ALLGATHER, 16, ACT},
                             {CB_SC_TP, CB_EV_REDUCE_SCATTER, 16, ACT},
                             {CB_SC_DP, CB_EV_ALLREDUCE, 1, 4 * LAYER / 2}};
    check_calls(&p, w, 3, "tp=2,dp=2 sequence_parallel=1");
    cb_layout_plan_free(&p);
  }
}

/* The pp events of one stage as a string: F for a send of activations
 * forward, B for one backward; f, b for the receives. */
static void pp_order(const struct cb_step_plan *p, int stage, char *out, size_t len) {
  size_t k = 0;
  for (int e = 0; e < p->n && k + 1 < len; e++)
    if (p->ev[e].kind == CB_EV_START && p->ev[e].comm == CB_SC_PP) {
      int ahead = p->ev[e].peer > stage;
      out[k++] = p->ev[e].op == CB_EV_SEND ? (ahead ? 'F' : 'B') : (ahead ? 'b' : 'f');
    }
  out[k] = '\0';
}

static void test_pp(void) {
  struct cb_model m = tiny();
  struct cb_step_plan p;
  char order[64];
  /* rank = dp + 2 * pp: rank 0 is stage 0, rank 2 stage 1; 2 layers a
   * stage, 4 microbatches */
  if (make_plan(&m, "dp=2,pp=2", CB_SHARD_NONE, (25u << 20) / 4, 0, 0, &p) == 0) {
    const struct want w[] = {{CB_SC_PP, CB_EV_SEND, 4, ACT},
                             {CB_SC_PP, CB_EV_RECV, 4, ACT},
                             {CB_SC_DP, CB_EV_ALLREDUCE, 1, 2 * LAYER}};
    check_calls(&p, w, 3, "dp=2,pp=2 stage 0");
    pp_order(&p, 0, order, sizeof order);
    is_str(order, "FFbFbFbb", "stage 0: one warm-up forward, then 1F1B, then the last backward");
    double t = 64, h = 128, layer = 8 * t * h * h + 4 * 64 * 64 * h + 16 * t * h * h;
    is_double(p.flops, 4 * 2 * 3 * layer, 1, "stage 0 computes 2 layers for 4 microbatches");
    cb_layout_plan_free(&p);
  }
  if (make_plan(&m, "dp=2,pp=2", CB_SHARD_NONE, (25u << 20) / 4, 2, 0, &p) == 0) {
    const struct want w[] = {{CB_SC_PP, CB_EV_SEND, 4, ACT},
                             {CB_SC_PP, CB_EV_RECV, 4, ACT},
                             {CB_SC_DP, CB_EV_ALLREDUCE, 1, 2 * LAYER}};
    check_calls(&p, w, 3, "dp=2,pp=2 stage 1");
    pp_order(&p, 1, order, sizeof order);
    is_str(order, "fBfBfBfB", "last stage: no warm-up, a forward then its backward");
    cb_layout_plan_free(&p);
  }
}

static void test_ep(void) {
  struct cb_model m = tiny();
  struct cb_step_plan p;
  /* ep=2,dp=2: 2 experts a rank. Dispatch 64 tokens x top-2 x 128. Dense
   * gradients over the 4 ranks, the experts' over dp's 2 */
  if (make_plan(&m, "ep=2,dp=2", CB_SHARD_NONE, (25u << 20) / 4, 1, 100, &p) == 0) {
    const struct want w[] = {{CB_SC_EP, CB_EV_ALLTOALLV, 16, 2 * ACT},
                             {CB_SC_DP, CB_EV_ALLREDUCE, 1, 4 * DENSE},
                             {CB_SC_EDP, CB_EV_ALLREDUCE, 1, 4 * 2 * MLP}};
    check_calls(&p, w, 3, "ep=2,dp=2");
    int combines = 0;
    for (int e = 0; e < p.n; e++)
      combines += p.ev[e].kind == CB_EV_START && p.ev[e].reverse;
    is_long(combines, 8, "half the all-to-alls are combines (counts transposed)");
    double t = 64, h = 128, layer = 8 * t * h * h + 4 * 64 * 64 * h + 16 * 100 * h * h;
    is_double(p.flops, 4 * 3 * layer, 1, "the experts compute the 100 tokens they receive");
    cb_layout_plan_free(&p);
  }
  /* ep=2,tp=2: no dp; the dense group is ep's 2 ranks, experts unreduced */
  if (make_plan(&m, "tp=2,ep=2", CB_SHARD_NONE, (25u << 20) / 4, 0, 128, &p) == 0) {
    const struct want w[] = {{CB_SC_TP, CB_EV_ALLREDUCE, 16, ACT},
                             {CB_SC_EP, CB_EV_ALLTOALLV, 16, 2 * ACT},
                             {CB_SC_DP, CB_EV_ALLREDUCE, 1, 4 * DENSE / 2}};
    check_calls(&p, w, 3, "tp=2,ep=2");
    cb_layout_plan_free(&p);
  }
}

/* Every member of a communicator issues the same collectives in the same
 * order, or the job would hang: checked on 8 ranks for each layout. */
static void test_members_agree(void) {
  struct cb_model m = tiny();
  const char *layouts[] = {"tp=2,dp=2,pp=2", "tp=2,ep=2,dp=2", "ep=2,dp=2,pp=2", "dp=8"};
  const int shards[] = {CB_SHARD_NONE, CB_SHARD_NONE, CB_SHARD_NONE, CB_SHARD_FULL};
  for (int k = 0; k < 4; k++) {
    struct cb_step_plan p[8];
    struct cb_parallel par;
    struct cb_error err;
    cb_parallel_parse(layouts[k], &par, &err);
    int made = 1;
    for (int r = 0; r < 8; r++)
      made &= make_plan(&m, layouts[k], shards[k], LAYER, r, 128, &p[r]) == 0;
    if (!ok(made, "%s planned on 8 ranks", layouts[k]))
      continue;
    int agree = 1;
    for (int c = 0; c < CB_NSC; c++) {
      if (c == CB_SC_PP)
        continue; /* point to point: stages differ by design */
      for (int r = 0; r < 8; r++)
        for (int q = r + 1; q < 8; q++) {
          int same_group = 1;
          for (int d = 0; d < CB_NDIMS; d++) {
            int in = d == cb_step_comm_dim[c] || (c == CB_SC_DP && d == CB_DIM_EP);
            same_group &= in || cb_parallel_index(&par, r, d) == cb_parallel_index(&par, q, d);
          }
          if (!same_group)
            continue;
          int i = 0, j = 0;
          for (;;) {
            while (i < p[r].n && !(p[r].ev[i].kind == CB_EV_START && p[r].ev[i].comm == c))
              i++;
            while (j < p[q].n && !(p[q].ev[j].kind == CB_EV_START && p[q].ev[j].comm == c))
              j++;
            if (i == p[r].n || j == p[q].n) {
              agree &= i == p[r].n && j == p[q].n;
              break;
            }
            agree &= p[r].ev[i].op == p[q].ev[j].op && p[r].ev[i].elems == p[q].ev[j].elems &&
                     p[r].ev[i].reverse == p[q].ev[j].reverse;
            i++, j++;
          }
        }
    }
    ok(agree, "%s: the members of each communicator issue the same collectives in order",
       layouts[k]);
    for (int r = 0; r < 8; r++)
      cb_layout_plan_free(&p[r]);
  }
}

static void test_refusals(void) {
  struct cb_model m = tiny();
  struct {
    const char *par;
    int shard;
    const char *says;
  } bad[] = {
      {"pp=3", CB_SHARD_NONE, "4 layers do not split into 3"},
      {"tp=8", CB_SHARD_NONE, "4 attention heads do not split into 8"},
      {"ep=8", CB_SHARD_NONE, "experts=4 do not split into 8"},
      {"tp=2", CB_SHARD_FULL, "--shard full: the layout has dp=1"},
      {"dp=2,pp=2", CB_SHARD_FULL, "--shard full with pp=2"},
      {"ep=2,dp=2", CB_SHARD_GRAD, "--shard grad with ep=2"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct cb_layout l = {.shard = bad[i].shard};
    struct cb_error err = {0};
    cb_parallel_parse(bad[i].par, &l.par, &err);
    ok(cb_layout_check(&m, &l, &err) == CB_USAGE && strstr(err.msg, bad[i].says),
       "%s --shard %s refused: %s", bad[i].par, cb_shard_names[bad[i].shard], err.msg);
  }
  struct cb_layout l = {.shard = CB_SHARD_NONE};
  struct cb_error err;
  cb_parallel_parse("dp=4", &l.par, &err);
  is_long((long)cb_layout_state_bytes(&m, &l), 16L * 4 * LAYER, "DDP: 16 bytes a parameter");
  l.shard = CB_SHARD_GRAD;
  is_long((long)cb_layout_state_bytes(&m, &l), 2L * 4 * LAYER + 14L * LAYER, "ZeRO-2: 2P + 14P/dp");
  l.shard = CB_SHARD_FULL;
  is_long((long)cb_layout_state_bytes(&m, &l), 16L * LAYER, "FSDP: 16P/dp");
  is_long(cb_shard_lookup("full"), CB_SHARD_FULL, "shard names look up");
  is_long(cb_shard_lookup("zero3"), -1, "an unknown shard name is -1");
}

int main(void) {
  test_tp_fsdp();
  test_prefetch();
  test_ddp_zero2();
  test_pp();
  test_ep();
  test_members_agree();
  test_refusals();
  done_testing();
  return exit_status();
}
