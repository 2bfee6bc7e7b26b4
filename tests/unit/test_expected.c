/* "80% model" levels (issue 58): they parse for bandwidths and times with
 * the line they are on; the model's figure for an nccl check on a GPU
 * system is NCCL's pick with its class band (which holds the published
 * figure the band was made from); for a host system, the alpha-beta model's
 * closed form on the tiers; every check the model cannot answer for is
 * refused naming file, line and key; every GPU preset has a model level the
 * model answers with a pick and a band; --dry-run prints it and, refused,
 * prints nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accept/dry_run.h"
#include "accept/expected.h"
#include "accept/spec.h"
#include "presets.h"
#include "tap.h"

static const char host[] = "[system]\n"
                           "name = two hosts\n"
                           "gpus_per_node = 0\n"
                           "ranks_per_node = 1\n"
                           "nodes = 2\n"
                           "[tier shm]\n"
                           "scope = intra-node\n"
                           "bandwidth = 5 GB/s\n"
                           "latency = 1 us\n"
                           "[tier tcp]\n"
                           "scope = inter-node\n"
                           "bandwidth = 1 GB/s\n"
                           "latency = 20 us\n"
                           "[check bw]\n"
                           "op = allreduce\n"
                           "backend = mpi\n"
                           "size = 1M\n"
                           "metric = busbw\n"
                           "warn = 50% model\n"
                           "fail = 20% model\n"
                           "[check lat]\n"
                           "op = allreduce\n"
                           "backend = mpi\n"
                           "size = 8\n"
                           "metric = time\n"
                           "fail = 300% model\n";

static void test_parse(void) {
  struct cb_accept_spec t;
  struct cb_error err = {0};
  int rc = cb_accept_spec_parse(host, "host.conf", &t, NULL, &err);
  ok(rc == CB_OK, "a file of model levels parses (%s)", err.msg);
  const struct cb_check *bw = &t.checks[0], *lat = &t.checks[1];
  ok(bw->fail.reference == CB_REF_MODEL && fabs(bw->fail.value - 0.2) < 1e-12 &&
         bw->fail.line == 20 && bw->warn.line == 19,
     "'fail = 20%% model' is 0.2 of the model, line 20 (value %g, line %d, warn's %d)",
     bw->fail.value, bw->fail.line, bw->warn.line);
  ok(lat->fail.reference == CB_REF_MODEL && fabs(lat->fail.value - 3) < 1e-12,
     "a time may be a multiple of the model's (300%% model: %g)", lat->fail.value);
  ok(cb_check_uses_model(bw) && cb_check_uses_model(lat), "both checks use the model");
  ok(cb_accept_spec_uses(&t, CB_REF_MODEL), "and the file does");
}

/* The alpha-beta model's ring all-reduce on p ranks, one a node, over the
 * inter-node tier: 2(p-1) steps of alpha and 2(p-1)/p of the buffer at beta
 * (bench/model/PLANNING.md); busbw is 2(p-1)/p of bytes over time. */
static void test_host(void) {
  struct cb_accept_spec t;
  struct cb_error err = {0};
  cb_accept_spec_parse(host, "host.conf", &t, NULL, &err);
  struct cb_expected e;
  int rc = cb_expected_for(&t, &t.checks[0], 2, 2, &e, &err);
  double p = 2, bytes = 1 << 20, alpha = 20e-6, beta = 1 / 1e9;
  double time = 2 * (p - 1) * alpha + 2 * (p - 1) / p * bytes * beta;
  double busbw = 2 * (p - 1) / p * bytes / time * 1e-9;
  ok(rc == CB_OK, "the host system's all-reduce has a model figure (%s)", err.msg);
  is_double(e.value, busbw, busbw * 1e-9, "it is the ring's closed form, %.4g GB/s", busbw);
  ok(isnan(e.lo) && strstr(e.band, "nominal") && strcmp(e.pick, "ring") == 0 && e.ranks == 2 &&
         e.nodes == 2,
     "with no band (the tiers are nominal), pick ring, at 2 ranks on 2 nodes (%s, %s)", e.pick,
     e.band);
  is_double(cb_level_value(&t.checks[0], &t.checks[0].fail, (double[CB_NREFS]){0}, &e),
            0.2 * e.value, 1e-12, "the fail level is 20%% of it");
  rc = cb_expected_for(&t, &t.checks[1], 2, 2, &e, &err);
  is_double(e.value, (2 * (p - 1) * alpha + 2 * (p - 1) / p * 8 * beta) * 1e6, 1e-9,
            "a time check's figure is the model's time in us (%g)", e.value);
  is_double(cb_level_value(&t.checks[1], &t.checks[1].fail, (double[CB_NREFS]){0}, &e), 3 * e.value,
            1e-9, "and 300%% model is three times it");
}

/* A file made from the host one with `from` replaced by `to`. */
static const char *edited(const char *text, const char *from, const char *to) {
  static char buf[4096];
  const char *at = strstr(text, from);
  snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  return buf;
}

static void refused(const char *text, int ranks, int nodes, int line, const char *why,
                    const char *what) {
  struct cb_accept_spec t;
  struct cb_error err = {0};
  int rc = cb_accept_spec_parse(text, "r.conf", &t, NULL, &err);
  struct cb_expected e;
  if (rc == CB_OK)
    rc = cb_expected_for(&t, &t.checks[0], ranks, nodes, &e, &err);
  char where[64];
  snprintf(where, sizeof where, "r.conf:%d: [check bw] fail:", line);
  ok(rc == CB_USAGE && strstr(err.msg, where) && strstr(err.msg, why),
     "%s: refused at %s, saying '%s': %s", what, where, why, err.msg);
}

static const char gpu[] = "[system]\n"
                          "name = gpus\n"
                          "gpus_per_node = 8\n"
                          "gpu_arch = hopper\n"
                          "nvlink = 0\n"
                          "nvswitch = no\n"
                          "gpu_p2p = no\n"
                          "[tier pcie]\n"
                          "scope = intra-node\n"
                          "kind = pcie5x16\n"
                          "bandwidth = 64 GB/s\n"
                          "latency = 5 us\n"
                          "[check bw]\n"
                          "op = allreduce\n"
                          "backend = nccl\n"
                          "mem = device\n"
                          "size = 1G\n"
                          "metric = busbw\n"
                          "fail = 80% model\n";

static void test_refused(void) {
  refused(gpu, 8, 1, 19, "gpu_p2p = no", "GPUs without peer-to-peer (--predict's unknown)");
  refused(edited(host, "op = allreduce", "op = p2p_bw"), 2, 2, 20, "the model has no p2p_bw",
          "a point-to-point op");
  refused(edited(host, "[tier tcp]\nscope = inter-node", "[tier tcp]\nscope = intra-node"), 2, 2,
          20, "inter-node tier", "two nodes and no inter-node tier");
  refused(edited(gpu, "backend = nccl\nmem = device", "backend = mpi\nmem = host"), 8, 1, 19,
          "describes NCCL", "an mpi check on a GPU system");
  refused(edited(host, "backend = mpi", "backend = nccl"), 2, 2, 20, "no GPUs",
          "an nccl check on a system without GPUs");
  refused(host, 1, 1, 20, "one rank has no one", "one rank");
}

/* gdr = no: NCCL's estimate across nodes is refused (no figure states the
 * shortfall); within one node the network is not used. */
static void test_gdr(void) {
  struct cb_accept_spec t;
  struct cb_error err = {0};
  if (cb_accept_spec_load("topologies/h100-ndr.conf", &t, NULL, &err)) {
    ok(0, "h100-ndr.conf loads (%s)", err.msg);
    return;
  }
  t.system.gpu.gdr = 0;
  int model = -1;
  for (int c = 0; c < t.nchecks && model < 0; c++)
    model = cb_check_uses_model(&t.checks[c]) ? c : -1;
  struct cb_expected e;
  ok(cb_expected_for(&t, &t.checks[model], 8, 1, &e, &err) == CB_OK,
     "gdr = no, one node: the model answers (%s)", err.msg);
  int rc = cb_expected_for(&t, &t.checks[model], 16, 2, &e, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "gdr = no"), "gdr = no, two nodes: refused: %s", err.msg);
  memset(&err, 0, sizeof err);
  rc = cb_accept_spec_parse("[system]\nname = x\ngdr = maybe\n", "g.conf", &t, NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "g.conf:3:") && strstr(err.msg, "gdr"),
     "gdr = maybe refused naming file, line and key: %s", err.msg);
}

/* Every GPU preset has a model level, answered with a pick and a band, and
 * the h100 preset's holds NCCL's maintainer's 480 GB/s (nccl-tests#212) for
 * 8 GPUs in its band. */
static void test_presets(void) {
  char paths[MAX_PRESETS][512];
  int n = preset_paths(paths), gpus = 0;
  for (int i = 0; i < n; i++) {
    struct cb_accept_spec t;
    struct cb_error err = {0};
    if (cb_accept_spec_load(paths[i], &t, NULL, &err) || t.system.gpus_per_node <= 0)
      continue;
    gpus++;
    int models = 0, answered = 0, ranks, nodes;
    cb_expected_scale(&t, &ranks, &nodes);
    for (int c = 0; c < t.nchecks; c++) {
      struct cb_expected e;
      if (!cb_check_uses_model(&t.checks[c]))
        continue;
      models++;
      answered += cb_expected_for(&t, &t.checks[c], ranks, nodes, &e, &err) == CB_OK && e.pick[0] &&
                  e.lo < e.value && e.value < e.hi && !e.beyond[0];
      if (strstr(paths[i], "h100-ndr") && c < t.nchecks)
        ok(strcmp(e.pick, "NVLS/Simple") == 0 && e.lo <= 480 && 480 <= e.hi,
           "%s: NVLS/Simple at 8 GPUs, its band [%.0f, %.0f] GB/s holds 480 (%s)", paths[i], e.lo,
           e.hi, e.pick);
    }
    ok(models > 0 && answered == models,
       "%s: %d model level(s), each answered with a pick and a band within its figures (%s)",
       paths[i], models, err.msg);
  }
  ok(gpus >= 6, "six GPU presets or more (%d)", gpus);
}

static void test_dry_run(void) {
  struct cb_accept_spec t;
  struct cb_error err = {0};
  cb_accept_spec_load("topologies/h100-ndr.conf", &t, NULL, &err);
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  int rc = cb_accept_dry_run(&t, 0, 0, out, &err);
  fclose(out);
  ok(rc == CB_OK && strstr(text, "fail: 1% healthy = ") && strstr(text, "pick NVLS/Simple") &&
         strstr(text, "band [") && strstr(text, "fail: 460 GB/s") &&
         strstr(text, "at 8 ranks on 1 node"),
     "--dry-run on h100-ndr prints the absolute levels and the model's with pick and band");
  free(text);
  cb_accept_spec_parse(gpu, "r.conf", &t, NULL, &err);
  text = NULL;
  out = open_memstream(&text, &len);
  rc = cb_accept_dry_run(&t, 0, 0, out, &err);
  fclose(out);
  ok(rc == CB_USAGE && len == 0, "a level the model cannot answer: refused, nothing printed (%zu)",
     len);
  free(text);
}

/* Issue 74: "1% healthy" levels are where that share of healthy systems of
 * the run's class measure (the band's distribution): the false-alarm chance
 * is the level itself, at one node and across InfiniBand alike; a time's is
 * slower than the model's; a share past 50% and a class without a figure
 * (nodes over TCP) are refused. */
static void test_healthy(void) {
  struct cb_accept_spec t;
  struct cb_error err = {0};
  static char text[4096];
  snprintf(text, sizeof text, "%s",
           edited(gpu, "nvlink = 0\nnvswitch = no\ngpu_p2p = no", "nvlink = 4\nnvswitch = yes"));
  snprintf(text, sizeof text, "%s",
           edited(text, "fail = 80% model", "fail = 1% healthy\nwarn = 5% healthy"));
  if (cb_accept_spec_parse(text, "h.conf", &t, NULL, &err)) {
    ok(0, "a 1%% healthy level parses (%s)", err.msg);
    return;
  }
  struct cb_expected e;
  int rc = cb_expected_for(&t, &t.checks[0], 8, 1, &e, &err);
  double fail = cb_level_value(&t.checks[0], &t.checks[0].fail, (double[CB_NREFS]){0}, &e);
  double warn = cb_level_value(&t.checks[0], &t.checks[0].warn, (double[CB_NREFS]){0}, &e);
  ok(rc == CB_OK && fabs(e.alarm_fail - 0.01) < 1e-6 && fabs(e.alarm_warn - 0.05) < 1e-6 &&
         fail < warn && warn < e.value && e.lo > fail,
     "one node: 1%% healthy at %.4g, 5%% at %.4g of %.4g GB/s, false alarms %.4f and %.4f, under "
     "the 95%% band's low end %.4g",
     fail, warn, e.value, e.alarm_fail, e.alarm_warn, e.lo);
  /* two nodes over a fabric without a figure: no share can be placed */
  static char tcp[8192];
  snprintf(tcp, sizeof tcp,
           "%s[tier net]\nscope = inter-node\nkind = tcp-100g\nbandwidth = 100 Gb/s\n"
           "latency = 20 us\n",
           text);
  if (cb_accept_spec_parse(tcp, "t.conf", &t, NULL, &err) == CB_OK)
    rc = cb_expected_for(&t, &t.checks[0], 16, 2, &e, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "no share of healthy systems can be placed") &&
         strstr(err.msg, "nodes over TCP"),
     "two nodes over TCP: refused, naming the class: %s", err.msg);
  memset(&err, 0, sizeof err);
  rc = cb_accept_spec_parse(edited(text, "fail = 1% healthy", "fail = 60% healthy"), "b.conf", &t,
                            NULL, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "'60% healthy' is out of range"), "60%% healthy refused: %s",
     err.msg);
  memset(&err, 0, sizeof err);
  rc = cb_accept_spec_parse(edited(text, "metric = busbw\nfail = 1% healthy\nwarn = 5% healthy",
                                   "metric = time\nfail = 1% healthy"),
                            "s.conf", &t, NULL, &err);
  if (rc == CB_OK)
    rc = cb_expected_for(&t, &t.checks[0], 8, 1, &e, &err);
  double slow = cb_level_value(&t.checks[0], &t.checks[0].fail, (double[CB_NREFS]){0}, &e);
  ok(rc == CB_OK && slow > e.hi && fabs(e.alarm_fail - 0.01) < 1e-6,
     "a time's 1%% healthy: %.4g us, slower than the band's %.4g (model %.4g)", slow, e.hi,
     e.value);
}

int main(void) {
  test_parse();
  test_host();
  test_refused();
  test_presets();
  test_gdr();
  test_dry_run();
  test_healthy();
  done_testing();
  return exit_status();
}
