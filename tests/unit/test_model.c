/* The alpha-beta model against closed forms: exact synthetic data is
 * fitted back exactly, and ring / tree / hierarchical costs equal the
 * figures worked out by hand in the comments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/groups.h"
#include "model/model.h"
#include "tap.h"

/* relative comparison: times range from microseconds to seconds */
static int near(double got, double want, const char *what) {
  return is_double(got, want, 1e-9 * fabs(want), "%s", what);
}

static void test_terms(void) {
  struct cb_terms t = cb_model_flat_terms(CB_MOP_ALLREDUCE, 4, 1);
  near(t.steps, 6, "ring allreduce, 4 ranks: 2(p-1) = 6 steps");
  near(t.share, 1.5, "ring allreduce, 4 ranks: 2(p-1)/p = 1.5 of the bytes");
  t = cb_model_flat_terms(CB_MOP_ALLTOALL, 8, 2);
  near(t.share, 2, "alltoall, 2 nodes of 4: a node's 4 ranks send half their data out: 2");
  t = cb_model_flat_terms(CB_MOP_BROADCAST, 5, 1);
  ok(t.steps == 4 && t.share == 1, "broadcast chain, 5 ranks: 4 steps, the whole buffer");
  struct cb_link l = {1, 10e-6, 1e-9, 0, 0, 0};
  near(cb_model_flat_time(CB_MOP_ALLREDUCE, 4, 1, 1e6, &l), 6 * 10e-6 + 1.5e-3,
       "allreduce 4 ranks, 1 MB, 10 us, 1 GB/s: 1.56 ms");
  near(cb_model_busbw(CB_MOP_ALLREDUCE, 4, 1e6, 1.5e-3), 1e9,
       "busbw of the bandwidth term alone is 1/beta");
  ok(cb_model_busbw_factor(CB_MOP_ALLGATHER, 1) == 0, "busbw factor with one rank is 0");
}

/* Points at 2 and 4 ranks, 8 B to 64 MiB, from alpha and beta exactly. */
static int synth(int op, double alpha, double beta, int nodes, struct cb_fit_point *pts) {
  struct cb_link l = {1, alpha, beta, 0, 0, 0};
  int n = 0;
  for (int p = 2; p <= 4; p += 2)
    for (double b = 8; b <= 64 * 1048576.0; b *= 4)
      pts[n] = (struct cb_fit_point){p * nodes, nodes, b, 0, CB_SHAPE_RING},
      pts[n].time_s = cb_model_flat_time(op, p * nodes, nodes, b, &l), n++;
  return n;
}

static void test_fit(void) {
  struct cb_fit_point pts[64];
  struct cb_fit f;
  for (int op = 0; op < CB_NMOPS; op++) {
    int n = synth(op, 3.5e-6, 2.5e-10, 1, pts);
    ok(cb_model_fit(op, pts, n, &f) == 0, "%s: exact data fits", cb_mop_names[op]);
    near(f.link.alpha, 3.5e-6, "... alpha recovered");
    near(f.link.beta, 2.5e-10, "... beta recovered");
    ok(f.max_rel < 1e-9 && f.median_rel < 1e-9 && fabs(f.r2 - 1) < 1e-12,
       "... residuals 0 and R^2 1 (max %g, R^2 %.15f)", f.max_rel, f.r2);
    ok(f.npoints == n, "... counts %d points", n);
  }
  int n = synth(CB_MOP_ALLTOALL, 20e-6, 1e-10, 2, pts);
  ok(cb_model_fit(CB_MOP_ALLTOALL, pts, n, &f) == 0 && fabs(f.link.beta / 1e-10 - 1) < 1e-9,
     "alltoall over 2 nodes: per-node beta recovered");

  /* noise of +-10% alternating: the fit is off, and says so */
  n = synth(CB_MOP_ALLREDUCE, 3.5e-6, 2.5e-10, 1, pts);
  for (int i = 0; i < n; i++)
    pts[i].time_s *= i % 2 ? 1.1 : 0.9;
  cb_model_fit(CB_MOP_ALLREDUCE, pts, n, &f);
  ok(f.max_rel > 0.05 && f.max_rel < 0.2, "noisy data: max residual %.3f reported", f.max_rel);

  /* time growing faster than the size: alpha would come out negative; kept at 0 */
  struct cb_fit_point bw[] = {
      {2, 1, 1000, 1e-6, 0}, {2, 1, 2000, 2.2e-6, 0}, {2, 1, 4000, 4.6e-6, 0}};
  ok(cb_model_fit(CB_MOP_BROADCAST, bw, 3, &f) == 0 && f.link.alpha == 0 && f.link.beta > 0,
     "alpha never negative (alpha %g, beta %g)", f.link.alpha, f.link.beta);

  struct cb_fit_point one[] = {{2, 1, 1000, 1e-6, 0}, {2, 1, 1000, 1.1e-6, 0}};
  ok(cb_model_fit(CB_MOP_ALLREDUCE, one, 2, &f) == -1, "one size cannot separate alpha and beta");
}

/* 8 GPUs per node; intra 1 us and 1 GB/s (1 ns/B), inter 10 us and 4 ns/B. */
static const struct cb_system sys = {8, {{1, 1e-6, 1e-9, 0, 0, 0}, {1, 10e-6, 4e-9, 0, 0, 0}}};

static void test_predict(void) {
  struct cb_prediction p;
  /* 16 GPUs = 2 nodes, 1 MB allreduce
   * ring: 30 steps * 10 us + 30/16 * 1e6 * 4e-9 = 300 us + 7.5 ms = 7.8 ms */
  p = cb_model_predict(CB_MOP_ALLREDUCE, CB_ALGO_RING, &sys, 16, 1e6);
  near(p.time_s, 7.8e-3, "ring allreduce, 16 GPUs on 2 nodes: 7.8 ms");
  near(p.busbw_Bps, 2 * 15 / 16.0 * 1e6 / 7.8e-3, "... busbw from that time");
  /* tree: 2 * (1 level * 10 us + 3 levels * 1 us) + 2 * 1e6 * 4e-9 = 26 us + 8 ms */
  p = cb_model_predict(CB_MOP_ALLREDUCE, CB_ALGO_TREE, &sys, 16, 1e6);
  near(p.time_s, 8.026e-3, "tree allreduce, 16 GPUs: 8.026 ms");
  /* hierarchical: intra RS + AG = 2 * (7 us + 7/8 ms) = 1.764 ms;
   * inter ring over 2 nodes = 2 * 10 us + 1 * 1e6 * 4e-9 = 4.02 ms (tree: 8.02 ms) */
  p = cb_model_predict(CB_MOP_ALLREDUCE, CB_ALGO_HIER, &sys, 16, 1e6);
  near(p.time_s, 1.764e-3 + 4.02e-3, "hierarchical allreduce, 16 GPUs: 5.784 ms");
  ok(p.inter_algo == CB_ALGO_RING, "... with a ring between nodes");
  struct cb_prediction best;
  ok(cb_model_best(CB_MOP_ALLREDUCE, &sys, 16, 1e6, &best) == CB_ALGO_HIER,
     "hierarchical is the fastest there");
  /* 8 GPUs, one node: 14 * 1 us + 1.75 * 1 ms = 1.764 ms, for ring and hierarchical */
  near(cb_model_predict(CB_MOP_ALLREDUCE, CB_ALGO_RING, &sys, 8, 1e6).time_s, 1.764e-3,
       "ring allreduce inside one node: 1.764 ms");
  near(cb_model_predict(CB_MOP_ALLREDUCE, CB_ALGO_HIER, &sys, 8, 1e6).time_s, 1.764e-3,
       "hierarchical inside one node is the ring");
  /* allgather 32 GPUs = 4 nodes, 8 MB (whole buffer):
   * hier: intra 7 * 1 us + 7/8 * 8 ms = 7.007 ms; inter ring 3 * 10 us + 3/4 * 8e6 * 4e-9 =
   * 24.03 ms, inter tree 2 * 10 us + 24 ms = 24.02 ms: tree, total 31.027 ms */
  p = cb_model_predict(CB_MOP_ALLGATHER, CB_ALGO_HIER, &sys, 32, 8e6);
  near(p.time_s, 7.007e-3 + 24.02e-3, "hierarchical allgather, 32 GPUs: 31.027 ms");
  ok(p.inter_algo == CB_ALGO_TREE, "... with a tree between nodes");
  /* broadcast tree 32 GPUs: 2 * 10 us + 3 * 1 us + 8e6 * 4e-9 = 32.023 ms */
  near(cb_model_predict(CB_MOP_BROADCAST, CB_ALGO_TREE, &sys, 32, 8e6).time_s, 32.023e-3,
       "tree broadcast, 32 GPUs: 32.023 ms");
  /* alltoall ring 16 GPUs, 16 MB: 15 * 10 us + max(15/16 * 16 ms, 8 * 1/2 * 16e6 * 4e-9 = 256 ms)
   */
  near(cb_model_predict(CB_MOP_ALLTOALL, CB_ALGO_RING, &sys, 16, 16e6).time_s, 150e-6 + 0.256,
       "alltoall across 2 nodes: the node's NICs limit it: 256.15 ms");
  ok(isnan(cb_model_predict(CB_MOP_ALLTOALL, CB_ALGO_TREE, &sys, 16, 1e6).time_s),
     "alltoall has no tree");
  struct cb_system intra_only = sys;
  intra_only.tier[CB_TIER_INTER].set = 0;
  ok(isnan(cb_model_predict(CB_MOP_ALLREDUCE, CB_ALGO_RING, &intra_only, 16, 1e6).time_s),
     "no inter-node tier: nothing predicted beyond a node");
  ok(cb_model_best(CB_MOP_ALLREDUCE, &intra_only, 16, 1e6, &best) == -1, "... and no best");
}

static void test_step(void) {
  /* 2 GPUs, bandwidth only: a bucket of b bytes takes b ns (ring beats tree's 2b) */
  struct cb_system s = {8, {{1, 0, 1e-9, 0, 0, 0}, {0, 0, 0, 0, 0, 0}}};
  struct cb_step_result r;
  /* 1 GB in 4 buckets of 0.25 s, compute 1 s: ready at .25 .5 .75 1, done at
   * .5 .75 1 1.25: 0.25 s exposed */
  ok(cb_model_step(&s, 2, 1.0, 1e9, 0.25e9, NULL, &r) == 0 && r.nbuckets == 4, "4 buckets");
  near(r.comm_s, 1.0, "... 1 s of communication");
  near(r.exposed_s, 0.25, "... the last bucket exposed: 0.25 s");
  near(r.rho, 0.25, "... rho 0.25");
  /* compute 0.5 s: ready at .125 .25 .375 .5, done at .375 .625 .875 1.125 */
  cb_model_step(&s, 2, 0.5, 1e9, 0.25e9, NULL, &r);
  near(r.rho, 1.25, "communication longer than compute: rho 1.25");
  /* buckets that do not divide the gradients: 0.4 + 0.4 + 0.2 GB, ready at
   * .4 .8 1, done at .8 1.2 1.4: the second one delays the last */
  cb_model_step(&s, 2, 1.0, 1e9, 0.4e9, NULL, &r);
  ok(r.nbuckets == 3, "1 GB in buckets of 0.4 GB: 3");
  near(r.exposed_s, 0.4, "... 0.4 s exposed");
  ok(cb_model_step(&s, 16, 1.0, 1e9, 0.4e9, NULL, &r) == -1,
     "no inter-node tier: no step prediction");
}

/* The overlap F: while an allreduce runs, compute advances at F x its
 * speed. Same step as test_step (1 GB in 4 buckets of 0.25 s, compute 1 s). */
static void test_step_overlap(void) {
  struct cb_system s = {8, {{1, 0, 1e-9, 0, 0, 0}, {0, 0, 0, 0, 0, 0}}};
  struct cb_step_result r;
  struct cb_step_opts o = {0, NULL, 0, NULL, NULL};
  /* F 0: compute waits for every allreduce: 1 s + 4 x 0.25 s */
  ok(cb_model_step(&s, 2, 1.0, 1e9, 0.25e9, &o, &r) == 0, "F 0 predicts");
  near(r.exposed_s, 1.0, "F 0: all communication exposed (1 s)");
  near(r.rho, 1.0, "... rho 1");
  /* F 0.5: work .25 at .25, comm to .5 (work .375); ready .5 at .625, comm
   * to .875 (work .625); ready .75 at 1.0, comm to 1.25 (work .875); ready
   * 1 at 1.375, the last to 1.625 */
  o.overlap = 0.5;
  cb_model_step(&s, 2, 1.0, 1e9, 0.25e9, &o, &r);
  near(r.exposed_s, 0.625, "F 0.5: 0.625 s exposed, worked by hand");
  o.overlap = 1;
  cb_model_step(&s, 2, 1.0, 1e9, 0.25e9, &o, &r);
  near(r.exposed_s, 0.25, "F 1: the plain model (the last bucket, 0.25 s)");
  /* backlog: compute 0.5 s, F 0.5: ready .125, comm to .375 (work .25); ready
   * .25 at once, to .625 (.375); to .875 (.5, compute done at .875); the
   * last to 1.125 */
  o.overlap = 0.5;
  cb_model_step(&s, 2, 0.5, 1e9, 0.25e9, &o, &r);
  near(r.exposed_s, 0.625, "F 0.5, communication longer than compute: 0.625 s exposed");

  double f = -1;
  ok(cb_model_overlap_from_efficiency(1.0, 1.0, 1e9, 0.25e9, 0.375, &f) == 0,
     "efficiency 0.375 (exposed 0.625 of 1 s of communication) inverts");
  is_double(f, 0.5, 1e-9, "... to F 0.5");
  ok(cb_model_overlap_from_efficiency(1.0, 1.0, 1e9, 0.25e9, -0.33, &f) == 1 && f == 0,
     "efficiency -0.33 (slower than serial): F 0, said to be out of reach");
  ok(cb_model_overlap_from_efficiency(1.0, 1.0, 1e9, 0.25e9, 0.9, &f) == 1 && f == 1,
     "efficiency 0.9 (above F 1's 0.75): F 1, out of reach");
  f = 0.3;
  ok(cb_model_overlap_from_efficiency(1.0, 1.0, 1e9, 1e9, 0.5, &f) == -1 && f == 0.3,
     "one bucket: nothing overlaps, F cannot be told");
}

/* The step through the algorithms the results recorded: basic_linear at
 * 1 MB and ring at 64 MB on 2 ranks, NCCL's Tree with LL128 at 64 MB on 4. */
static void test_step_recorded(void) {
  struct cb_link l = {1, 0, 1e-9, 0, 0, 0};
  struct cb_recorded rec[3] = {{CB_TIER_INTRA, 2, 1e6, CB_SHAPE_LINEAR, l, "basic_linear", ""},
                               {CB_TIER_INTRA, 2, 64e6, CB_SHAPE_RING, l, "ring", ""},
                               {CB_TIER_INTRA, 4, 64e6, CB_SHAPE_TREE, l, "Tree", "LL128"}};
  ok(cb_model_recorded_for(rec, 3, CB_TIER_INTRA, 2, 4e6) == &rec[0],
     "4 MB: nearest measured size 1 MB (log scale), basic_linear");
  ok(cb_model_recorded_for(rec, 3, CB_TIER_INTRA, 2, 16e6) == &rec[1],
     "16 MB on 2 ranks: 64 MB, ring (recorded at 2 ranks)");
  ok(cb_model_recorded_for(rec, 3, CB_TIER_INTRA, 8, 16e6) == &rec[2],
     "16 MB on 8 ranks: 64 MB, Tree/LL128 (recorded at 4 ranks, the nearer count)");
  ok(!cb_model_recorded_for(rec, 3, CB_TIER_INTER, 16, 16e6), "nothing recorded between nodes");
  struct cb_system s = {8, {l, {1, 0, 1e-9, 0, 0, 0}}};
  struct cb_step_opts o = {1, rec, 3, NULL, NULL};
  struct cb_step_result r;
  /* 4 ranks, 2 buckets of 1 MB, each linear: 2(p-1) = 6 x 1 MB x 1 ns = 6 ms;
   * the fastest modelled (ring) would take 1.5 ms */
  ok(cb_model_step(&s, 4, 1.0, 2e6, 1e6, &o, &r) == 0 && r.rec == &rec[0] && r.nrecorded == 2,
     "4 ranks, 1 MB buckets: both through the recorded basic_linear");
  near(r.comm_s, 2 * 6e-3, "... 2 x 6 ms (linear: the root moves 2(p-1) buffers)");
  cb_model_step(&s, 4, 1.0, 2e6, 1e6, NULL, &r);
  ok(!r.rec && r.best == CB_ALGO_RING, "without records: the best modelled, ring");
  near(r.comm_s, 2 * 1.5e-3, "... 2 x 1.5 ms");
  ok(cb_model_step(&s, 16, 1.0, 2e6, 1e6, &o, &r) == 0 && !r.rec && r.best >= 0 && r.nrecorded == 0,
     "16 GPUs on 2 nodes: none recorded between nodes, the best modelled");
}

/* NCCL results: Ring with LL at small sizes, with Simple at large ones, out
 * of place; an in-place series ran Tree. Each protocol is a group of its
 * own, and the step's table holds the out-of-place sizes with theirs. */
static void test_groups_recorded(void) {
  struct cb_rep_series series[2];
  struct cb_rep_data d = {.series = series, .nseries = 2};
  struct cb_link l = {1, 5e-6, 1e-9, 0, 0, 0};
  for (int in = 0; in < 2; in++) {
    series[in] = (struct cb_rep_series){.op = "allreduce",
                                        .backend = "nccl",
                                        .mem = "device",
                                        .transport = "nvlink",
                                        .dtype = "float",
                                        .redop = "sum",
                                        .inplace = in,
                                        .pts = calloc(4, sizeof(struct cb_record))};
    for (int k = 0; k < 4; k++) {
      struct cb_record *r = &series[in].pts[series[in].npts++];
      *r = (struct cb_record){.nranks = 2, .nnodes = 1, .bytes = 1024u << (4 * k)};
      snprintf(r->nccl_algo, sizeof r->nccl_algo, "%s", in ? "Tree" : "Ring");
      snprintf(r->nccl_proto, sizeof r->nccl_proto, "%s", k < 2 ? "LL" : "Simple");
      r->time_us = 1e6 * cb_model_flat_time(CB_MOP_ALLREDUCE, 2, 1, r->bytes, &l);
    }
  }
  struct cb_fit_groups gs = {0};
  cb_fit_groups_add(&gs, &d, NULL, -1);
  cb_fit_groups_fit(&gs);
  char lb[48];
  int ll = 0, simple = 0;
  for (int i = 0; i < gs.n; i++) {
    cb_fit_group_label(&gs.g[i], lb, sizeof lb);
    ll += strcmp(lb, "Ring/LL") == 0, simple += strcmp(lb, "Ring/Simple") == 0;
  }
  ok(ll == 1 && simple == 1, "NCCL's Ring with LL and with Simple: a group each");
  struct cb_recorded *rec;
  int n = cb_fit_groups_recorded(&gs, CB_MOP_ALLREDUCE, &rec);
  ok(n == 4, "the step's table: the 4 out-of-place sizes (got %d)", n);
  int right = 1;
  for (int i = 0; i < n; i++)
    right &= rec[i].tier == CB_TIER_INTRA && rec[i].nranks == 2 &&
             strcmp(rec[i].algo, "Ring") == 0 &&
             strcmp(rec[i].proto, rec[i].bytes < 1e5 ? "LL" : "Simple") == 0 &&
             fabs(rec[i].link.beta / 1e-9 - 1) < 1e-6;
  ok(right, "... each Ring with the protocol its size ran, beta fitted back (1 ns/B)");
  const struct cb_recorded *e = cb_model_recorded_for(rec, n, CB_TIER_INTRA, 2, 4e6);
  ok(e && strcmp(e->proto, "Simple") == 0, "a 4 MB bucket: Ring/Simple (recorded at 4 MiB)");
  free(rec);
  cb_fit_groups_free(&gs);
  free(series[0].pts), free(series[1].pts);
}

/* Points of a series labelled shm (one node) or tcp / shm+tcp (two nodes):
 * alpha 1 us, beta 1 ns/B on either tier, exact ring-allreduce times. */
static void add_series(struct cb_rep_data *d, char *transport, int nranks, int nnodes) {
  struct cb_rep_series *s = &d->series[d->nseries++];
  *s = (struct cb_rep_series){.op = "allreduce",
                              .backend = "mpi",
                              .mem = "host",
                              .transport = transport,
                              .dtype = "float",
                              .redop = "sum"};
  s->pts = calloc(4, sizeof *s->pts);
  for (int k = 0; k < 4; k++) {
    struct cb_record *r = &s->pts[s->npts++];
    struct cb_link l = {1, 1e-6, 1e-9, 0, 0, 0};
    r->nranks = nranks, r->nnodes = nnodes, r->bytes = 1024u << (4 * k);
    r->time_us = 1e6 * cb_model_flat_time(CB_MOP_ALLREDUCE, nranks, nnodes, r->bytes, &l);
  }
}

static void test_groups(void) {
  struct cb_rep_series series[3];
  struct cb_rep_data d = {.series = series};
  add_series(&d, "shm", 2, 1);
  add_series(&d, "tcp", 2, 2);
  struct cb_fit_groups gs = {0};
  cb_fit_groups_add(&gs, &d, NULL, -1);
  cb_fit_groups_fit(&gs);
  ok(gs.n == 2, "one node and two nodes: two groups (intra shm, inter tcp)");
  add_series(&d, "shm+tcp", 4, 2); /* 2 ranks on each of 2 nodes */
  struct cb_record across = series[2].pts[0], inside = across, shm_across = series[0].pts[0];
  inside.nnodes = 1, shm_across.nnodes = 2;
  const struct cb_fit_group *inter = cb_fit_groups_match(&gs, &series[2], &across);
  ok(inter && strcmp(inter->transport, "tcp") == 0, "shm+tcp at the inter-node tier matches tcp");
  const struct cb_fit_group *intra = cb_fit_groups_match(&gs, &series[2], &inside);
  ok(intra && strcmp(intra->transport, "shm") == 0, "shm+tcp at the intra-node tier matches shm");
  ok(!cb_fit_groups_match(&gs, &series[0], &shm_across), "shm alone has no inter-node match");
  if (inter)
    near(inter->fit.link.beta, 1e-9, "the tcp tier's beta is fitted back: 1 ns/B");
  cb_fit_groups_free(&gs);
  for (int i = 0; i < d.nseries; i++)
    free(series[i].pts);
}

/* Cost shapes per algorithm, worked by hand with alpha 10 us, beta 1 ns/B
 * (1 GB/s), 1 MB: L = ceil(log2 p). */
static void test_shapes(void) {
  struct cb_link l = {1, 10e-6, 1e-9, 0, 0, 0};
  const struct {
    int op, shape, p, nodes;
    double want;
    const char *what;
  } cases[] = {
      {CB_MOP_ALLREDUCE, CB_SHAPE_LOG, 8, 1, 6 * 10e-6 + 1.75e-3,
       "rabenseifner, 8 ranks: 2L = 6 steps, 2(p-1)/p = 1.75 MB: 1.81 ms"},
      {CB_MOP_ALLREDUCE, CB_SHAPE_DOUBLING, 4, 1, 2 * 10e-6 + 2e-3,
       "recursive doubling, 4 ranks: L = 2 steps of the whole buffer: 2.02 ms"},
      {CB_MOP_ALLREDUCE, CB_SHAPE_DOUBLING, 6, 1, 5 * 10e-6 + 5e-3,
       "recursive doubling, 6 ranks: L = 3, +2 folding steps: 5.05 ms"},
      {CB_MOP_ALLREDUCE, CB_SHAPE_TREE, 8, 1, 6 * 10e-6 + 2e-3,
       "tree, 8 ranks: 2L = 6 steps, the buffer up and down: 2.06 ms"},
      {CB_MOP_ALLREDUCE, CB_SHAPE_LINEAR, 4, 1, 6 * 10e-6 + 6e-3,
       "basic linear, 4 ranks: root takes 3 and sends 3 buffers: 6.06 ms"},
      {CB_MOP_ALLGATHER, CB_SHAPE_LOG, 8, 1, 3 * 10e-6 + 0.875e-3,
       "recursive doubling allgather, 8 ranks: 3 steps, 7/8 of the buffer"},
      {CB_MOP_REDUCESCATTER, CB_SHAPE_LINEAR, 2, 1, 2 * 10e-6 + 1.5e-3,
       "basic linear reduce-scatter, 2 ranks: reduce 1 MB, scatter 0.5 MB"},
      {CB_MOP_REDUCESCATTER, CB_SHAPE_LINEAR, 8, 8, 10 * 10e-6 + 3.875e-3,
       "basic linear reduce-scatter, 8 ranks: Open MPI's binomial reduce (L = 3 whole buffers "
       "into the root) and a linear scatter (7 steps, 7/8 MB)"},
      {CB_MOP_REDUCESCATTER, cb_model_shape_of(CB_MOP_REDUCESCATTER, "recursive_doubling"), 8, 8,
       3 * 10e-6 + 2.125e-3,
       "recursive doubling reduce-scatter, 8 ranks: 7, 6 and 4 of the 8 blocks in L = 3 steps "
       "(L - (p-1)/p = 2.125 MB)"},
      {CB_MOP_REDUCESCATTER, cb_model_shape_of(CB_MOP_REDUCESCATTER, "recursive_doubling"), 2, 2,
       10e-6 + 0.5e-3, "recursive doubling reduce-scatter, 2 ranks: one exchange of half"},
      {CB_MOP_REDUCESCATTER, cb_model_shape_of(CB_MOP_REDUCESCATTER, "butterfly"), 8, 8,
       3 * 10e-6 + 0.875e-3,
       "butterfly reduce-scatter, 8 ranks: halves 1/2, 1/4, 1/8 of the buffer like recursive "
       "halving"},
      {CB_MOP_ALLGATHER, CB_SHAPE_RING, 8, 1, cb_model_flat_time(CB_MOP_ALLGATHER, 8, 1, 1e6, &l),
       "ring is the flat shape"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    near(cb_model_time(cases[i].op, cases[i].shape, cases[i].p, cases[i].nodes, 1e6, &l),
         cases[i].want, cases[i].what);
  ok(cb_model_shape_of(CB_MOP_ALLREDUCE, "recursive_doubling") == CB_SHAPE_DOUBLING &&
         cb_model_shape_of(CB_MOP_ALLGATHER, "recursive_doubling") == CB_SHAPE_LOG &&
         cb_model_shape_of(CB_MOP_ALLREDUCE, "Tree") == CB_SHAPE_TREE &&
         cb_model_shape_of(CB_MOP_ALLREDUCE, "") == CB_SHAPE_RING &&
         cb_model_shape_of(CB_MOP_ALLREDUCE, "NVLS") == -1,
     "recorded names map to shapes (NVLS: none)");
}

/* basic_linear reduce-scatter is Open MPI's own reduce of the whole buffer
 * (the algorithm its reduce rules pick for p and the size, unsegmented)
 * and a linear scatter: at 4 ranks binomial (L = 2 buffers into the root)
 * at 64-128 KiB and 512 KiB, linear (p-1 = 3) at 256 KiB and from 1 MiB;
 * at 8 ranks binomial (3) from 8 KiB, binary below (the root's critical
 * path: 5 buffers). Points made from those closed forms are fitted back
 * exactly, and the 8-rank run predicted. */
static void test_reducescatter_linear(void) {
  struct cb_link l = {1, 10e-6, 1e-9, 0, 0, 0};
  const struct {
    int p;
    double bytes, reduce; /* whole buffers the reduce moves into the root */
    const char *what;
  } cases[] = {
      {4, 131072, 2, "4 ranks, 128 KiB: binomial, 2 + 3 steps, 2 + 3/4 buffers"},
      {4, 262144, 3, "4 ranks, 256 KiB: linear, 3 + 3 steps, 3 + 3/4 buffers"},
      {4, 524288, 2, "4 ranks, 512 KiB: binomial again"},
      {4, 1048576, 3, "4 ranks, 1 MiB: linear"},
      {2, 1048576, 1, "2 ranks, 1 MiB: pipeline, one buffer and half of one"},
      {8, 8192, 3, "8 ranks, 8 KiB: binomial"},
      {8, 4096, 5, "8 ranks, 4 KiB: binary, 0 takes 1 (done at 3: 3 had 7, then 5) and 2: 5"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double q = cases[i].p, r = cases[i].reduce;
    near(cb_model_time(CB_MOP_REDUCESCATTER, CB_SHAPE_LINEAR, cases[i].p, cases[i].p,
                       cases[i].bytes, &l),
         (r + q - 1) * 10e-6 + (r + (q - 1) / q) * cases[i].bytes * 1e-9, cases[i].what);
  }
  /* the rendezvous wait: each of the reduce's whole buffers and scatter's blocks */
  near(cb_model_wait_bytes(CB_MOP_REDUCESCATTER, CB_SHAPE_LINEAR, 4, 4, 1048576, 65536, 1e9),
       3 * 1048576 + 3 * 262144, "4 ranks, 1 MiB: 3 buffers and 3 blocks wait");
  near(cb_model_wait_bytes(CB_MOP_REDUCESCATTER, CB_SHAPE_LINEAR, 4, 4, 131072, 65536, 1e9),
       2 * 131072, "4 ranks, 128 KiB: 2 buffers wait, the 32 KiB blocks do not");

  /* 4 ranks, 64 KiB to 8 MiB, by the closed form, fitted back */
  const double alpha = 30e-6, beta = 40e-9;
  struct cb_fit_point pts[8];
  int n = 0;
  for (double b = 65536; b <= 8388608; b *= 2, n++) {
    double r = b == 262144 || b >= 1048576 ? 3 : 2;
    pts[n] =
        (struct cb_fit_point){4, 4, b, (r + 3) * alpha + (r + 0.75) * b * beta, CB_SHAPE_LINEAR};
  }
  struct cb_fit fit;
  ok(cb_model_fit(CB_MOP_REDUCESCATTER, pts, n, &fit) == 0 &&
         fabs(fit.link.alpha / alpha - 1) < 1e-6 && fabs(fit.link.beta / beta - 1) < 1e-6 &&
         fit.max_rel < 1e-6,
     "4 ranks, binomial and linear inside: alpha and beta fitted back exactly (max %.2g%%)",
     100 * fit.max_rel);
  near(cb_model_time(CB_MOP_REDUCESCATTER, CB_SHAPE_LINEAR, 8, 8, 131072, &fit.link),
       10 * alpha + 3.875 * 131072 * beta,
       "... and 8 ranks, 128 KiB predicted: 10 steps, 3.875 buffers");
}

/* Results recording two algorithms (as Open MPI's rules switch by size)
 * are fitted apart, each through its own shape, and a held-out run at 8
 * ranks is predicted with the algorithm it recorded. */
static void test_fit_per_algo(void) {
  struct cb_rep_series series[2];
  struct cb_rep_data d = {.series = series};
  struct cb_link l = {1, 20e-6, 2e-9, 0, 0, 0};
  for (int f = 0; f < 2; f++) /* file 0: 2 and 4 ranks, fitted; file 1: 8 ranks, held out */
    series[f] = (struct cb_rep_series){.op = "allreduce",
                                       .backend = "mpi",
                                       .mem = "host",
                                       .transport = "tcp",
                                       .dtype = "float",
                                       .redop = "sum",
                                       .file = f,
                                       .pts = calloc(8, sizeof(struct cb_record))};
  d.nseries = 2;
  for (int p = 2; p <= 8; p *= 2)
    for (int k = 0; k < 4; k++) {
      struct cb_rep_series *s = &series[p == 8];
      struct cb_record *r = &s->pts[s->npts++];
      int small = k < 2;
      *r = (struct cb_record){
          .nranks = p, .nnodes = p, .bytes = small ? 1024u << k : 1u << (20 + k)};
      snprintf(r->algo, sizeof r->algo, "%s", small ? "recursive_doubling" : "rabenseifner");
      r->time_us = 1e6 * cb_model_time(CB_MOP_ALLREDUCE, small ? CB_SHAPE_DOUBLING : CB_SHAPE_LOG,
                                       p, p, r->bytes, &l);
    }
  struct cb_fit_groups gs = {0};
  cb_fit_groups_add(&gs, &d, NULL, 0);
  cb_fit_groups_fit(&gs);
  ok(gs.n == 3 && gs.g[0].fitted && gs.g[1].fitted && gs.g[2].fitted &&
         strcmp(gs.g[2].algo, CB_ALL_ALGOS) == 0,
     "two recorded algorithms: two fitted groups, and the link's pooled one (*)");
  for (int i = 0; i < gs.n; i++)
    ok(fabs(gs.g[i].fit.link.alpha / 20e-6 - 1) < 1e-9 &&
           fabs(gs.g[i].fit.link.beta / 2e-9 - 1) < 1e-9,
       "%s: alpha and beta fitted back through its shape", gs.g[i].algo);
  const struct cb_record *small = &series[1].pts[0], *large = &series[1].pts[3];
  const struct cb_fit_group *g = cb_fit_groups_match(&gs, &series[1], large);
  ok(g && strcmp(g->algo, "rabenseifner") == 0, "8 ranks, 8 MiB matches the rabenseifner fit");
  /* 8 ranks, 8 MiB rabenseifner: 6 steps x 20 us + 1.75 x 8388608 B x 2 ns */
  if (g)
    near(cb_fit_group_time(g, large), 6 * 20e-6 + 1.75 * 8388608 * 2e-9,
         "... predicted: 120 us + 29.36 ms");
  g = cb_fit_groups_match(&gs, &series[1], small);
  /* 8 ranks, 1 KiB recursive doubling: 3 steps x 20 us + 3 x 1024 B x 2 ns */
  if (g)
    near(cb_fit_group_time(g, small), 3 * 20e-6 + 3 * 1024 * 2e-9,
         "8 ranks, 1 KiB by recursive doubling: 66.1 us");
  struct cb_record other = *large;
  snprintf(other.algo, sizeof other.algo, "ring");
  g = cb_fit_groups_match(&gs, &series[1], &other);
  ok(g && strcmp(g->algo, CB_ALL_ALGOS) == 0, "ring, never fitted: the link's pooled fit");
  /* 8 ranks, 8 MiB by ring: 14 steps x 20 us + 1.75 x 8388608 B x 2 ns */
  if (g)
    near(cb_fit_group_time(g, &other), 14 * 20e-6 + 1.75 * 8388608 * 2e-9,
         "... through the ring's shape: 280 us + 29.36 ms");
  snprintf(other.algo, sizeof other.algo, "NVLS");
  ok(!cb_fit_groups_match(&gs, &series[1], &other), "NVLS (no shape, no fit): not predicted");
  cb_fit_groups_free(&gs);
  free(series[0].pts), free(series[1].pts);
}

/* One size per algorithm (2 ranks, as Open MPI's rules switch): no group
 * can be fitted alone, each borrows the link fitted on all of them
 * through their own shapes, which exact data gives back exactly. */
static void test_pooled(void) {
  static const char *const algos[] = {"recursive_doubling", "ring", "rabenseifner"};
  struct cb_rep_series s = {.op = "allreduce",
                            .backend = "mpi",
                            .mem = "host",
                            .transport = "shm",
                            .dtype = "float",
                            .redop = "sum",
                            .pts = calloc(3, sizeof *s.pts)};
  struct cb_rep_data d = {.series = &s, .nseries = 1};
  struct cb_link l = {1, 3e-6, 5e-10, 0, 0, 0};
  for (int k = 0; k < 3; k++) {
    struct cb_record *r = &s.pts[s.npts++];
    *r = (struct cb_record){.nranks = 2, .nnodes = 1, .bytes = 1024u << (6 * k)};
    snprintf(r->algo, sizeof r->algo, "%s", algos[k]);
    r->time_us =
        1e6 * cb_model_time(CB_MOP_ALLREDUCE, cb_model_shape_of(CB_MOP_ALLREDUCE, algos[k]), 2, 1,
                            r->bytes, &l);
  }
  struct cb_fit_groups gs = {0};
  cb_fit_groups_add(&gs, &d, NULL, -1);
  cb_fit_groups_fit(&gs);
  int pooled = 0;
  for (int i = 0; i < gs.n; i++)
    pooled += gs.g[i].fitted && gs.g[i].pooled && fabs(gs.g[i].fit.link.alpha / 3e-6 - 1) < 1e-9 &&
              fabs(gs.g[i].fit.link.beta / 5e-10 - 1) < 1e-9;
  ok(gs.n == 4 && pooled == 3, "three algorithms of one size each: all pooled, link fitted back");
  const struct cb_fit_group *g = cb_fit_groups_match(&gs, &s, &s.pts[0]);
  if (g) /* 1 KiB by recursive doubling, 2 ranks: 1 step, the whole buffer once */
    near(cb_fit_group_time(g, &s.pts[0]), 3e-6 + 1024 * 5e-10, "... and predicts 1 KiB: 3.51 us");
  cb_fit_groups_free(&gs);
  free(s.pts);
}

/* One series of ring allreduce, `p` ranks on p nodes, 64 KiB to 8 MiB, its
 * times worked out by hand: alpha 20 us, beta 40 ns/B (25 MB/s), and each
 * step whose message (n/p) is 64 KiB or more waits gamma 10 ns/B on up to
 * 256 KiB of it; `factor` scales the times (a 2-rank run's race). */
static void ring_series(struct cb_rep_series *s, int file, int p, double factor) {
  *s = (struct cb_rep_series){.op = "allreduce",
                              .backend = "mpi",
                              .mem = "host",
                              .transport = "tcp",
                              .dtype = "float",
                              .redop = "sum",
                              .file = file,
                              .pts = calloc(8, sizeof(struct cb_record))};
  for (int k = 0; k < 8; k++) {
    struct cb_record *r = &s->pts[s->npts++];
    double n = 65536u << k, msg = n / p, steps = 2 * (p - 1);
    *r = (struct cb_record){.nranks = p, .nnodes = p, .bytes = (uint64_t)n};
    snprintf(r->algo, sizeof r->algo, "ring");
    double wait = msg >= 65536 ? steps * fmin(msg, 262144) * 10e-9 : 0;
    r->time_us = 1e6 * factor * (steps * 20e-6 + steps / p * n * 40e-9 + wait);
  }
}

/* The rendezvous wait: fitted back from 4 ranks (rndv and queue found on
 * the grid), and the 8-rank run predicted with it; the 2-rank run, twice
 * as slow, is left out of the fit because larger counts exist. */
static void test_wait(void) {
  struct cb_rep_series series[3];
  struct cb_rep_data d = {.series = series, .nseries = 3};
  ring_series(&series[0], 0, 2, 2.0);
  ring_series(&series[1], 0, 4, 1.0);
  ring_series(&series[2], 1, 8, 1.0);
  struct cb_fit_groups gs = {0};
  cb_fit_groups_add(&gs, &d, NULL, 0);
  cb_fit_groups_fit(&gs);
  const struct cb_record *big = &series[2].pts[7], *small = &series[2].pts[0];
  const struct cb_fit_group *g = cb_fit_groups_match(&gs, &series[2], big);
  ok(g && g->nranks == 1 && g->ranks[0] == 4 && g->fit.npoints == 8,
     "2 and 4 ranks given: the ring is fitted on the 4-rank points only");
  if (g) {
    near(g->fit.link.beta, 40e-9, "beta fitted back: 40 ns/B");
    /* 8 ranks, 8 MiB: 14 steps x 20 us + 1.75 x 8 MiB x 40 ns + 14 x 256 KiB x 10 ns */
    near(cb_fit_group_time(g, big), 14 * 20e-6 + 1.75 * 8388608 * 40e-9 + 14 * 262144 * 10e-9,
         "8 ranks, 8 MiB: 280 us + 587.2 ms + 36.7 ms of waits");
    /* 64 KiB at 8 ranks: 8 KiB messages, under the rendezvous size: no wait */
    near(cb_fit_group_time(g, small), 14 * 20e-6 + 1.75 * 65536 * 40e-9,
         "8 ranks, 64 KiB (8 KiB messages): no wait, 4.87 ms");
    /* the race: only the 2-rank ring (one peer) with messages of rndv or more */
    ok(g->fit.link.gamma > 0 && !cb_fit_group_races(&gs, g, big) &&
           cb_fit_group_races(&gs, g, &series[0].pts[7]) &&
           !cb_fit_group_races(&gs, g, &series[0].pts[0]),
       "race marked at 2 ranks, 8 MiB (4 MiB messages), not at 2 ranks 64 KiB or 8 ranks");
    /* a group of the same link whose fit found no wait (its runs won the
     * race) still races: the rendezvous limit is the link's, taken from
     * the group that found it */
    struct cb_fit_group calm = *g;
    calm.inplace = !g->inplace;
    calm.fit.link.gamma = 0;
    struct cb_fit_group both[2] = {calm, *g};
    struct cb_fit_groups two = {.g = both, .n = 2};
    struct cb_fit_groups alone = {.g = both, .n = 1};
    ok(cb_fit_group_races(&two, &both[0], &series[0].pts[7]) &&
           !cb_fit_group_races(&alone, &both[0], &series[0].pts[7]),
       "race marked where another group of the link found the wait, not from its own fit alone");
  }
  cb_fit_groups_free(&gs);
  for (int i = 0; i < 3; i++)
    free(series[i].pts);
}

/* The bytes the waits stand for, by hand: ring allreduce at 4 ranks and
 * 1 MiB has 6 steps of 256 KiB; recursive halving of 1 MiB at 8 ranks
 * moves 512, 256 and 128 KiB. */
static void test_wait_bytes(void) {
  near(cb_model_wait_bytes(CB_MOP_ALLREDUCE, CB_SHAPE_RING, 4, 4, 1048576, 65536, 131072),
       6 * 131072.0, "ring allreduce, 4 ranks, 1 MiB, queue 128 KiB: 6 x 128 KiB");
  near(cb_model_wait_bytes(CB_MOP_REDUCESCATTER, CB_SHAPE_LOG, 8, 8, 1048576, 200000, 1e9),
       524288 + 262144, "recursive halving, 8 ranks, 1 MiB, rndv 200 KB: 512 + 256 KiB");
  near(cb_model_wait_bytes(CB_MOP_REDUCESCATTER,
                           cb_model_shape_of(CB_MOP_REDUCESCATTER, "recursive_doubling"), 8, 8,
                           1048576, 600000, 1e9),
       917504 + 786432,
       "recursive doubling reduce-scatter, 8 ranks, 1 MiB, rndv 600 KB: 7/8 and 6/8 MiB waited, "
       "not 4/8");
  struct cb_link l = {1, 0, 1e-9, 1e-9, 65536, 131072};
  near(cb_model_flat_time(CB_MOP_ALLGATHER, 4, 4, 1048576, &l), 0.75 * 1048576e-9 + 3 * 131072e-9,
       "flat allgather time carries the wait: 3 steps of 256 KiB, 128 KiB waited each");
}

/* Which rows the rendezvous race makes uncertain (cb_model_races): gamma
 * 10 ns/B from 64 KiB messages, up to 256 KiB of them. */
static void test_races(void) {
  struct cb_link l = {1, 20e-6, 40e-9, 10e-9, 65536, 262144}, plain = l;
  plain.gamma = 0;
  int rs = CB_MOP_REDUCESCATTER, ar = CB_MOP_ALLREDUCE;
  ok(cb_model_races(rs, CB_SHAPE_LOG, 8, 8, 1048576, &l),
     "recursive halving, 8 ranks, 1 MiB: first message 512 KiB >= rndv: race");
  ok(!cb_model_races(rs, CB_SHAPE_LOG, 8, 8, 65536, &l),
     "recursive halving, 8 ranks, 64 KiB: messages 32 KiB and less: none");
  ok(!cb_model_races(rs, CB_SHAPE_LOG, 8, 8, 1048576, &plain), "no rendezvous wait: none");
  ok(cb_model_races(rs, CB_SHAPE_DOUBLING, 8, 8, 262144, &l),
     "recursive doubling reducescatter, 8 ranks, 256 KiB: 224 KiB first: race");
  ok(!cb_model_races(ar, CB_SHAPE_RING, 8, 8, 8388608, &l), "ring, 8 ranks: two peers: none");
  ok(cb_model_races(ar, CB_SHAPE_RING, 2, 2, 1048576, &l) &&
         cb_model_races(ar, -1, 2, 2, 1048576, &l),
     "ring (or a name without a shape), 2 ranks, 1 MiB: one peer: race");
  ok(!cb_model_races(ar, CB_SHAPE_TREE, 2, 2, 1048576, &l) &&
         !cb_model_races(CB_MOP_BROADCAST, CB_SHAPE_RING, 2, 2, 1048576, &l),
     "tree and chain, 2 ranks: one way: none");
  /* predict: 1 rank per node on the waiting link, reducescatter 8 MiB */
  struct cb_system sys = {.ranks_per_node = 1, .tier = {l, l}};
  struct cb_prediction r = cb_model_predict(rs, CB_ALGO_RING, &sys, 8, 8388608),
                       t = cb_model_predict(rs, CB_ALGO_TREE, &sys, 8, 8388608),
                       h = cb_model_predict(rs, CB_ALGO_HIER, &sys, 8, 8388608),
                       a = cb_model_predict(ar, CB_ALGO_TREE, &sys, 8, 8388608),
                       r2 = cb_model_predict(ar, CB_ALGO_RING, &sys, 2, 8388608);
  ok(!r.race && t.race && h.race == (h.inter_algo == CB_ALGO_TREE) && !a.race && r2.race,
     "predict 8 GPUs: reducescatter's tree (halving) races, its ring not; allreduce's tree not; "
     "ring on 2 GPUs races");
  sys.tier[CB_TIER_INTER].gamma = sys.tier[CB_TIER_INTRA].gamma = 0;
  ok(!cb_model_predict(rs, CB_ALGO_TREE, &sys, 8, 8388608).race, "predict without a wait: none");
}

int main(void) {
  test_terms();
  test_pooled();
  test_shapes();
  test_reducescatter_linear();
  test_fit_per_algo();
  test_groups();
  test_fit();
  test_predict();
  test_step();
  test_step_overlap();
  test_step_recorded();
  test_groups_recorded();
  test_wait();
  test_wait_bytes();
  test_races();
  done_testing();
  return exit_status();
}
