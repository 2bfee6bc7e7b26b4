/* The tuner's pure logic: DDP bucket assignment, the search space and its
 * pruning, the model shapes, env-file quoting, and the search strategy on
 * a synthetic noisy objective (coordinate descent against the grid). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/transformer.h"
#include "tap.h"
#include "tuner/bucket.h"
#include "tuner/envfile.h"
#include "tuner/nccl_choice.h"
#include "tuner/plugin.h"
#include "tuner/search.h"
#include "tuner/setting_cache.h"
#include "tuner/space.h"

static void test_buckets(void) {
  size_t elems[] = {100, 300, 50, 50, 400, 10};
  struct cb_bucket b[6];
  /* cap 400 floats = 1600 bytes: close once a bucket holds >= 1600 bytes */
  int n = cb_buckets_assign(elems, 6, 4, 1600, b);
  is_long(n, 3, "buckets: 100+300 reaches the cap, 50+50+400 crosses it, 10 is left");
  ok(b[0].first == 0 && b[0].ntensors == 2 && b[0].offset == 0 && b[0].elems == 400,
     "bucket 0 is tensors 0-1, elements 0..399");
  ok(b[1].first == 2 && b[1].ntensors == 3 && b[1].offset == 400 && b[1].elems == 500,
     "bucket 1 is tensors 2-4 from element 400: the tensor that crosses the cap is not split");
  ok(b[2].first == 5 && b[2].ntensors == 1 && b[2].offset == 900, "bucket 2 is tensor 5");
  n = cb_buckets_assign(elems, 6, 4, 1, b);
  is_long(n, 6, "a cap below every tensor gives one bucket per tensor");
  n = cb_buckets_assign(elems, 6, 4, 1 << 30, b);
  ok(n == 1 && b[0].elems == 910, "a cap above the total gives one bucket of everything");
  size_t total = 0;
  n = cb_buckets_assign(elems, 6, 4, 1000, b);
  for (int i = 0; i < n; i++) {
    ok(b[i].offset == total, "bucket %d starts where the previous ended", i);
    total += b[i].elems;
  }
  is_long((long)total, 910, "buckets cover every element once");
}

static void test_space(void) {
  struct cb_space s;
  cb_space_defaults(&s);
  int full = cb_space_grid(&s, NULL);
  is_long(full, 6 * 9 + 4 * 9, "default grid: segment sizes only with algorithm 5 (pruned)");
  struct cb_tune_config *g = malloc((size_t)full * sizeof *g);
  cb_space_grid(&s, g);
  int bad = 0;
  for (int i = 0; i < full; i++)
    bad += !cb_config_valid(&s, &g[i]);
  is_long(bad, 0, "every grid point is valid");
  free(g);
  cb_space_cap_buckets(&s, 3u << 20);
  ok(s.nbuckets == 3 && s.buckets[0] == 1u << 20 && s.buckets[1] == 2u << 20 &&
         s.buckets[2] == 3u << 20,
     "buckets capped at 3 MiB of gradients: 1M 2M 3M, distinct");
  struct cb_tune_config c = {4, 65536, 1 << 20, 0, 0};
  ok(!cb_config_valid(&s, &c), "a segment size with algorithm 4 is pruned");
  struct cb_error err = {0};
  ok(cb_space_parse_algorithms("0,7", &s, &err) == CB_USAGE && strstr(err.msg, "'7'"),
     "algorithm 7 rejected, named: %s", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_space_parse_algorithms("4,x", &s, &err) == CB_USAGE && strstr(err.msg, "'x'"),
     "algorithm x rejected, named");
  ok(cb_space_parse_algorithms("4,5,4", &(struct cb_space){0}, &err) == CB_OK, "0-6 accepted");
  s.nalgorithms = 0;
  is_long(cb_space_grid(&s, NULL), 3, "no coll/tuned (MPICH): only the buckets");
}

static void test_model(void) {
  struct cb_model m;
  struct cb_error err = {0};
  ok(cb_model_preset("gpt2-124m", &m, &err) == CB_OK, "gpt2-124m preset");
  /* 12 layers x (12 h^2 + 13 h) = 85 M parameters: GPT-2's layers without
   * its embeddings */
  is_long((long)cb_model_params(&m), 12L * (12 * 768 * 768 + 13 * 768), "gpt2-124m layer params");
  ok(cb_model_preset("gpt5", &m, &err) == CB_USAGE && strstr(err.msg, "gpt5"), "unknown preset");
  cb_model_preset("tiny", &m, &(struct cb_error){0});
  memset(&err, 0, sizeof err);
  ok(cb_model_config_parse("seq=128,batch=2", &m, &err) == CB_OK && m.seq == 128 && m.batch == 2 &&
         m.hidden == 128,
     "--workload-config overrides only the keys given");
  memset(&err, 0, sizeof err);
  ok(cb_model_config_parse("hidden=100,heads=3", &m, &err) == CB_USAGE &&
         strstr(err.msg, "hidden=100"),
     "hidden not a multiple of heads: %s", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_model_config_parse("depth=3", &m, &err) == CB_USAGE && strstr(err.msg, "depth"),
     "unknown key named");
  memset(&err, 0, sizeof err);
  ok(cb_model_config_parse("dtype=int4", &m, &err) == CB_USAGE && strstr(err.msg, "int4"),
     "unknown dtype named");
  memset(&err, 0, sizeof err);
  ok(cb_model_config_parse("layers=0", &m, &err) == CB_USAGE, "layers=0 rejected");
}

static void test_envfile(void) {
  ok(cb_env_name_ok("OMPI_MCA_coll_tuned_allreduce_algorithm"), "MCA name ok");
  ok(!cb_env_name_ok("1X") && !cb_env_name_ok("A-B") && !cb_env_name_ok("A;B") &&
         !cb_env_name_ok(""),
     "bad names refused");
  ok(cb_env_value_ok("65536") && cb_env_value_ok("self,vader") &&
         cb_env_value_ok("^NVLS;allreduce:Ring"),
     "plain values ok, and NCCL's '^' and ';' (literal inside single quotes)");
  const char *bad[] = {"a'b", "$(rm -rf x)", "`id`", "a b", "x\ny", "a|b", "${HOME}", "\\"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ok(!cb_env_value_ok(bad[i]), "value %zu refused", i);
  char buf[512] = "";
  FILE *f = fmemopen(buf, sizeof buf, "w");
  const char *comments[] = {"host evil\nexport X=1"};
  struct cb_env_var vars[] = {{"A", "1"}, {"B", "2"}};
  struct cb_error err = {0};
  ok(cb_env_write(f, comments, 1, vars, 2, &err) == CB_OK, "env file written");
  fclose(f);
  is_str(buf, "# host evil?export X=1\nexport A='1'\nexport B='2'\n",
         "a newline in a comment cannot start a command; values single-quoted");
  memset(buf, 0, sizeof buf);
  f = fmemopen(buf, sizeof buf, "w");
  struct cb_env_var evil[] = {{"A", "1"}, {"B", "x';touch y;'"}};
  ok(cb_env_write(f, NULL, 0, evil, 2, &err) == CB_USAGE && strstr(err.msg, "B"),
     "a value with a quote is refused before anything is written");
  fclose(f);
  is_long((long)strlen(buf), 0, "nothing written");
}

/* A synthetic step time: algorithms differ, the bucket has a best size,
 * segment size matters for algorithm 5 only; Gaussian-ish noise. */
struct synth {
  double sigma;
  unsigned seed;
  int calls;
};

static double noise(struct synth *s) {
  double sum = 0;
  for (int i = 0; i < 12; i++) { /* Irwin-Hall: sum of 12 uniforms - 6 ~ N(0,1) */
    s->seed = s->seed * 1103515245u + 12345u;
    sum += (double)(s->seed >> 8) / 16777216.0;
  }
  return (sum - 6.0) * s->sigma;
}

static double truth(const struct cb_tune_config *c) {
  static const double alg[CB_NALGORITHMS] = {12.0, 15.0, 13.0, 11.5, 11.0, 10.6, 11.2};
  double t = alg[c->algorithm];
  if (c->algorithm == CB_SEGMENTED_RING)
    t += fabs(log2((double)c->segsize) - 16.0) * 0.2;    /* best at 64K */
  t += fabs(log2((double)c->bucket_bytes) - 23.0) * 0.3; /* best at 8 MiB */
  return t * 1e-3;
}

static int synth_measure(void *user, const char *phase, const struct cb_tune_config *cfgs, int n,
                         struct cb_score *scores, struct cb_error *err) {
  (void)phase, (void)err;
  struct synth *s = user;
  for (int i = 0; i < n; i++) {
    scores[i].median = truth(&cfgs[i]) + noise(s) * 1e-3;
    scores[i].ci95 = 2 * s->sigma * 1e-3;
  }
  s->calls++;
  return CB_OK;
}

static int flat_measure(void *user, const char *phase, const struct cb_tune_config *cfgs, int n,
                        struct cb_score *scores, struct cb_error *err) {
  (void)phase, (void)err, (void)cfgs;
  struct synth *s = user;
  for (int i = 0; i < n; i++)
    scores[i] = (struct cb_score){10e-3 + noise(s) * 1e-3, 2 * s->sigma * 1e-3};
  return CB_OK;
}

static void test_search(void) {
  struct cb_space sp;
  cb_space_defaults(&sp);
  struct cb_tune_config base = {0, 0, 25u << 20, 0, 0}, *grid = malloc(200 * sizeof *grid);
  int n = cb_space_grid(&sp, grid);
  double best = 1e9;
  for (int i = 0; i < n; i++)
    best = fmin(best, truth(&grid[i]));
  free(grid);
  int within = 0, cheap = 0, runs = 20;
  for (int r = 0; r < runs; r++) {
    struct synth s = {0.05, 1234u + (unsigned)r, 0};
    struct cb_search_result res;
    struct cb_error err = {0};
    cb_search_run(&sp, &base, 0, synth_measure, &s, &res, &err);
    within += truth(&res.best) - best <= 4 * 0.05e-3 * 2;
    cheap += res.evaluations <= 0.4 * res.grid;
  }
  is_long(within, runs, "coordinate descent ends within the noise of the true best (%d runs)",
          runs);
  is_long(cheap, runs, "and evaluates at most 40%% of the grid");

  struct synth s = {0.05, 99u, 0};
  struct cb_search_result res;
  struct cb_error err = {0};
  cb_search_run(&sp, &base, 1, synth_measure, &s, &res, &err);
  ok(res.evaluations == res.grid + 1 && s.calls == 1,
     "exhaustive: the grid plus the off-grid baseline, in one interleaved batch");

  /* Pure noise: every configuration equally fast; moving away from the
   * baseline is a false alarm. Each scan compares several candidates, so
   * a few false alarms over many runs are expected, not a majority. */
  struct synth flat = {0.5, 7u, 0};
  int stayed = 0;
  for (int r = 0; r < 40; r++) {
    flat.seed = 100u + (unsigned)r;
    cb_search_run(&sp, &base, 0, flat_measure, &flat, &res, &err);
    stayed += cb_config_equal(&res.best, &base);
  }
  ok(stayed >= 36, "on pure noise the baseline stays in most runs (%d of 40)", stayed);
  struct cb_score a = {1.0, 0.1}, b = {1.2, 0.1}, c = {1.1, 0.1};
  ok(cb_search_better(&a, &b) && !cb_search_better(&a, &c) && !cb_search_better(&b, &a),
     "better only beyond the combined noise");
}

static int count_pairs(const unsigned char runs[CB_NCCL_ALGOS][CB_NCCL_PROTOS]) {
  int n = 0;
  for (int a = 0; a < CB_NCCL_ALGOS; a++)
    for (int p = 0; p < CB_NCCL_PROTOS; p++)
      n += runs[a][p];
  return n;
}

static void test_nccl_space(void) {
  unsigned char runs[CB_NCCL_ALGOS][CB_NCCL_PROTOS];
  /* two ranks sharing one H100 (--share-gpu): two "nodes" of one rank */
  struct cb_nccl_view v = {.nranks = 2, .nnodes = 2, .ranks_per_node = 1, .cc = 90};
  is_long(cb_nccl_prune("allreduce", &v, runs), 6, "allreduce, 2 nodes, sm_90: Tree and Ring x 3");
  ok(!runs[7][3] && !runs[5][3], "PAT and NVLS pruned for allreduce without NVLink SHARP");
  ok(runs[0][0] && runs[1][0] && runs[0][2], "NCCL's own choice, and one of the two forced, stay");
  is_long(count_pairs(runs), 12, "12 pairs with NCCL's choice for either or both");
  is_long(cb_nccl_prune("allgather", &v, runs), 4, "allgather: Ring x 3 and PAT Simple");
  ok(runs[7][3] && !runs[7][1], "PAT only with Simple");
  is_long(cb_nccl_prune("broadcast", &v, runs), 3, "broadcast: Ring only");
  v.ranks_per_node = 2;
  is_long(cb_nccl_prune("allgather", &v, runs), 3, "two ranks per node: no PAT");
  /* LL128 from compute capability 7.0 on, as NCCL 2.27 and later enable it
   * (subject to paths): B300 (10.3) and RTX PRO 6000 (12.0) too */
  v.cc = 60;
  is_long(cb_nccl_prune("allreduce", &v, runs), 4, "sm_60: LL128 pruned");
  ok(!runs[1][2] && !runs[2][2] && !runs[0][2], "sm_60: no pair with LL128, nor LL128 alone");
  v.cc = 103;
  is_long(cb_nccl_prune("allreduce", &v, runs), 6, "sm_103 (B300): LL128 tried");
  ok(runs[1][2] && runs[2][2], "sm_103: Tree/LL128 and Ring/LL128");
  v.cc = 120;
  is_long(cb_nccl_prune("allreduce", &v, runs), 6, "sm_120: LL128 tried");
  v.cc = 86;
  is_long(cb_nccl_prune("allreduce", &v, runs), 6, "sm_86: LL128 tried (NCCL 2.27 and later)");
  v.cc = 0;
  is_long(cb_nccl_prune("allreduce", &v, runs), 6, "unknown capability: LL128 tried");
  v.cc = 90, v.nvls = 1, v.nnodes = 1;
  cb_nccl_prune("allreduce", &v, runs);
  ok(runs[5][3] && !runs[5][1] && !runs[6][3], "NVLS Simple on one node; NVLSTree needs several");
  v.nranks = 1;
  is_long(cb_nccl_prune("allreduce", &v, runs), 0, "one rank: nothing to choose");
  is_long(count_pairs(runs), 1, "but NCCL's own choice");

  struct cb_space sp;
  cb_space_defaults_nccl(&sp);
  v = (struct cb_nccl_view){.nranks = 2, .nnodes = 2, .ranks_per_node = 1, .cc = 90};
  cb_nccl_prune("allreduce", &v, sp.pair_ok);
  int n = cb_space_grid(&sp, NULL);
  is_long(n, 12 * 9, "NCCL grid: 12 pairs x 9 buckets");
  struct cb_tune_config *g = malloc((size_t)n * sizeof *g);
  cb_space_grid(&sp, g);
  int bad = 0;
  for (int i = 0; i < n; i++)
    bad += !cb_config_valid(&sp, &g[i]) || g[i].segsize != 0;
  is_long(bad, 0, "every NCCL grid point runs, none has a segment size");
  free(g);
  struct cb_tune_config pat = {7, 0, 1 << 20, 3, 0};
  ok(!cb_config_valid(&sp, &pat), "PAT all-reduce is not valid");
  char buf[128];
  struct cb_tune_config ring = {2, 0, 4 << 20, 3, 8};
  is_str(cb_config_format(CB_SPACE_NCCL, &ring, buf, sizeof buf),
         "algo Ring proto Simple ctas 8 bucket 4 MiB",
         "an NCCL configuration reads as NCCL's names");
  struct cb_error err = {0};
  ok(cb_space_parse_algorithms("ring,TREE,default", &sp, &err) == CB_OK && sp.nalgorithms == 3 &&
         sp.algorithms[0] == 2 && sp.algorithms[1] == 1 && sp.algorithms[2] == 0,
     "NCCL algorithm names, any case, and default");
  ok(cb_space_parse_protocols("ll,ll256", &sp, &err) == CB_USAGE && strstr(err.msg, "'ll256'"),
     "an unknown protocol named: %s", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_space_parse_ctas("4,65", &sp, &err) == CB_USAGE && strstr(err.msg, "'65'"),
     "a CTA count out of range named");
}

/* The GPU space on a synthetic objective: Ring Simple best at large
 * buckets, the protocol matters more than the algorithm. */
static double nccl_truth(const struct cb_tune_config *c) {
  static const double alg[CB_NCCL_ALGOS] = {10.5, 11.0, 10.2};
  static const double proto[CB_NCCL_PROTOS] = {0.4, 1.5, 0.8, 0.0};
  double t = alg[c->algorithm] + proto[c->protocol];
  return (t + fabs(log2((double)c->bucket_bytes) - 24.0) * 0.3) * 1e-3;
}

static int nccl_measure(void *user, const char *phase, const struct cb_tune_config *cfgs, int n,
                        struct cb_score *scores, struct cb_error *err) {
  (void)phase, (void)err;
  struct synth *s = user;
  for (int i = 0; i < n; i++)
    scores[i] = (struct cb_score){nccl_truth(&cfgs[i]) + noise(s) * 1e-3, 2 * s->sigma * 1e-3};
  return CB_OK;
}

static void test_nccl_search(void) {
  struct cb_space sp;
  cb_space_defaults_nccl(&sp);
  struct cb_nccl_view v = {.nranks = 4, .nnodes = 4, .ranks_per_node = 1, .cc = 90};
  cb_nccl_prune("allreduce", &v, sp.pair_ok);
  struct cb_tune_config base = {0, 0, 25u << 20, 0, 0};
  int within = 0, cheap = 0, runs = 20;
  for (int r = 0; r < runs; r++) {
    struct synth s = {0.05, 777u + (unsigned)r, 0};
    struct cb_search_result res;
    struct cb_error err = {0};
    cb_search_run(&sp, &base, 0, nccl_measure, &s, &res, &err);
    within += nccl_truth(&res.best) - 10.2e-3 <= 4 * 0.05e-3 * 2;
    cheap += res.evaluations <= 0.4 * res.grid;
  }
  is_long(within, runs, "NCCL space: the search ends within the noise of Ring Simple 16 MiB");
  is_long(cheap, runs, "with at most 40%% of the grid");
}

/* NCCL_ALGO / NCCL_PROTO as NCCL 2.28 parses them (tuning.cc parseList). */
static void test_nccl_parse(void) {
  enum { A = CB_NCCL_NALGOS };
  unsigned char on[A];
  struct cb_error err = {0};
  int idx = -1;
#define ALGO(v, f) cb_nccl_parse_env("NCCL_ALGO", v, f, cb_nccl_algo_env, A, on, &err)
#define LAUNCH(v) cb_nccl_launch_index("NCCL_ALGO", v, cb_nccl_algo_env, A, &idx, &err)
  ok(ALGO(NULL, "allreduce") == CB_OK && on[0] && on[1] && on[6], "unset: every algorithm");
  ok(LAUNCH(NULL) == CB_OK && idx == 0, "unset: launch setting is NCCL's choice");
  ok(LAUNCH("Tree") == CB_OK && idx == 1, "a bare name: that algorithm (Tree = 1)");
  ok(ALGO("^NVLS", "allreduce") == CB_OK && on[0] && on[1] && !on[4] && on[6],
     "^NVLS: every algorithm but NVLS");
  ok(LAUNCH("^NVLS") == CB_OK && idx == 0, "^NVLS: NCCL's choice (kept while measuring)");
  ok(LAUNCH("ring,tree") == CB_OK && idx == 0, "a list of two: NCCL's choice between them");
  ok(ALGO("allreduce:tree;allgather:ring", "allreduce") == CB_OK && on[0] && !on[1],
     "per-collective form: allreduce Tree only");
  ok(ALGO("allreduce:tree;allgather:ring", "allgather") == CB_OK && !on[0] && on[1],
     "per-collective form: allgather Ring only");
  ok(ALGO("allreduce:tree;allgather:ring", "broadcast") == CB_OK && on[0] && on[1] && on[6],
     "per-collective form: broadcast untouched");
  ok(LAUNCH("ALLREDUCE:TREE;allgather:ring") == CB_OK && idx == 1,
     "any case; launch setting for all-reduce is Tree");
  ok(ALGO("ring;allreduce:^ring", "allreduce") == CB_OK && !on[1] && on[0],
     "a later entry replaces all-reduce's list, '^' inside an entry");
  ok(ALGO("ring;allreduce:^ring", "reduce") == CB_OK && on[1] && !on[0],
     "the first, prefix-less entry applies to the others");
  ok(LAUNCH("allgather:ring") == CB_OK && idx == 0, "only another collective named: NCCL's");
  ok(LAUNCH("ring,foo") == CB_USAGE && strstr(err.msg, "'foo'") && strstr(err.msg, "NCCL_ALGO"),
     "an unknown name is refused, named: %s", err.msg);
  memset(&err, 0, sizeof err);
  ok(LAUNCH("tree;ring") == CB_USAGE && strstr(err.msg, "prefix"),
     "an entry after the first without a prefix is refused (as NCCL does): %s", err.msg);
  memset(&err, 0, sizeof err);
  ok(LAUNCH("allreduc:tree") == CB_USAGE && strstr(err.msg, "'allreduc'"),
     "an unknown function is refused, named");
  memset(&err, 0, sizeof err);
  ok(LAUNCH("^tree,ring,collnetdirect,collnetchain,nvls,nvlstree,pat") == CB_USAGE &&
         strstr(err.msg, "nothing"),
     "a value leaving all-reduce nothing is refused: %s", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_nccl_launch_index("NCCL_PROTO", "^LL128", cb_nccl_proto_env, CB_NCCL_NPROTOS, &idx, &err) ==
             CB_OK &&
         idx == 0,
     "NCCL_PROTO=^LL128: NCCL's choice of LL and Simple");
  ok(cb_nccl_launch_index("NCCL_PROTO", "allreduce:simple", cb_nccl_proto_env, CB_NCCL_NPROTOS,
                          &idx, &err) == CB_OK &&
         idx == 3,
     "NCCL_PROTO=allreduce:simple: Simple (3)");
#undef ALGO
#undef LAUNCH
  /* what each configuration is measured with */
  ok(cb_nccl_measure_value("^NVLS", 0, 0, cb_nccl_algo_env) &&
         !strcmp(cb_nccl_measure_value("^NVLS", 0, 0, cb_nccl_algo_env), "^NVLS"),
     "NCCL's choice under a launch '^NVLS' is measured with '^NVLS' kept, not unset");
  ok(cb_nccl_measure_value("Tree", 1, 0, cb_nccl_algo_env) == NULL,
     "NCCL's choice when the launch forced Tree: unset");
  is_str(cb_nccl_measure_value("^NVLS", 0, 2, cb_nccl_algo_env), "Ring",
         "a forced algorithm: its bare name (only all-reduce runs on that communicator)");
  is_str(cb_nccl_measure_value(NULL, 0, 0, cb_nccl_algo_env) ? "set" : "unset", "unset",
         "no launch value, NCCL's choice: unset");
}

static const char *var(const struct cb_nccl_env_out *o, const char *name) {
  for (int i = 0; i < o->nvars; i++)
    if (!strcmp(o->vars[i].name, name))
      return o->vars[i].value;
  return NULL;
}

static int notes_have(const struct cb_nccl_env_out *o, const char *text) {
  for (int i = 0; i < o->nnotes; i++)
    if (strstr(o->notes[i], text))
      return 1;
  return 0;
}

/* --env-out for NCCL: only all-reduce is tuned, so only all-reduce is named. */
static void test_nccl_envfile(void) {
  struct cb_nccl_env_out o;
  struct cb_nccl_env_in in = {.version = 22809, .algorithm = 1, .protocol = 3};
  cb_nccl_env_vars(&in, &o);
  is_long(o.nvars, 2, "NCCL 2.28, Tree/Simple tuned: NCCL_ALGO and NCCL_PROTO");
  is_str(var(&o, "NCCL_ALGO"), "allreduce:Tree", "NCCL_ALGO names all-reduce only");
  is_str(var(&o, "NCCL_PROTO"), "allreduce:Simple", "NCCL_PROTO names all-reduce only");
  ok(notes_have(&o, "before 2.24") && notes_have(&o, "NCCL_ALGO='Ring'"),
     "a note says what to write before NCCL 2.24");
  unsigned char on[CB_NCCL_NALGOS];
  struct cb_error err = {0};
  ok(cb_nccl_parse_env("NCCL_ALGO", var(&o, "NCCL_ALGO"), "broadcast", cb_nccl_algo_env,
                       CB_NCCL_NALGOS, on, &err) == CB_OK &&
         on[1],
     "read back as NCCL does: broadcast may still run Ring (a bare Tree broke it)");
  ok(cb_nccl_parse_env("NCCL_ALGO", var(&o, "NCCL_ALGO"), "allgather", cb_nccl_algo_env,
                       CB_NCCL_NALGOS, on, &err) == CB_OK &&
         on[1] && on[6],
     "and all-gather keeps Ring and PAT (Tree cannot run it)");
  /* the whole file's NCCL lines, as written */
  char buf[512] = "";
  FILE *f = fmemopen(buf, sizeof buf, "w");
  ok(cb_env_write(f, NULL, 0, o.vars, o.nvars, &err) == CB_OK, "written");
  fclose(f);
  is_str(buf, "export NCCL_ALGO='allreduce:Tree'\nexport NCCL_PROTO='allreduce:Simple'\n",
         "the env file for an all-reduce-only tuning");

  in.protocol = 2; /* LL128 */
  cb_nccl_env_vars(&in, &o);
  ok(var(&o, "NCCL_PROTO") == NULL && notes_have(&o, "LL128") && notes_have(&o, "corrupt"),
     "LL128 not proven on this run: not written, a note says why");
  in.ll128_proven = 1;
  cb_nccl_env_vars(&in, &o);
  is_str(var(&o, "NCCL_PROTO"), "allreduce:LL128", "LL128 proven (measured and checked): written");

  in = (struct cb_nccl_env_in){.version = 22304, .algorithm = 1, .protocol = 0};
  cb_nccl_env_vars(&in, &o);
  ok(o.nvars == 1 && !strcmp(var(&o, "NCCL_ALGO"), "Tree") && notes_have(&o, "2.23") &&
         notes_have(&o, "allreduce:NAME"),
     "NCCL 2.23 (no per-collective form): the bare name and a note");

  in = (struct cb_nccl_env_in){.version = 22809, .algorithm = 2, .launch_algo = "^NVLS"};
  cb_nccl_env_vars(&in, &o);
  is_str(var(&o, "NCCL_ALGO"), "^NVLS;allreduce:Ring",
         "the user's launch value is kept for the other collectives");
  ok(cb_env_value_ok(var(&o, "NCCL_ALGO")), "and passes the env file's quoting check");
  in.algorithm = 0;
  cb_nccl_env_vars(&in, &o);
  is_str(var(&o, "NCCL_ALGO"), "^NVLS", "NCCL's choice under '^NVLS' won: '^NVLS' as measured");
  in = (struct cb_nccl_env_in){.version = 22809, .launch_algo = "Tree", .launch_algo_index = 1};
  cb_nccl_env_vars(&in, &o);
  ok(o.nvars == 0 && notes_have(&o, "unset NCCL_ALGO"),
     "NCCL's free choice beat a forced launch value: nothing forced, a note says unset it");
  in = (struct cb_nccl_env_in){.version = 22809};
  cb_nccl_env_vars(&in, &o);
  ok(o.nvars == 0 && o.nnotes == 0, "NCCL's choice, no launch value: nothing written");
}

static void test_nccl_ctas_env(void) {
  static const char *const vars[] = {"NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_MIN_NCHANNELS",
                                     "NCCL_MAX_NCHANNELS"};
  for (int i = 0; i < 4; i++)
    unsetenv(vars[i]);
  ok(cb_nccl_cta_env_set() == NULL, "none set: --tune-ctas may run");
  for (int i = 0; i < 4; i++) {
    setenv(vars[i], "4", 1);
    const char *got = cb_nccl_cta_env_set();
    ok(got && !strcmp(got, vars[i]), "%s set: named", vars[i]);
    unsetenv(vars[i]);
  }
  setenv("NCCL_MAX_CTAS", "", 1);
  ok(cb_nccl_cta_env_set() == NULL, "an empty value is ignored, as NCCL does");
  unsetenv("NCCL_MAX_CTAS");
}

static void test_nccl_fail(void) {
  struct cb_error err = {0};
  cb_nccl_fail(&err, "rank 1 (h)", "ncclCommInitRankConfig", 5, "invalid usage",
               "NCCL_ALGO set to 'x'\n");
  is_str(err.msg,
         "rank 1 (h): --tune nccl: ncclCommInitRankConfig failed: invalid usage (5): "
         "NCCL_ALGO set to 'x'",
         "NCCL's code, its text and its last error, one line");
  ok(err.status == CB_RUNTIME, "a runtime error (exit 3)");
  memset(&err, 0, sizeof err);
  cb_nccl_fail(&err, "rank 0 (h)", "ncclAllReduce", 3, "internal error", "");
  is_str(err.msg, "rank 0 (h): --tune nccl: ncclAllReduce failed: internal error (3)",
         "no last error: nothing appended");
  /* issue 75 finding 8: NCCL's refusal at the probe (src/enqueue.cc:1848-1860
   * at v2.28.9-1) against a real failure */
  static const char refusal[] =
      "Error : no algorithm/protocol available for function AllReduce with datatype ncclFloat32.";
  ok(cb_nccl_pair_refused(3, refusal) && cb_nccl_pair_refused(5, refusal),
     "a pair NCCL does not run: internal error (NCCL_ALGO unset at the probe) or invalid usage, "
     "with NCCL's words");
  ok(!cb_nccl_pair_refused(2, "socket error: Connection refused") &&
         !cb_nccl_pair_refused(1, "Cuda failure 'out of memory'") &&
         !cb_nccl_pair_refused(3, "proxy: too many open files") && !cb_nccl_pair_refused(6, NULL) &&
         !cb_nccl_pair_refused(2, refusal),
     "a system, CUDA, remote or other internal error is a failure, not a refusal");
}

/* The communicator table with a stand-in for open/close. */
struct fake_comm {
  int opened, closed, fail_at;
  char slots[256];
};

static int fake_open(void *ctx, const struct cb_tune_config *cfg, void **setting,
                     struct cb_error *err) {
  struct fake_comm *f = ctx;
  (void)cfg;
  if (f->opened == f->fail_at)
    return cb_fail(err, CB_RUNTIME, "stand-in open failed");
  *setting = &f->slots[f->opened++];
  return CB_OK;
}

static void fake_close(void *ctx, void *setting) {
  struct fake_comm *f = ctx;
  (void)setting;
  f->closed++;
}

static void test_setting_cache(void) {
  struct cb_space sp;
  cb_space_defaults_nccl(&sp);
  struct cb_nccl_view v = {.nranks = 2, .nnodes = 2, .ranks_per_node = 1, .cc = 90};
  cb_nccl_prune("allreduce", &v, sp.pair_ok);
  int n = cb_space_grid(&sp, NULL);
  struct cb_tune_config *g = malloc((size_t)n * sizeof *g);
  void **set = calloc((size_t)n, sizeof *set);
  cb_space_grid(&sp, g);
  struct fake_comm f = {.fail_at = -1};
  struct cb_setting_cache c;
  cb_setting_cache_init(&c, fake_open, fake_close, &f);
  struct cb_error err = {0};
  int rc = CB_OK;
  for (int i = 0; i < n; i++)
    rc |= cb_setting_acquire(&c, &g[i], &set[i], &err);
  ok(rc == CB_OK && n == 108, "the exhaustive batch of 108 configurations acquired");
  is_long(f.opened, 12, "12 communicators opened, one per (algorithm, protocol), not 108");
  is_long(c.peak, 12, "at most 12 alive at once");
  int shared = 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      struct cb_tune_config a = g[i], b = g[j];
      a.bucket_bytes = b.bucket_bytes = 0;
      shared &= (set[i] == set[j]) == cb_config_equal(&a, &b);
    }
  ok(shared, "configurations share a communicator exactly when they differ only in bucket");
  for (int i = 0; i < n - 1; i++)
    cb_setting_release(&c, set[i]);
  is_long(f.closed, 11, "released: each closed when its last configuration goes");
  cb_setting_release(&c, set[n - 1]);
  is_long(f.closed, 12, "the last release closes the last one");
  struct cb_tune_config x = {2, 0, 1 << 20, 3, 4}, y = {2, 0, 1 << 20, 3, 8};
  void *sx, *sy;
  cb_setting_acquire(&c, &x, &sx, &err);
  cb_setting_acquire(&c, &y, &sy, &err);
  ok(sx != sy && f.opened == 14, "another CTA count is another communicator");
  f.fail_at = f.opened;
  struct cb_tune_config z = {1, 0, 1 << 20, 3, 0};
  void *sz = (void *)1;
  ok(cb_setting_acquire(&c, &z, &sz, &err) == CB_RUNTIME && sz == NULL && c.n == 2,
     "a failed open is reported and nothing is kept");
  cb_setting_cache_free(&c);
  is_long(f.closed, 14, "freeing the table closes what is still open");
  free(g), free(set);
}

int main(void) {
  test_nccl_space();
  test_nccl_search();
  test_buckets();
  test_space();
  test_model();
  test_envfile();
  test_search();
  test_nccl_parse();
  test_nccl_envfile();
  test_nccl_ctas_env();
  test_nccl_fail();
  test_setting_cache();
  done_testing();
  return exit_status();
}
