/* --plugin-out rules: winners per size, noise stickiness, boundaries that
 * cover every size, and the example plugin's CSV. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tuner/plugin.h"

/* the last field of a point: its results were checked (as the sweep's are) */
enum { TREE = 0, RING = 1, LL = 0, LL128 = 1, SIMPLE = 2 };

static void test_rules(void) {
  /* allreduce: tree/LL wins 1 KiB and 64 KiB, ring/LL128 wins 1 MiB, ring/Simple 64 MiB */
  struct cb_plugin_point pts[] = {
      {"allreduce", 1024, TREE, LL, 10, 0.1, 2, 1, 0},
      {"allreduce", 1024, RING, SIMPLE, 30, 0.1, 2, 1, 0},
      {"allreduce", 65536, TREE, LL, 20, 0.1, 4, 1, 0},
      {"allreduce", 65536, RING, SIMPLE, 40, 0.1, 4, 1, 0},
      {"allreduce", 1 << 20, TREE, LL, 300, 1, 8, 1, 0},
      {"allreduce", 1 << 20, RING, LL128, 100, 1, 8, 1, 0},
      {"allreduce", 1 << 20, RING, SIMPLE, 150, 1, 8, 1, 0},
      {"allreduce", 64 << 20, RING, LL128, 900, 5, 32, 1, 0},
      {"allreduce", 64 << 20, RING, SIMPLE, 700, 5, 32, 1, 0},
      {"alltoall", 1024, RING, SIMPLE, 5, 0, 1, 1, 0},
  };
  struct cb_plugin_rule r[8];
  int n = cb_plugin_rules(pts, sizeof pts / sizeof pts[0], r, 8);
  if (!is_long(n, 3, "allreduce: three rules (alltoall has none in the plugin)"))
    return;
  ok(r[0].min_bytes == 0 && r[0].max_bytes == (1 << 20) - 1 && r[0].algo == TREE &&
         r[0].proto == LL,
     "tree/LL from 0 up to just below 1 MiB (1 KiB and 64 KiB merged)");
  ok(r[1].min_bytes == 1 << 20 && r[1].max_bytes == (64u << 20) - 1 && r[1].algo == RING &&
         r[1].proto == LL128,
     "ring/LL128 from 1 MiB to just below 64 MiB");
  ok(r[2].min_bytes == 64u << 20 && r[2].max_bytes == UINT64_MAX && r[2].proto == SIMPLE,
     "ring/Simple from 64 MiB to the largest size");
  /* NCCL ran 1 KiB on 4 channels and 64 KiB on 8 by its own choice: a rule's
   * forced count would replace NCCL's at every size (issue 39 item 1) */
  ok(r[0].channels == 0 && r[1].channels == 0 && r[2].channels == 0,
     "each rule leaves the channel count to NCCL, as it was while measuring");
  /* tree/LL: ring/Simple took 200% longer at 1 KiB, 100% at 64 KiB; ring/LL128
   * at 1 MiB: 50% (ring/Simple); ring/Simple at 64 MiB: 900/700 */
  ok(fabs(r[0].margin_pct - 100) < 1e-9 && fabs(r[1].margin_pct - 50) < 1e-9 &&
         fabs(r[2].margin_pct - (900.0 / 700 - 1) * 100) < 1e-9,
     "each rule's margin: the least, over its sizes, of how much longer the runner-up took");
}

static void test_noise(void) {
  /* 64 KiB: ring/LL128 is 1 us faster, but the CIs (+-2 us) overlap: LL stays */
  struct cb_plugin_point pts[] = {
      {"allgather", 4096, RING, LL, 10, 0.5, 0, 1, 0},
      {"allgather", 4096, RING, LL128, 14, 0.5, 0, 1, 0},
      {"allgather", 65536, RING, LL, 21, 2, 0, 1, 0},
      {"allgather", 65536, RING, LL128, 20, 2, 0, 1, 0},
      {"allgather", 1 << 20, RING, LL, 200, 2, 0, 1, 0},
      {"allgather", 1 << 20, RING, LL128, 100, 2, 0, 1, 0},
      {"broadcast", 4096, RING, SIMPLE, 9, 0.1, 0, 1, 0},
  };
  struct cb_plugin_rule r[8];
  int n = cb_plugin_rules(pts, sizeof pts / sizeof pts[0], r, 8);
  if (!is_long(n, 3, "allgather two rules, broadcast one"))
    return;
  ok(r[0].proto == LL && r[0].max_bytes == (1 << 20) - 1,
     "a win inside the noise does not start a rule: LL up to 1 MiB");
  ok(r[1].proto == LL128 && r[1].min_bytes == 1 << 20, "a clear win does");
  ok(strcmp(r[2].coll, "broadcast") == 0 && r[2].min_bytes == 0 && r[2].max_bytes == UINT64_MAX,
     "a single measured size covers every size");
  ok(r[0].margin_pct < 0 && isnan(r[2].margin_pct),
     "kept within the noise: a negative margin; nothing else measured: none");
  pts[3].time_us = 15; /* now clearly faster */
  n = cb_plugin_rules(pts, sizeof pts / sizeof pts[0], r, 8);
  ok(n == 3 && r[0].max_bytes == 65535 && r[1].min_bytes == 65536 && r[1].proto == LL128,
     "a clear win at 64 KiB moves the boundary there");
  is_long(cb_plugin_rules(pts, sizeof pts / sizeof pts[0], r, 1), 1, "at most max rules");
  struct cb_plugin_point none[] = {{"alltoall", 8, RING, LL, 1, 0, 0, 1, 0},
                                   {"allreduce", 8, 9, LL, 1, 0, 0, 1, 0}};
  is_long(cb_plugin_rules(none, 2, r, 8), -1, "no usable point: -1");
}

/* LL128 forced where NCCL does not enable it can corrupt data: a rule
 * forces it only where this run checked its results. */
static void test_ll128(void) {
  struct cb_plugin_point pts[] = {
      {"allreduce", 1 << 20, RING, LL128, 100, 1, 8, 0, 0},
      {"allreduce", 1 << 20, RING, SIMPLE, 150, 1, 8, 1, 0},
      {"allreduce", 1 << 20, TREE, LL128, 120, 1, 8, 1, 0},
  };
  struct cb_plugin_rule r[8];
  int n = cb_plugin_rules(pts, 2, r, 8);
  ok(n == 1 && r[0].proto == SIMPLE,
     "an unchecked LL128 point does not win, though fastest: ring/Simple");
  is_long(cb_plugin_unproven_ll128(pts, 3), 1, "one LL128 point left out, counted");
  ok(!cb_plugin_ll128_proven(pts, 3, "allreduce", RING) &&
         cb_plugin_ll128_proven(pts, 3, "allreduce", TREE),
     "proven for Tree (checked), not for Ring");
  ok(!cb_plugin_ll128_proven(pts, 3, "allreduce", -1),
     "not proven for NCCL's choice while one algorithm's LL128 is unchecked");
  ok(!cb_plugin_ll128_proven(pts, 3, "allgather", -1), "not measured: not proven");
  pts[0].checked = 1;
  ok(cb_plugin_ll128_proven(pts, 3, "allreduce", -1), "all checked: proven for NCCL's choice");
  n = cb_plugin_rules(pts, 2, r, 8);
  ok(n == 1 && r[0].proto == LL128, "checked, LL128 wins its size");
}

static void test_write(void) {
  struct cb_plugin_rule r[] = {{"allreduce", 0, 65535, TREE, LL, 16, 12.34, 0, 0},
                               {"allreduce", 65536, UINT64_MAX, RING, SIMPLE, 16, NAN, 0, 0}};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  const char *comments[] = {"collbench --plugin-out on host\nwith a newline"};
  struct cb_error err = {0};
  ok(cb_plugin_write(f, comments, 1, r, 2, 2, 16, &err) == CB_OK, "rules written");
  fclose(f);
  ok(strncmp(buf, "# collbench-tuner-rules 1\n", 26) == 0,
     "the first line is the format's version header");
  ok(strstr(buf, "allreduce,0,65535,tree,ll,16,2,16,-1,-1,12.3\n") != NULL,
     "first rule line: the example plugin's 10 columns, then the margin");
  ok(strstr(buf, "allreduce,65536,18446744073709551615,ring,simple,16,2,16,-1,-1,none\n") != NULL,
     "last rule reaches the largest size; no runner-up measured: margin none");
  ok(strstr(buf, "# collbench --plugin-out on host?with a newline\n") != NULL,
     "a comment stays one line");
  ok(strstr(buf, "ONE channel") == NULL, "known channels: no warning");
  int data_lines = 0;
  for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
    data_lines += line[0] != '#';
  is_long(data_lines, 2, "only rule lines are not comments");
  free(buf);

  buf = NULL;
  f = open_memstream(&buf, &len);
  r[0].channels = 0;
  cb_plugin_write(f, NULL, 0, r, 1, 1, 2, &err);
  fclose(f);
  ok(strstr(buf, "allreduce,0,65535,tree,ll,-1,1,2,-1,-1,12.3\n") && strstr(buf, "ONE channel"),
     "unknown channels: -1 and the example plugin's one-channel warning");
  free(buf);
  ok(cb_plugin_write(stdout, NULL, 0, r, 0, 1, 2, &err) == CB_USAGE &&
         strstr(err.msg, "--plugin-out"),
     "no rules: usage error naming --plugin-out");
}

/* The scope comment says NCCL's counts (the rules' columns) and the
 * machine's: under --share-gpu 2 ranks on 1 machine are 2 nodes to NCCL. */
static void test_scope(void) {
  char line[512];
  cb_plugin_scope(line, sizeof line, 2, 2, 1, 1);
  ok(strstr(line, "communicators of 2 nodes and 2 ranks as NCCL counts them") &&
         strstr(line, "the machine had 1 node(s): --share-gpu makes each rank a node to NCCL"),
     "--share-gpu: NCCL's 2 nodes, and the machine's 1 said beside them (%s)", line);
  cb_plugin_scope(line, sizeof line, 4, 32, 4, 0);
  ok(strstr(line, "4 nodes and 32 ranks") && strstr(line, "the machine had 4 node(s))") &&
         !strstr(line, "share-gpu"),
     "without sharing both counts agree and nothing more is said");
}

/* issue 60: a forced pair NCCL did not apply (its profiler's ran said
 * another algorithm) is no measurement of that pair, however fast */
static void test_not_applied(void) {
  struct cb_plugin_point pts[] = {
      {"allreduce", 1 << 20, TREE, SIMPLE, 50, 1, 8, 1, 1}, /* ran Ring: not applied */
      {"allreduce", 1 << 20, RING, SIMPLE, 150, 1, 8, 1, 0},
  };
  struct cb_plugin_rule r[8];
  int n = cb_plugin_rules(pts, 2, r, 8);
  ok(n == 1 && r[0].algo == RING, "a pair NCCL did not apply never wins, though fastest");
  pts[0].not_applied = 0;
  n = cb_plugin_rules(pts, 2, r, 8);
  ok(n == 1 && r[0].algo == TREE, "applied, it wins its size");
  pts[0].not_applied = pts[1].not_applied = 1;
  is_long(cb_plugin_rules(pts, 2, r, 8), -1, "nothing applied: no rule");
}

int main(void) {
  test_scope();
  test_not_applied();
  test_rules();
  test_noise();
  test_ll128();
  test_write();
  done_testing();
  return exit_status();
}
