/* Topology files: a good file gives the right figures in base units, every
 * kind of mistake names file, line and key, every preset in topologies/
 * parses, and verdicts judge thresholds the right way round. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "accept/ceiling.h"
#include "accept/spec.h"
#include "accept/verdicts.h"
#include "modes/cli.h"
#include "ops/op.h"
#include "presets.h"
#include "results/verdict.h"
#include "tap.h"

static const char good[] = "# a comment\n"
                           "[system]\n"
                           "name = test box\n"
                           "source = made up\n"
                           "nodes = 4\n"
                           "gpus_per_node = 8\n"
                           "\n"
                           "[tier nvlink]\n"
                           "scope = intra-node\n"
                           "kind = nvlink4\n"
                           "bandwidth = 450 GB/s ; per direction\n"
                           "latency = 2 us\n"
                           "\n"
                           "[tier ib]\n"
                           "scope = inter-node\n"
                           "bandwidth = 400 Gb/s\n"
                           "latency = 1500 ns\n"
                           "nics_per_node = 8\n"
                           "\n"
                           "[check allreduce-big]\n"
                           "op = allreduce\n"
                           "backend = nccl\n"
                           "mem = device\n"
                           "size = 16G\n"
                           "metric = busbw\n"
                           "warn = 480 GB/s\n"
                           "fail = 460 GB/s\n"
                           "\n"
                           "[check lat]\n"
                           "op = p2p_lat\n"
                           "backend = mpi\n"
                           "size = 8\n"
                           "metric = time\n"
                           "fail = 4.2 us\n"
                           "\n"
                           "[check rel]\n"
                           "op = allgather\n"
                           "backend = mpi\n"
                           "size = 1M\n"
                           "metric = algbw\n"
                           "variant = in-place\n"
                           "fail = 5% membw\n";

static void test_good(void) {
  struct cb_accept_spec t;
  struct cb_error err = {0};
  double refs[CB_NREFS] = {0};
  int rc = cb_accept_spec_parse(good, "good.conf", &t, NULL, &err);
  ok(rc == CB_OK, "good file parses (%s)", err.msg);
  is_str(t.system.name, "test box", "system name");
  is_long(t.system.nodes, 4, "nodes");
  is_long(t.system.gpus_per_node, 8, "gpus per node");
  is_long(t.system.ranks_per_node, 8, "ranks per node defaults to GPUs per node");
  is_long(t.system.ntiers, 2, "two tiers");
  is_double(t.system.tiers[0].bandwidth_Bps, 450e9, 1,
            "450 GB/s in bytes/s (inline comment ignored)");
  is_double(t.system.tiers[1].bandwidth_Bps, 50e9, 1, "400 Gb/s is 50 GB/s");
  is_double(t.system.tiers[1].latency_s, 1.5e-6, 1e-12, "1500 ns");
  is_long(t.system.tiers[1].nics_per_node, 8, "NICs per node");
  ok(cb_topology_tier(&t.system, CB_SCOPE_INTER) == &t.system.tiers[1],
     "inter-node tier found by scope");
  is_long(t.nchecks, 3, "three checks");
  const struct cb_check *c = &t.checks[0];
  ok(c->op == cb_op_lookup("allreduce") && strcmp(c->backend_name, "nccl") == 0,
     "check 1: allreduce on nccl (parses although nccl is not built)");
  is_long(c->line, 20, "check 1 starts on line 20");
  ok(c->bytes == 16ull << 30 && c->metric == CB_METRIC_BUSBW, "16 GiB busbw");
  is_double(cb_threshold_value(&c->warn, refs), 480e9, 1, "warn level");
  is_double(cb_threshold_value(&c->fail, refs), 460e9, 1, "fail level");
  is_str(t.checks[1].transport, "auto", "transport defaults to auto");
  is_double(cb_threshold_value(&t.checks[1].fail, refs), 4.2e-6, 1e-12, "4.2 us");
  ok(t.checks[2].inplace && t.checks[2].fail.reference == CB_REF_MEMBW, "in-place, relative");
  double both[CB_NREFS] = {0, 10e9, 3e9};
  is_double(cb_threshold_value(&t.checks[2].fail, both), 0.5e9, 1, "5%% of 10 GB/s membw");
  ok(!t.matrix.set, "no [matrix] section");
}

/* One bad line in an otherwise good file: the message names the file, the
 * line and the key (or section). */
static void bad(const char *line_text, int line, const char *key) {
  char text[4096];
  snprintf(text, sizeof text,
           "[system]\nname = x\n[check c]\nop = allreduce\nbackend = mpi\nsize = 1M\n"
           "metric = busbw\nfail = 1 GB/s\n%s\n",
           line_text);
  struct cb_accept_spec t;
  struct cb_error err = {0};
  int rc = cb_accept_spec_parse(text, "bad.conf", &t, NULL, &err);
  char where[32];
  snprintf(where, sizeof where, "bad.conf:%d:", line);
  ok(rc == CB_USAGE && strstr(err.msg, where) && strstr(err.msg, key),
     "'%s' rejected at line %d naming '%s': %s", line_text, line, key, err.msg);
}

/* issue 43: a generation NCCL tunes as another is refused with the value
 * to write */
static void arch_alias(const char *arch, const char *use) {
  char text[512], want[96];
  snprintf(text, sizeof text, "[system]\nname = x\ngpu_arch = %s\n", arch);
  snprintf(want, sizeof want, "write gpu_arch = %s, or compute_capability = ", use);
  struct cb_accept_spec t;
  struct cb_error err = {0};
  int rc = cb_accept_spec_parse(text, "arch.conf", &t, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "arch.conf:3:") && strstr(err.msg, want),
     "gpu_arch = %s: refused naming '%s' (%s)", arch, use, err.msg);
}

/* issue 43: [system] keys that contradict each other */
static void contradiction(const char *keys, const char *want) {
  char text[512];
  snprintf(text, sizeof text, "[system]\nname = x\n%s\n", keys);
  struct cb_accept_spec t;
  struct cb_error err = {0};
  int rc = cb_accept_spec_parse(text, "c.conf", &t, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, want), "'%s' refused (%s)", keys, err.msg);
}

static void test_bad(void) {
  contradiction("gpu_arch = hopper\nnvlink = 5", "nvlink = 5 contradicts gpu_arch = hopper");
  contradiction("gpu_arch = ampere\nnvswitch = nvls",
                "nvswitch = nvls contradicts gpu_arch = ampere");
  {
    struct cb_accept_spec t;
    struct cb_error err = {0};
    ok(cb_accept_spec_parse("[system]\nname = p100\ngpu_arch = volta\nnvlink = 1\n", "p.conf", &t,
                            NULL, &err) == CB_OK,
       "Pascal's NVLink 1 tuned as volta: accepted (%s)", err.msg);
  }
  {
    struct cb_accept_spec t;
    struct cb_error err = {0};
    ok(cb_accept_spec_parse("[system]\nname = x\nnic_path = phb\n", "n.conf", &t, NULL, &err) ==
               CB_OK &&
           t.system.gpu.nic_path == 8,
       "nic_path = phb: NCCL's PATH_PHB, 8");
    contradiction("nic_path = nvl", "expected pix, pxb, p2c, pxn, phb or sys");
    /* the names the two keys share map alike; each refuses the other's own */
    ok(cb_accept_spec_parse("[system]\nname = x\nnic_path = pxn\ngpu_path = sys\n", "n.conf", &t,
                            NULL, &err) == CB_OK &&
           t.system.gpu.nic_path == 7 && t.system.gpu.gpu_path == 9,
       "nic_path = pxn: PATH_PXN, 7; gpu_path = sys: PATH_SYS, 9");
    contradiction("nic_path = node", "expected pix, pxb, p2c, pxn, phb or sys");
    contradiction("gpu_path = pxn", "expected pix, pxb (PCIe switches), phb or node");
  }
  {
    struct cb_accept_spec t;
    struct cb_error err = {0};
    ok(cb_accept_spec_parse("[system]\nname = x\n", "g.conf", &t, NULL, &err) == CB_OK &&
           t.system.gpu.gpu_path == -1,
       "gpu_path unset: -1 (peer-to-peer assumed, as behind an HGX board's switches)");
    ok(cb_accept_spec_parse("[system]\nname = x\ngpu_path = node\n", "g.conf", &t, NULL, &err) ==
               CB_OK &&
           t.system.gpu.gpu_path == 8,
       "gpu_path = node (nvidia-smi's host bridges of one CPU): NCCL's PATH_PHB, 8");
    ok(cb_accept_spec_parse("[system]\nname = x\ngpu_path = pxb\n", "g.conf", &t, NULL, &err) ==
               CB_OK &&
           t.system.gpu.gpu_path == 5,
       "gpu_path = pxb: NCCL's PATH_PXB, 5");
    contradiction("gpu_path = nvlink", "expected pix, pxb (PCIe switches), phb or node");
    /* NCCL_P2P_LEVEL's values, in either case (paths.cc ncclGetLevel) */
    ok(cb_accept_spec_parse("[system]\nname = x\n", "g.conf", &t, NULL, &err) == CB_OK &&
           t.system.gpu.p2p_level == -1,
       "p2p_level unset: -1 (NCCL's own level)");
    static const struct {
      const char *value, *name; /* as written; NCCL_P2P_LEVEL's spelling back */
      int type;                 /* NCCL's PATH_* */
    } levels[] = {{"SYS", "SYS", 9}, {"loc", "LOC", 0}, {"phb", "PHB", 8}};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
      char text[64], name[8];
      snprintf(text, sizeof text, "[system]\nname = x\np2p_level = %s\n", levels[i].value);
      ok(cb_accept_spec_parse(text, "g.conf", &t, NULL, &err) == CB_OK &&
             t.system.gpu.p2p_level == levels[i].type &&
             strcmp(cb_topo_p2p_level_name(t.system.gpu.p2p_level, name, sizeof name),
                    levels[i].name) == 0,
         "p2p_level = %s: NCCL's PATH_%s, %d", levels[i].value, levels[i].name, levels[i].type);
    }
    char name[8];
    ok(!*cb_topo_p2p_level_name(7, name, sizeof name) &&
           !*cb_topo_p2p_level_name(-1, name, sizeof name),
       "PXN (a NIC path, not a level) and unset: no NCCL_P2P_LEVEL name");
    contradiction("p2p_level = node", "expected loc, nvl, nvb, pix, pxb, phb or sys");
    contradiction("p2p_level = p2c", "expected loc, nvl, nvb, pix, pxb, phb or sys");
    /* only p2p_level takes either case: gpu_path is as nvidia-smi prints it */
    contradiction("gpu_path = PIX", "expected pix, pxb (PCIe switches), phb or node");
  }
  {
    struct cb_accept_spec t;
    struct cb_error err = {0};
    ok(cb_accept_spec_parse("[system]\nname = x\ncompute_capability = 9.0,8.0\n", "m.conf", &t,
                            NULL, &err) == CB_OK &&
           t.system.gpu.cc == 80 && t.system.gpu.cc_max == 90 && t.system.gpu.arch == 1,
       "compute_capability = 9.0,8.0: the least (NCCL's minCompCap) sets gpu_arch ampere, the "
       "greatest kept (%s)",
       err.msg);
    ok(cb_accept_spec_parse("[system]\nname = x\ncompute_capability = 9.0\n", "m.conf", &t, NULL,
                            &err) == CB_OK &&
           t.system.gpu.cc == 90 && t.system.gpu.cc_max == 90,
       "one compute capability: least and greatest alike");
    contradiction("compute_capability = 9.0,", "or a list of them");
  }
  {
    struct cb_accept_spec t;
    struct cb_error err = {0};
    ok(cb_accept_spec_parse("[system]\nname = a40\ncompute_capability = 8.6\nnvlink = 3\n",
                            "a.conf", &t, NULL, &err) == CB_OK &&
           t.system.gpu.cc == 86 && t.system.gpu.arch == 1,
       "compute_capability = 8.6: cc 86, tuned as ampere (%s)", err.msg);
    ok(cb_accept_spec_parse("[system]\nname = l40s\ncompute_capability = 8.9\n", "l.conf", &t, NULL,
                            &err) == CB_OK &&
           t.system.gpu.cc == 89 && t.system.gpu.arch == 1,
       "compute_capability = 8.9 (Ada): tuned as ampere");
  }
  contradiction(
      "gpu_arch = hopper\ncompute_capability = 8.6",
      "compute_capability = 8.6 contradicts gpu_arch = hopper (NCCL tunes 8.6 as ampere)");
  contradiction("compute_capability = 8.9\nnvlink = 3", "Ada has no NVLink");
  contradiction("gpus_per_node = 4\nnvlink = 4\nnvswitch = no",
                "say how NVLink joins them: nvlink_peers = the GPUs each reaches over NVLink, 1 "
                "to 3: 1 for bridged pairs (H100 NVL), 3 for a full mesh");
  /* issue 58: README documents 4 for DGX-1; the message names it where it fits */
  contradiction("gpus_per_node = 8\nnvlink = 4\nnvswitch = no",
                "1 to 7: 1 for bridged pairs (H100 NVL), 7 for a full mesh, 4 for DGX-1's "
                "hybrid cube mesh");
  contradiction("gpus_per_node = 4\nnvlink = 4\nnvswitch = yes\nnvlink_peers = 1",
                "nvlink_peers = 1 contradicts nvswitch = yes");
  contradiction("gpus_per_node = 2\nnvlink = 4\nnvlink_peers = 2", "a GPU has 1 other(s)");
  contradiction("gpus_per_node = 2\nnvlink = 0\nnvlink_peers = 1",
                "nvlink_peers = 1 contradicts nvlink = 0");
  {
    struct cb_accept_spec t;
    struct cb_error err = {0};
    ok(cb_accept_spec_parse("[system]\nname = nvl\ngpus_per_node = 4\nnvlink = 4\nnvswitch = "
                            "no\nnvlink_peers = 1\n",
                            "p.conf", &t, NULL, &err) == CB_OK &&
           t.system.gpu.nvlink_peers == 1,
       "H100 NVL in bridged pairs: nvlink_peers = 1 (%s)", err.msg);
  }
  {
    struct cb_accept_spec t;
    struct cb_error err = {0};
    ok(cb_accept_spec_parse("[system]\nname = g\ngpu_p2p = no\n", "g.conf", &t, NULL, &err) ==
               CB_OK &&
           t.system.gpu.gpu_p2p == 0,
       "gpu_p2p = no (GeForce): parsed");
    contradiction("gpu_p2p = maybe", "'maybe': expected yes or no");
  }
  contradiction("compute_capability = 86", "compute_capability: '86' is not a compute capability");
  contradiction("compute_capability = 8.6x", "'8.6x' is not a compute capability");
  arch_alias("ada", "ampere");
  arch_alias("Turing", "volta");
  arch_alias("grace-hopper", "hopper");
  bad("mertic = busbw", 9, "mertic");
  bad("size = 12Q", 9, "size");
  bad("[check d]\nop = allreduse", 10, "allreduse");
  bad("[check d]\nbackend = nvshmem", 10, "nvshmem");
  /* issue 38: what inih would take silently, last one winning */
  bad("op = allgather", 9, "given twice in this section (first on line 4)");
  bad("[system]\nnodes = 2", 9, "[system] is given twice");
  bad("[tier t]\nscope = intra-node\n[tier t]", 11, "tier 't' is defined twice");
  bad("[tier t]\nbandwidth = 1e308 GB/s", 10, "bandwidth");
  bad("[tier t]\nlatency = 1e9 s", 10, "latency");
  bad("warn = 5000% membw", 9, "warn");
  bad("[check d]\ntransport = a\x1b[2Jb", 10, "control byte 0x1b");
  bad("[system2]\n", 9, "system2");
  bad("warn = 2 GB", 9, "warn");
  bad("fail = -1 GB/s", 9, "fail");
  bad("fail = 5% cpu", 9, "fail");
  bad("[chek d]", 9, "chek");
  bad("[check c]", 9, "twice");
  bad("just words", 9, "not a 'key = value'");
  bad("[tier t]\nscope = sideways", 10, "scope");
  bad("[matrix]\nbw_fraction = 1.5", 10, "bw_fraction");
  bad("warn = 40% matrix", 9, "warn");

  struct cb_accept_spec t;
  struct cb_error err = {0};
  int rc = cb_accept_spec_parse("[system]\nname = x\n[check c]\nop = allreduce\nbackend = mpi\n"
                                "metric = busbw\nfail = 1 GB/s\n",
                                "missing.conf", &t, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "missing.conf:3:") && strstr(err.msg, "'size'"),
     "a missing key names the check's line and the key: %s", err.msg);
  memset(&err, 0, sizeof err);
  rc = cb_accept_spec_parse("[system]\nname = x\n[check c]\nop = allreduce\nbackend = mpi\n"
                            "size = 1M\nmetric = busbw\nwarn = 1 GB/s\nfail = 2 GB/s\n",
                            "order.conf", &t, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "warn"), "warn laxer than fail is refused: %s", err.msg);
  memset(&err, 0, sizeof err);
  rc = cb_accept_spec_parse("[system]\nname = x\n[check c]\nop = allreduce\nbackend = mpi\n"
                            "size = 1M\nmetric = busbw\nfail = 40% pairbw\n",
                            "pairbw.conf", &t, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "[matrix]"), "pairbw needs a [matrix]: %s", err.msg);
  /* a key above every section once wrote into checks[-1] (issue 16) */
  const char *above[] = {"op = allreduce\n[system]\nname = x\n",
                         "# comment\n\nop = allreduce\n[system]\nname = x\n[check c]\n"};
  for (int i = 0; i < 2; i++) {
    memset(&err, 0, sizeof err);
    memset(&t, 0x55, sizeof t); /* a stale checks[] must not hide the write */
    rc = cb_accept_spec_parse(above[i], "above.conf", &t, NULL, &err);
    char where[32];
    snprintf(where, sizeof where, "above.conf:%d:", i ? 3 : 1);
    ok(rc == CB_USAGE && strstr(err.msg, where) && strstr(err.msg, "'op'") &&
           strstr(err.msg, "before the first section"),
       "a key before any section names file, line and key: %s", err.msg);
  }
  /* headers that inih and our line reader read differently (the fuzzer's
   * find: a '\r' before '[', text after ']'), never a key in checks[-1] */
  const char *odd[] = {"[system]\nname = x\n\r[check a]]\nop = allreduce\n",
                       "[system]\nname = x\n  [check a] x\nop = allreduce\n"};
  for (int i = 0; i < 2; i++) {
    memset(&err, 0, sizeof err);
    memset(&t, 0x55, sizeof t);
    rc = cb_accept_spec_parse(odd[i], "odd.conf", &t, NULL, &err);
    ok(rc == CB_USAGE && strstr(err.msg, "odd.conf:") && strstr(err.msg, "section header"),
       "a malformed section header is refused by name: %s", err.msg);
  }
  memset(&err, 0, sizeof err);
  rc = cb_accept_spec_load("/nonexistent/x.conf", &t, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "/nonexistent/x.conf"), "missing file named: %s", err.msg);
}

/* [system], a check named c, then n sections [KIND xI]: the tables' room
 * and a step named twice (the same name every time) are checked by name. */
static int sections(const char *kind, int n, int same, struct cb_accept_spec *t,
                    struct cb_error *err) {
  static char text[16384];
  int len = snprintf(text, sizeof text,
                     "[system]\nname = x\n[check c]\nop = allreduce\n"
                     "backend = mpi\nsize = 1K\nmetric = time\nfail = 1 s\n");
  for (int i = 1; i <= n; i++)
    len += snprintf(text + len, sizeof text - len,
                    strcmp(kind, "step") == 0 ? "[step x%d]\nworkload = tiny\nlimit = 20%%\n"
                                              : "[check x%d]\nop = allreduce\nbackend = mpi\n"
                                                "size = 1K\nmetric = time\nfail = 1 s\n",
                    same ? 1 : i);
  memset(err, 0, sizeof *err);
  return cb_accept_spec_parse(text, "room.conf", t, NULL, err);
}

static void test_section_room(void) {
  static const struct {
    const char *kind;
    int n, same;
    const char *want; /* NULL: parses */
  } cases[] = {
      {"check", CB_ACCEPT_MAX_CHECKS - 1, 0, NULL},
      {"check", CB_ACCEPT_MAX_CHECKS, 0, "[check x32] section: 'x32': too many checks"},
      {"step", CB_ACCEPT_MAX_STEPS, 0, NULL},
      {"step", CB_ACCEPT_MAX_STEPS + 1, 0, "[step x9] section: 'x9': too many steps"},
      {"step", 2, 1, "[step x1] section: step 'x1' is defined twice"},
      {"check", 2, 1, "[check x1] section: check 'x1' is defined twice"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct cb_accept_spec t;
    struct cb_error err;
    int rc = sections(cases[i].kind, cases[i].n, cases[i].same, &t, &err);
    if (cases[i].want)
      ok(rc == CB_USAGE && strstr(err.msg, cases[i].want), "%d %s sections%s: '%s' (%s)",
         cases[i].n, cases[i].kind, cases[i].same ? " of one name" : "", cases[i].want, err.msg);
    else
      ok(rc == CB_OK && t.nchecks + t.nsteps == cases[i].n + 1 &&
             strcmp(cases[i].kind[0] == 's' ? t.steps[cases[i].n - 1].name
                                            : t.checks[cases[i].n].name,
                    cases[i].kind[0] == 's' ? "x8" : "x31") == 0,
         "%d %s sections fit, the last one named (%s)", cases[i].n, cases[i].kind, err.msg);
  }
}

/* Every shipped preset parses, names itself and cites a source. */
static void test_presets(void) {
  char paths[MAX_PRESETS][512];
  int n = preset_paths(paths);
  if (n < 0) {
    ok(0, "topologies/ readable (run from the repository root)");
    return;
  }
  for (int i = 0; i < n; i++) {
    struct cb_accept_spec t;
    struct cb_error err = {0};
    int rc = cb_accept_spec_load(paths[i], &t, NULL, &err);
    ok(rc == CB_OK && t.system.source[0] && t.system.ntiers > 0 && t.nchecks > 0,
       "%s parses, cites a source, has tiers and checks (%s)", paths[i], err.msg);
  }
  ok(n >= 6, "at least six presets (found %d)", n);
}

static void test_verdicts(void) {
  struct cb_verdict v = {.measured = 470, .warn = 480, .fail = 460};
  cb_verdict_judge(&v, 0, NULL);
  ok(v.status == CB_WARN && fabs(v.margin - 10.0 / 460) < 1e-12, "470 GB/s: WARN, margin +2.2%%");
  v.measured = 455;
  cb_verdict_judge(&v, 0, NULL);
  ok(v.status == CB_FAIL && v.margin < 0, "455 GB/s: FAIL, negative margin");
  v.measured = 460;
  cb_verdict_judge(&v, 0, NULL);
  ok(v.status == CB_WARN && v.margin == 0, "at the fail level itself: not a failure");
  v = (struct cb_verdict){.measured = 3, .warn = NAN, .fail = 4.2};
  cb_verdict_judge(&v, 1, NULL);
  ok(v.status == CB_PASS && fabs(v.margin - 1.2 / 4.2) < 1e-12, "3 us under 4.2 us: PASS");
  v.measured = 5;
  cb_verdict_judge(&v, 1, NULL);
  ok(v.status == CB_FAIL, "5 us over 4.2 us: FAIL");
}

/* `ceiling = TIER`: parsed and resolved, refused when wrong; judged as a
 * share of the tier's bandwidth (FAIL under the fraction, WARN over 1.05). */
static void test_ceiling(void) {
  const char *file = "[system]\nname = x\n[tier nv]\nscope = intra-node\nkind = nvlink4\n"
                     "bandwidth = 400 GB/s\nlatency = 3 us\n[check c]\nop = allreduce\n"
                     "backend = mpi\nsize = 1M\nmetric = busbw\nfail = 1 GB/s\n%s";
  char text[1024];
  struct cb_accept_spec t;
  struct cb_error err = {0};
  snprintf(text, sizeof text, file, "ceiling = nv\n");
  int rc = cb_accept_spec_parse(text, "c.conf", &t, NULL, &err);
  ok(rc == CB_OK && t.checks[0].ceiling_tier == 0 && t.checks[0].ceiling_fraction == 0.6,
     "ceiling: resolved to its tier, fraction 0.6 by default (%s)", err.msg);
  struct cb_record rec = {.busbw_GBps = 320, .algbw_GBps = 1};
  struct cb_verdict v;
  char name[96];
  cb_ceiling_judge(&t, &t.checks[0], &rec, name, sizeof name, &v);
  ok(v.status == CB_PASS && !strcmp(name, "ceiling c") && v.fail == 240 &&
         strstr(v.what, "[tier nv] (nvlink4): 400 GB/s per GPU or rank; measured 0.8 of it"),
     "ceiling: 320 of 400 GB/s passes, fail level 240 (%s)", v.what);
  rec.busbw_GBps = 200;
  cb_ceiling_judge(&t, &t.checks[0], &rec, name, sizeof name, &v);
  ok(v.status == CB_FAIL && v.margin < 0 && strstr(v.what, "measured 0.5 of it, fails under 0.6"),
     "ceiling: 200 of 400 GB/s fails (%s)", v.what);
  rec.busbw_GBps = 480; /* NVLS on NVLink 4: over the per-GPU link rate */
  cb_ceiling_judge(&t, &t.checks[0], &rec, name, sizeof name, &v);
  ok(v.status == CB_WARN && strstr(v.what, "over the hardware's limit"),
     "ceiling: 480 of 400 GB/s warns (%s)", v.what);
  rec.busbw_GBps = 415; /* within 5%: noise, not a wrong figure */
  cb_ceiling_judge(&t, &t.checks[0], &rec, name, sizeof name, &v);
  ok(v.status == CB_PASS, "ceiling: 415 of 400 GB/s passes (%s)", v.what);
  cb_ceiling_judge(&t, &t.checks[0], NULL, name, sizeof name, &v);
  ok(v.status == CB_FAIL && strstr(v.what, "not measured"), "ceiling: not measured fails");

  const char *wrong[][2] = {{"ceiling = nv\nceiling_fraction = 1.5\n", "'1.5' is not a fraction"},
                            {"ceiling = nv\nceiling_fraction = 0\n", "'0' is not a fraction"},
                            {"ceiling = ib\n", "ceiling 'ib' names no [tier]"}};
  for (int i = 0; i < 3; i++) {
    memset(&err, 0, sizeof err);
    snprintf(text, sizeof text, file, wrong[i][0]);
    rc = cb_accept_spec_parse(text, "c.conf", &t, NULL, &err);
    ok(rc == CB_USAGE && strstr(err.msg, wrong[i][1]), "ceiling: refused: %s", err.msg);
  }
  memset(&err, 0, sizeof err);
  rc = cb_accept_spec_parse("[system]\nname = x\n[check c]\nop = allreduce\nbackend = mpi\n"
                            "size = 1M\nmetric = busbw\nfail = 1 GB/s\nceiling_fraction = 0.5\n",
                            "c.conf", &t, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "ceiling_fraction without a ceiling"), "%s", err.msg);
  /* messages with a literal % once went through printf as the format */
  memset(&err, 0, sizeof err);
  rc = cb_accept_spec_parse("[system]\nname = x\n[check c]\nop = allreduce\nbackend = mpi\n"
                            "size = 1M\nmetric = busbw\nfail = 1 s\n",
                            "c.conf", &t, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "(5% membw, 40% pairbw)"), "%% in a message: %s", err.msg);
  memset(&err, 0, sizeof err);
  rc = cb_accept_spec_parse("[system]\nname = x\n[step s]\nlimit = lots\n", "c.conf", &t, NULL,
                            &err);
  ok(rc == CB_USAGE && strstr(err.msg, "such as 20% or 0.2"), "%% in a message: %s", err.msg);
}

/* The system's reader alone (part NULL) holds no acceptance: a [check]
 * is refused by it; with acceptance's part, the model's and the report's
 * way of reading, a bad [check] is refused as --accept refuses it. */
static void test_parts(void) {
  struct cb_topology sys;
  struct cb_error err = {0};
  const char *text = "[system]\nname = x\n[tier nv]\nscope = intra-node\nbandwidth = 450 GB/s\n"
                     "latency = 2 us\n[check c]\nop = allreduce\nbackend = mpi\nsize = 1M\n"
                     "metric = busbw\nfail = 10 GB/s\n";
  int rc = cb_topology_parse(text, "p.conf", &sys, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "p.conf:7: [check c] section: 'check c': expected [system] "
                                       "or [tier NAME]"),
     "the system's reader alone refuses a [check]: %s", err.msg);
  err = (struct cb_error){0};
  ok(cb_topology_parse("[system]\nname = x\n[tier nv]\nscope = intra-node\nbandwidth = 450 GB/s\n"
                       "latency = 2 us\n",
                       "s.conf", &sys, NULL, &err) == CB_OK &&
         sys.ntiers == 1 && sys.tiers[0].bandwidth_Bps == 450e9,
     "and reads the system alone");
  static struct cb_accept_spec spec;
  struct cb_topo_part part;
  err = (struct cb_error){0};
  rc = cb_topology_parse(text, "p.conf", &sys, cb_accept_spec_part(&spec, &part, NULL), &err);
  ok(rc == CB_OK && spec.nchecks == 1 && sys.ntiers == 1, "acceptance's part reads the [check]");
  char bad_text[512];
  snprintf(bad_text, sizeof bad_text, "%sredop = sum\n", text);
  err = (struct cb_error){0};
  rc = cb_topology_parse(bad_text, "p.conf", &sys, cb_accept_spec_part(&spec, &part, NULL), &err);
  struct cb_error direct = {0};
  int rc2 = cb_accept_spec_parse(bad_text, "p.conf", &spec, NULL, &direct);
  ok(rc == CB_USAGE && rc2 == CB_USAGE && strcmp(err.msg, direct.msg) == 0 &&
         strstr(err.msg, "p.conf:13: [check c] redop: unknown key 'redop'"),
     "a bad [check] key: the same refusal through the part as --accept's: %s", err.msg);
}

/* A [check]'s keys that are options: read by the command line's parser,
 * applied over the run's settings for that check alone. */
static void test_check_options(void) {
  static struct cb_accept_spec spec;
  struct cb_error err = {0};
  const char *head = "[system]\nname = x\n[check c]\nop = allgather\nbackend = mpi\nsize = 1M\n"
                     "metric = busbw\nfail = 1 GB/s\n";
  char text[1024];
  snprintf(text, sizeof text, "%siters = 7\nmax_time = 2\ntiming = latency\n", head);
  int rc = cb_accept_spec_parse(text, "o.conf", &spec, &cb_cli_check_reader, &err);
  ok(rc == CB_OK && spec.checks[0].noptions == 3,
     "iters, max_time (as --max-time) and timing read");
  struct cb_settings base = {0}, s;
  base.iters = 11;
  base.max_time = 0.5;
  base.ops[0] = cb_op_lookup("allreduce");
  base.nops = 1;
  cb_check_settings(&spec.checks[0], &base, &s);
  ok(s.iters == 7 && s.max_time == 2 && s.timing == CB_TIMING_LATENCY &&
         s.ops[0] == cb_op_lookup("allgather") && s.min_bytes == 1 << 20,
     "over the run's settings: iters %ld, max_time %g, the check's op and size", s.iters,
     s.max_time);
  snprintf(text, sizeof text, "%swarmup = -1\n", head);
  rc = cb_accept_spec_parse(text, "o.conf", &spec, &cb_cli_check_reader, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "o.conf:9: [check c] warmup: --warmup: '-1'"),
     "a bad value: the option's own refusal, with file, line and key: %s", err.msg);
  snprintf(text, sizeof text, "%sjson = x.jsonl\n", head);
  err = (struct cb_error){0};
  rc = cb_accept_spec_parse(text, "o.conf", &spec, &cb_cli_check_reader, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "unknown key 'json'") &&
         strstr(err.msg, "; options: root, timing, stat, iters"),
     "an option a check does not take (--json) is an unknown key, the options named: %s", err.msg);
  snprintf(text, sizeof text, "%siters = 7\n", head);
  err = (struct cb_error){0};
  rc = cb_accept_spec_parse(text, "o.conf", &spec, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "unknown key 'iters'") && !strstr(err.msg, "options:"),
     "without a reader a check takes its own keys alone");
  size_t n = (size_t)snprintf(text, sizeof text, "%s", head);
  for (int i = 0; i <= CB_CHECK_MAX_OPTIONS; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "%s = %s\n",
                          (const char *[]){"root", "iters", "warmup", "window", "timeout", "check",
                                           "stat", "max_time", "window_bytes"}[i],
                          i == 6 ? "median" : "1");
  err = (struct cb_error){0};
  rc = cb_accept_spec_parse(text, "o.conf", &spec, &cb_cli_check_reader, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "at most 8 options"), "at most 8 options: %s", err.msg);
}

int main(void) {
  test_parts();
  test_check_options();
  test_good();
  test_ceiling();
  test_bad();
  test_presets();
  test_section_room();
  test_verdicts();
  done_testing();
  return exit_status();
}
