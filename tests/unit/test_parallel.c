/* --parallel's layouts (runtime/parallel.c): parsing and its refusals,
 * Megatron's placement counted by hand, and the fit against a job's nodes. */
#include <string.h>

#include "runtime/parallel.h"
#include "tap.h"

static void test_parse(void) {
  struct cb_parallel p;
  struct cb_error err = {0};
  ok(cb_parallel_parse("tp=2,dp=2", &p, &err) == CB_OK && p.size[CB_DIM_TP] == 2 &&
         p.size[CB_DIM_DP] == 2 && p.size[CB_DIM_EP] == 1 && p.size[CB_DIM_PP] == 1,
     "tp=2,dp=2 parses, ep and pp 1");
  char text[48];
  cb_parallel_parse("pp=2,dp=1,ep=2,tp=2", &p, &err);
  cb_parallel_format(&p, text, sizeof text);
  is_str(text, "tp=2,ep=2,pp=2", "formatted innermost first, sizes of 1 left out");
  cb_parallel_parse("dp=1", &p, &err);
  cb_parallel_format(&p, text, sizeof text);
  is_str(text, "dp=1", "all ones: dp=1");
  struct {
    const char *text, *says;
  } bad[] = {
      {"tp=2,xp=2", "'xp' is not DIM=N"},
      {"tp", "'tp' is not DIM=N"},
      {"tp=0", "tp=0 is not a group size"},
      {"tp=-2", "tp=-2 is not a group size"},
      {"tp=2x", "tp=2x is not a group size"},
      {"tp=2,tp=4", "tp is given twice"},
      {"", "empty"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct cb_error e = {0};
    ok(cb_parallel_parse(bad[i].text, &p, &e) == CB_USAGE && strstr(e.msg, bad[i].says),
       "'%s' refused: %s", bad[i].text, e.msg);
  }
}

/* tp=2,ep=1,dp=2,pp=2 on 8 ranks: rank = tp + 2 * (dp + 2 * pp) */
static void test_placement(void) {
  struct cb_parallel p;
  struct cb_error err = {0};
  cb_parallel_parse("tp=2,dp=2,pp=2", &p, &err);
  /* rank 5 = tp 1, dp 0, pp 1 */
  ok(cb_parallel_index(&p, 5, CB_DIM_TP) == 1 && cb_parallel_index(&p, 5, CB_DIM_DP) == 0 &&
         cb_parallel_index(&p, 5, CB_DIM_PP) == 1 && cb_parallel_index(&p, 5, CB_DIM_EP) == 0,
     "rank 5: tp 1, dp 0, pp 1");
  const int tp5[] = {4, 5}, dp5[] = {5, 7}, pp5[] = {1, 5};
  int good = 1;
  for (int k = 0; k < 2; k++)
    good &= cb_parallel_member(&p, 5, CB_DIM_TP, k) == tp5[k] &&
            cb_parallel_member(&p, 5, CB_DIM_DP, k) == dp5[k] &&
            cb_parallel_member(&p, 5, CB_DIM_PP, k) == pp5[k];
  ok(good, "rank 5's groups: tp {4,5}, dp {5,7}, pp {1,5}");
  /* every dimension: its groups partition the ranks, numbered 0..ngroups-1,
   * a rank's group holds it at its own index, members agree on the group */
  for (int d = 0; d < CB_NDIMS; d++) {
    int count[8] = {0}, sound = 1, ngroups = 8 / p.size[d];
    for (int r = 0; r < 8; r++) {
      int g = cb_parallel_group(&p, r, d);
      sound &= g >= 0 && g < ngroups;
      if (g >= 0 && g < 8)
        count[g]++;
      sound &= cb_parallel_member(&p, r, d, cb_parallel_index(&p, r, d)) == r;
      for (int k = 0; k < p.size[d]; k++)
        sound &= cb_parallel_group(&p, cb_parallel_member(&p, r, d, k), d) == g;
    }
    for (int g = 0; g < ngroups; g++)
      sound &= count[g] == p.size[d];
    ok(sound, "%s: %d groups of %d partition 8 ranks", cb_dim_names[d], ngroups, p.size[d]);
  }
}

static void test_fit(void) {
  struct cb_parallel p;
  struct cb_error err = {0};
  const int one_node[4] = {0, 0, 0, 0}, two_nodes[4] = {0, 0, 1, 1};
  const int three_each[6] = {0, 0, 0, 1, 1, 1};
  cb_parallel_parse("tp=2,dp=2", &p, &err);
  ok(cb_parallel_fit(&p, 4, one_node, &err) == CB_OK, "tp=2,dp=2 fits 4 ranks on one node");
  ok(cb_parallel_fit(&p, 4, two_nodes, &err) == CB_OK, "and 2 nodes of 2: tp inside each");
  struct cb_error e = {0};
  ok(cb_parallel_fit(&p, 8, one_node, &e) == CB_USAGE &&
         strstr(e.msg, "hold 4 ranks, the job has 8"),
     "product 4 on 8 ranks refused: %s", e.msg);
  cb_parallel_parse("tp=4", &p, &err);
  e = (struct cb_error){0};
  ok(cb_parallel_fit(&p, 4, two_nodes, &e) == CB_USAGE &&
         strstr(e.msg, "tp=4 is larger than a node (2 ranks on the fullest)") &&
         strstr(e.msg, "at most tp=2"),
     "tp=4 on nodes of 2 refused: %s", e.msg);
  cb_parallel_parse("ep=2,dp=3", &p, &err);
  e = (struct cb_error){0};
  ok(cb_parallel_fit(&p, 6, three_each, &e) == CB_USAGE &&
         strstr(e.msg, "the ep group of rank 2 spans two nodes (ranks 2 and 3)"),
     "ep=2 over nodes of 3 straddles: refused: %s", e.msg);
  cb_parallel_parse("tp=3,dp=2", &p, &err);
  ok(cb_parallel_fit(&p, 6, three_each, &err) == CB_OK, "tp=3 over nodes of 3 fits");
}

int main(void) {
  test_parse();
  test_placement();
  test_fit();
  done_testing();
  return exit_status();
}
