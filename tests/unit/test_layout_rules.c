/* A parallel layout's NCCL choices: the pairs each communicator may try
 * (space.c: a communicator's view, pair codes), what --env-out writes
 * (layout_rules.c, checked through NCCL's own parse of the value) and
 * --plugin-out's per-communicator rules, read back by the plugin's reader. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tuner/layout_rules.h"
#include "tuner/nccl_choice.h"
#include "tuner/plugin/rules.c" /* the plugin's reader: what NCCL's process reads */
#include "tuner/space.h"

enum { TREE = 1, RING = 2, PAT = 7, LL = 1, LL128 = 2, SIMPLE = 3 };

static void test_codes(void) {
  int round = 1;
  for (int c = 1; c <= CB_NCCL_NPAIRS; c++) {
    int a, p;
    cb_nccl_pair_of(c, &a, &p);
    round &=
        cb_nccl_pair_code(a, p) == c && a >= 1 && a < CB_NCCL_ALGOS && p >= 1 && p < CB_NCCL_PROTOS;
    char want[64];
    snprintf(want, sizeof want, "%s/%s", cb_nccl_algo_env[a - 1], cb_nccl_proto_env[p - 1]);
    round &= !strcmp(cb_nccl_pair_name(c), want);
  }
  ok(round, "each of the %d codes is one (algorithm, protocol) and named after NCCL's values",
     CB_NCCL_NPAIRS);
  is_str(cb_nccl_pair_name(cb_nccl_pair_code(RING, LL128)), "Ring/LL128", "Ring/LL128");
  is_str(cb_nccl_pair_name(0), "library", "0 is NCCL's own choice");
  ok(cb_nccl_pair_name(CB_NCCL_NPAIRS + 1) == NULL && cb_nccl_pair_name(-1) == NULL,
     "out of range: no name");
}

static int has(const int *codes, int n, int code) {
  for (int i = 0; i < n; i++)
    if (codes[i] == code)
      return 1;
  return 0;
}

/* tp=2,dp=2 on two nodes of two ranks: tp's group inside a node, dp's
 * across the two. */
static void test_group_view(void) {
  int node_of_rank[4] = {0, 0, 1, 1}, tp[2] = {0, 1}, dp[2] = {0, 2};
  struct cb_nccl_view w = {.nranks = 4, .nnodes = 2, .ranks_per_node = 2, .cc = 90, .nvls = 1};
  struct cb_nccl_view t = cb_nccl_group_view(&w, node_of_rank, tp, 2),
                      d = cb_nccl_group_view(&w, node_of_rank, dp, 2),
                      s = cb_nccl_group_view(&w, NULL, tp, 2);
  ok(t.nranks == 2 && t.nnodes == 1 && t.ranks_per_node == 2 && t.nvls,
     "tp: 2 ranks on 1 node, NVLink SHARP kept (got %d ranks, %d nodes, %d a node)", t.nranks,
     t.nnodes, t.ranks_per_node);
  ok(d.nranks == 2 && d.nnodes == 2 && d.ranks_per_node == 1 && !d.nvls,
     "dp: 2 ranks on 2 nodes, one a node: no NVLink SHARP (got %d, %d, %d)", d.nranks, d.nnodes,
     d.ranks_per_node);
  ok(s.nnodes == 2 && s.ranks_per_node == 1, "--share-gpu (no node map): each rank a node");

  int codes[CB_NCCL_NPAIRS];
  w.nvls = 0;
  t = cb_nccl_group_view(&w, node_of_rank, tp, 2);
  d = cb_nccl_group_view(&w, node_of_rank, dp, 2);
  int n = cb_nccl_pair_codes("allreduce", &t, codes);
  ok(n == 6 && has(codes, n, cb_nccl_pair_code(TREE, LL)) &&
         has(codes, n, cb_nccl_pair_code(RING, SIMPLE)),
     "tp all-reduce: Tree and Ring with each protocol (%d pairs)", n);
  n = cb_nccl_pair_codes("allgather", &d, codes);
  ok(n == 4 && has(codes, n, cb_nccl_pair_code(PAT, SIMPLE)) &&
         !has(codes, n, cb_nccl_pair_code(TREE, SIMPLE)) &&
         !has(codes, n, cb_nccl_pair_code(PAT, LL)),
     "dp all-gather, one rank a node: Ring's three and PAT/Simple, no Tree (%d pairs)", n);
  n = cb_nccl_pair_codes("allgather", &t, codes);
  ok(n == 3 && !has(codes, n, cb_nccl_pair_code(PAT, SIMPLE)),
     "tp all-gather, two ranks a node: no PAT (%d pairs)", n);
  t.cc = 60;
  n = cb_nccl_pair_codes("allreduce", &t, codes);
  ok(n == 4 && !has(codes, n, cb_nccl_pair_code(RING, LL128)), "before Volta: no LL128 (%d)", n);
  int ascending = 1;
  for (int i = 1; i < n; i++)
    ascending &= codes[i] > codes[i - 1];
  ok(ascending, "codes in ascending order");
}

static struct cb_layout_choice choice(const char *comm, const char *coll, int a, int p, uint64_t lo,
                                      uint64_t hi, int nodes, int ranks) {
  return (struct cb_layout_choice){comm,  coll, a ? cb_nccl_pair_code(a, p) : 0, lo, hi,
                                   nodes, ranks};
}

/* What NCCL would enable for func from the value, by our copy of its parse. */
static int enabled(const char *var, const char *value, const char *func, int index) {
  unsigned char on[8];
  struct cb_error err = {0};
  int n = !strcmp(var, "NCCL_ALGO") ? CB_NCCL_NALGOS : CB_NCCL_NPROTOS;
  const char *const *names = n == CB_NCCL_NALGOS ? cb_nccl_algo_env : cb_nccl_proto_env;
  if (cb_nccl_parse_env(var, value, func, names, n, on, &err) != CB_OK)
    return -1;
  int count = 0;
  for (int i = 0; i < n; i++)
    count += on[i];
  return count == 1 && on[index - 1];
}

static void test_env(void) {
  char algo[512], proto[512];
  struct cb_layout_notes notes = {.n = 0};
  struct cb_layout_choice agree[] = {
      choice("tp", "allreduce", RING, SIMPLE, 1 << 20, 4 << 20, 1, 2),
      choice("dp", "allgather", RING, LL, 4096, 65536, 2, 2),
      choice("dp", "reducescatter", PAT, SIMPLE, 4096, 65536, 2, 2),
  };
  cb_layout_nccl_env(agree, 3, 22809, algo, sizeof algo, proto, sizeof proto, &notes);
  is_str(algo, "allreduce:Ring;allgather:Ring;reducescatter:PAT", "NCCL_ALGO per collective");
  is_str(proto, "allreduce:Simple;allgather:LL;reducescatter:Simple", "NCCL_PROTO per collective");
  ok(enabled("NCCL_ALGO", algo, "allgather", RING) == 1 &&
         enabled("NCCL_PROTO", proto, "allgather", LL) == 1 &&
         enabled("NCCL_PROTO", proto, "allreduce", SIMPLE) == 1,
     "NCCL's parse of the values leaves each collective its one pair");
  is_long(notes.n, 0, "nothing to say");

  struct cb_layout_choice differ[] = {
      choice("tp", "allreduce", RING, SIMPLE, 1 << 20, 4 << 20, 1, 2),
      choice("dp", "allreduce", 0, 0, 64 << 20, 64 << 20, 2, 2),
      choice("dp", "allgather", RING, LL128, 4096, 65536, 2, 2),
  };
  notes.n = 0;
  cb_layout_nccl_env(differ, 3, 22809, algo, sizeof algo, proto, sizeof proto, &notes);
  ok(!algo[0] && !proto[0], "nothing set: all-reduce differs, all-gather is LL128 ('%s' '%s')",
     algo, proto);
  ok(notes.n == 2 && strstr(notes.text[0], "allreduce not set") &&
         strstr(notes.text[0], "tp Ring/Simple, dp library") &&
         strstr(notes.text[1], "allgather not set") && strstr(notes.text[1], "LL128"),
     "notes: NCCL's own on dp is a difference; LL128 is not forced unchecked");

  notes.n = 0;
  cb_layout_nccl_env(agree, 1, 22303, algo, sizeof algo, proto, sizeof proto, &notes);
  ok(!algo[0] && notes.n == 1 && strstr(notes.text[0], "2.24"),
     "NCCL 2.23: the per-collective form is not written");
}

static void test_rules(void) {
  struct cb_plugin_rule r[8];
  struct cb_layout_notes notes = {.n = 0};
  /* tp=2,dp=2 on one node under --share-gpu would make dp 2 nodes: here
   * tp is 2 ranks on 1 node, dp 2 ranks on 2 nodes */
  struct cb_layout_choice ch[] = {
      choice("tp", "allreduce", RING, SIMPLE, 1 << 20, 4 << 20, 1, 2),
      choice("dp", "allreduce", TREE, SIMPLE, 64 << 20, 64 << 20, 2, 2),
      choice("dp", "allgather", RING, LL, 4096, 65536, 2, 2),
      choice("dp", "reducescatter", RING, LL128, 4096, 65536, 2, 2),
      choice("edp", "allgather", 0, 0, 4096, 65536, 2, 4),
  };
  int n = cb_layout_plugin_rules(ch, 5, r, 8, &notes);
  ok(n == 3 && r[0].nranks == 2 && r[0].nnodes == 1 && r[0].algo == RING - 1 &&
         r[0].proto == SIMPLE - 1 && r[0].min_bytes == 1 << 20 && r[0].max_bytes == 4 << 20 &&
         r[1].nnodes == 2 && r[1].algo == TREE - 1 && r[2].proto == LL - 1 &&
         isnan(r[2].margin_pct),
     "a rule per named pair at its communicator's nodes, ranks and sizes (%d rules)", n);
  ok(notes.n == 1 && strstr(notes.text[0], "reducescatter") && strstr(notes.text[0], "LL128"),
     "LL128 left out, said");

  char path[] = "/tmp/cb-layout-rules-XXXXXX";
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!ok(f != NULL, "temp file"))
    return;
  const char *comments[] = {"test"};
  cb_plugin_write_each(f, comments, 1, r, n);
  fclose(f);
  struct cbt_rules rules;
  char why[256] = "";
  if (ok(cbt_rules_load(path, &rules, why, sizeof why) == 0, "the plugin reads it: %s", why)) {
    /* ncclFunc_t: 2 allgather, 4 allreduce; NCCL_ALGO_RING 1, NCCL_PROTO_SIMPLE 2 */
    const struct cbt_rule *tp = cbt_rules_match(&rules, 4, 2 << 20, 2, 1, 1, 0),
                          *dp = cbt_rules_match(&rules, 4, 2 << 20, 2, 2, 1, 0),
                          *big = cbt_rules_match(&rules, 4, 64 << 20, 2, 2, 1, 0),
                          *ag = cbt_rules_match(&rules, 2, 8192, 2, 2, 1, 0),
                          *other = cbt_rules_match(&rules, 2, 8192, 4, 2, 1, 0);
    ok(tp && tp->algo == 1 && tp->proto == 2, "tp's all-reduce (2 ranks, 1 node): Ring/Simple");
    ok(!dp && big && big->algo == 0, "dp's all-reduce: Tree at its 64 MiB, no rule at 2 MiB");
    ok(ag && ag->algo == 1 && ag->proto == 0, "dp's all-gather: Ring/LL");
    ok(!other, "no rule for a communicator of another size");
    cbt_rules_free(&rules);
  }

  /* tp and dp both 2 ranks on 1 node, sizes overlapping: no rule can tell
   * them apart; NCCL's own on one of them counts */
  struct cb_layout_choice same[] = {
      choice("tp", "allreduce", RING, SIMPLE, 1 << 20, 4 << 20, 1, 2),
      choice("dp", "allreduce", 0, 0, 2 << 20, 8 << 20, 1, 2),
      choice("tp", "allgather", RING, SIMPLE, 1 << 20, 4 << 20, 1, 2),
      choice("dp", "allgather", TREE, SIMPLE, 8 << 20, 16 << 20, 1, 2),
  };
  notes.n = 0;
  n = cb_layout_plugin_rules(same, 4, r, 8, &notes);
  ok(n == 2 && !strcmp(r[0].coll, "allgather") && !strcmp(r[1].coll, "allgather"),
     "overlapping all-reduces: neither; all-gathers of disjoint sizes: both (%d rules)", n);
  ok(notes.n == 1 && strstr(notes.text[0], "tp allreduce (Ring/Simple) and dp allreduce "
                                           "(library)"),
     "the clash said once: %s", notes.n ? notes.text[0] : "");

  f = fopen(path, "w");
  cb_plugin_write_each(f, comments, 1, r, 0);
  fclose(f);
  ok(cbt_rules_load(path, &rules, why, sizeof why) == 0 && rules.n == 0,
     "no rules: a file the plugin reads, holding none: %s", why);
  cbt_rules_free(&rules);
  unlink(path);
}

int main(void) {
  test_codes();
  test_group_view();
  test_env();
  test_rules();
  done_testing();
  return exit_status();
}
