/* Each defect priced (issue 58): the model's step with a link slowed costs
 * what cb_model_step says with that link's beta divided by the factor (host
 * tiers); on an H100 system at 1024 GPUs a NIC at half speed costs more
 * than NVLink at 90% (the network bounds the ring there, NVLink has room);
 * a link at the model's figure costs nothing; the scale and compute_time
 * keys parse, and bad ones are refused naming file, line and key; only a
 * bandwidth check's FAIL or WARN is priced, and one the model has no figure
 * for says why. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept/cost.h"
#include "accept/expected.h"
#include "accept/spec.h"
#include "accept/verdicts.h"
#include "base/dtype.h"
#include "model/defect.h"
#include "model/model.h"
#include "tap.h"

static const char host[] = "[system]\n"
                           "name = hosts\n"
                           "nodes = 4\n"
                           "gpus_per_node = 0\n"
                           "ranks_per_node = 1\n"
                           "scale = 64\n"
                           "[tier shm]\n"
                           "scope = intra-node\n"
                           "bandwidth = 5 GB/s\n"
                           "latency = 1 us\n"
                           "[tier tcp]\n"
                           "scope = inter-node\n"
                           "bandwidth = 1 GB/s\n"
                           "latency = 50 us\n"
                           "[check bw]\n"
                           "op = allreduce\n"
                           "backend = mpi\n"
                           "size = 1M\n"
                           "metric = busbw\n"
                           "fail = 50% model\n"
                           "[check p2p]\n"
                           "op = p2p_bw\n"
                           "backend = mpi\n"
                           "size = 1M\n"
                           "metric = algbw\n"
                           "fail = 1 GB/s\n"
                           "[check lat]\n"
                           "op = allreduce\n"
                           "backend = mpi\n"
                           "size = 8\n"
                           "metric = time\n"
                           "fail = 1 ms\n"
                           "[step]\n"
                           "workload = tiny\n"
                           "limit = 50%\n"
                           "compute_time = 20 ms\n";

static void test_host(void) {
  struct cb_accept_spec t;
  struct cb_error err = {0};
  int rc = cb_accept_spec_parse(host, "h.conf", &t, NULL, &err);
  ok(rc == CB_OK && t.system.scale == 64 && fabs(t.steps[0].compute_s - 0.02) < 1e-12,
     "scale = 64 and compute_time = 20 ms parse (%s)", err.msg);
  double grads = (double)cb_model_grad_bytes(&t.steps[0].model), bucket = fmin(25 << 20, grads);
  struct cb_defect_step d;
  char why[200] = "";
  rc =
      cb_defect_price(&t.system, 1, 1, 0.5, 64, CB_FLOAT, 0.02, grads, bucket, &d, why, sizeof why);
  /* the same step by hand: the inter-node tier's beta doubled */
  struct cb_system sys = {.ranks_per_node = 1};
  sys.tier[CB_TIER_INTRA] = (struct cb_link){.set = 1, .alpha = 1e-6, .beta = 1 / 5e9};
  sys.tier[CB_TIER_INTER] = (struct cb_link){.set = 1, .alpha = 50e-6, .beta = 1 / 1e9};
  struct cb_step_result r0, r1;
  cb_model_step(&sys, 64, 0.02, grads, bucket, NULL, &r0);
  sys.tier[CB_TIER_INTER].beta *= 2;
  cb_model_step(&sys, 64, 0.02, grads, bucket, NULL, &r1);
  ok(rc == 0, "the host step is priced (%s)", why);
  is_double(d.step_s[0], 0.02 + r0.exposed_s, 1e-12,
            "its expected step is compute + exposed (%g s)", d.step_s[0]);
  is_double(d.step_s[1], 0.02 + r1.exposed_s, 1e-12,
            "and with the NIC at half speed, the inter tier's beta doubled (%g s)", d.step_s[1]);
  ok(d.step_s[1] > d.step_s[0], "a slower link costs time");
  rc =
      cb_defect_price(&t.system, 1, 1, 1.2, 64, CB_FLOAT, 0.02, grads, bucket, &d, why, sizeof why);
  ok(rc == -1 && strstr(why, "no shortfall to price"),
     "a link faster than the model: not priced, said in words, never +0.0%% (%s)", why);

  /* a FAIL of the busbw check priced; a PASS, a time check not */
  struct cb_pricing p;
  ok(cb_pricing_of(&t, NULL, 4, &p) == 0 && p.gpus == 64 && p.compute_s == 0.02 &&
         strstr(p.compute_from, "compute_time"),
     "pricing: at the file's scale, its compute_time (%s)", p.compute_from);
  struct cb_expected e;
  cb_expected_for(&t, &t.checks[0], 4, 4, &e, &err);
  struct cb_verdict v = {.status = CB_FAIL, .measured = 0.25 * e.value};
  struct cb_cost c;
  rc = cb_cost_price(&p, &t, &t.checks[0], &v, &e, 4, 4, &c);
  char text[320];
  cb_cost_text(&c, text, sizeof text);
  ok(rc == 0 && !c.why[0] && fabs(c.factor - 0.25) < 1e-12 && c.gpus == 64 &&
         cb_cost_step_growth(&c) > 0 && strstr(text, "at 64 GPUs tiny step +") &&
         strstr(text, "(overhead "),
     "a FAIL at a quarter of the model: priced, '%s'", text);
  v.status = CB_PASS;
  ok(cb_cost_price(&p, &t, &t.checks[0], &v, &e, 4, 4, &c) == -1, "a PASS is not priced");
  v.status = CB_WARN;
  ok(cb_cost_price(&p, &t, &t.checks[2], &v, NULL, 4, 4, &c) == -1, "a time check is not priced");
  rc = cb_cost_price(&p, &t, &t.checks[1], &v, NULL, 4, 4, &c);
  ok(rc == 0 && strstr(c.why, "no p2p_bw") && isnan(cb_cost_step_growth(&c)),
     "a p2p check the model has no figure for says why: %s", c.why);
  t.steps[0].compute_s = 0;
  ok(cb_pricing_of(&t, NULL, 4, &p) == -1, "no compute_time and none measured: nothing to price");
  double measured = 0.03;
  ok(cb_pricing_of(&t, &measured, 4, &p) == 0 && p.compute_s == 0.03 &&
         strstr(p.compute_from, "measured"),
     "else the step's T_compute measured in the run (%s)", p.compute_from);
  t.system.scale = 0;
  ok(cb_pricing_scale(&t, 4) == 4, "no scale: nodes x ranks_per_node (4)");
}

/* 1024 H100s, 128 nodes over NDR: the ring is bounded by the NICs */
static void test_nccl(void) {
  struct cb_accept_spec t;
  struct cb_error err = {0};
  if (cb_accept_spec_load("topologies/h100-ndr.conf", &t, NULL, &err)) {
    ok(0, "h100-ndr.conf loads (%s)", err.msg);
    return;
  }
  struct cb_model m;
  cb_model_preset("gpt2-124m", &m, &err);
  double grads = (double)cb_model_grad_bytes(&m), bucket = 25 << 20;
  struct cb_defect_step nic, nvl, same;
  char why[200] = "";
  int a = cb_defect_price(&t.system, 8, 1, 0.5, 1024, CB_FLOAT, 0.1, grads, bucket, &nic, why,
                          sizeof why);
  char why_nvl[200] = "";
  int b = cb_defect_price(&t.system, 8, 0, 0.9, 1024, CB_FLOAT, 0.1, grads, bucket, &nvl, why_nvl,
                          sizeof why_nvl);
  ok(a == 0 && b == 0, "the H100 step is priced at 1024 GPUs (%s%s)", why, why_nvl);
  int c = cb_defect_price(&t.system, 8, 1, 1.0, 1024, CB_FLOAT, 0.1, grads, bucket, &same, why,
                          sizeof why);
  ok(nic.step_s[1] > nic.step_s[0] * 1.0001,
     "a NIC at half speed costs the step (%.4f -> %.4f s, overhead %.1f%% -> %.1f%%)",
     nic.step_s[0], nic.step_s[1], 100 * nic.overhead[0], 100 * nic.overhead[1]);
  ok(nvl.step_s[1] - nvl.step_s[0] < nic.step_s[1] - nic.step_s[0],
     "NVLink at 90%% costs less than the NIC at 50%% (%.4f vs %.4f s)",
     nvl.step_s[1] - nvl.step_s[0], nic.step_s[1] - nic.step_s[0]);
  ok(c == -1 && strstr(why, "no shortfall"), "a link at the model's figure: nothing to price (%s)",
     why);
}

static void test_bad(void) {
  static const struct {
    const char *keys;
    int line;
    const char *key;
  } bad[] = {
      {"[system]\nname = x\nscale = 0\n", 3, "scale"},
      {"[system]\nname = x\nscale = 16385\n", 3, "scale"},
      {"[system]\nname = x\n[step]\nworkload = tiny\nlimit = 20%\ncompute_time = 80% model\n", 6,
       "compute_time"},
      {"[system]\nname = x\n[step]\nworkload = tiny\nlimit = 20%\ncompute_time = fast\n", 6,
       "compute_time"},
      {"[system]\nname = x\n[tier t]\nscope = intra-node\nbandwidth = 1 GB/s\nlatency = 150% "
       "model\n",
       6, "latency"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct cb_accept_spec t;
    struct cb_error err = {0};
    int rc = cb_accept_spec_parse(bad[i].keys, "b.conf", &t, NULL, &err);
    char where[32];
    snprintf(where, sizeof where, "b.conf:%d:", bad[i].line);
    ok(rc == CB_USAGE && strstr(err.msg, where) && strstr(err.msg, bad[i].key),
       "refused at %s naming %s: %s", where, bad[i].key, err.msg);
  }
  ok(CB_TOPO_MAX_SCALE == CB_MODEL_MAX_GPUS, "a file's scale reaches as far as the planner (%d)",
     CB_TOPO_MAX_SCALE);
}

/* The host summary puts the costliest defect first: hosts a, b, c, d with
 * b FAILing at +5%, c at +40%, d unpriced, a healthy. */
static void test_hosts_order(void) {
  struct cb_probe_node nodes[4];
  memset(nodes, 0, sizeof nodes);
  const char *names[4] = {"hosta", "hostb", "hostc", "hostd"};
  for (int i = 0; i < 4; i++)
    snprintf(nodes[i].hostname, sizeof nodes[i].hostname, "%s", names[i]);
  struct cb_probe probe = {4, nodes};
  struct cb_accept_result res = {.probe = &probe};
  struct cb_cluster cl = {.rank = 0};
  struct cb_cost cheap = {.gpus = 64, .step_s = {1, 1.05}, .overhead = {0.1, 0.14}};
  struct cb_cost dear = {.gpus = 64, .step_s = {1, 1.4}, .overhead = {0.1, 0.36}};
  struct cb_verdict v[3] = {
      {.name = "node hostb", .status = CB_FAIL, .unit = "GB/s", .cost = &cheap},
      {.name = "node hostc", .status = CB_FAIL, .unit = "GB/s", .cost = &dear},
      {.name = "node hostd", .status = CB_FAIL, .unit = "GB/s"}};
  struct cb_error err = {0};
  for (int i = 0; i < 3; i++)
    cb_accept_emit(&cl, NULL, 0, &v[i], &res, &err);
  char path[] = "/tmp/test_cost.XXXXXX";
  int fd = mkstemp(path), saved = dup(STDOUT_FILENO);
  fflush(stdout);
  dup2(fd, STDOUT_FILENO);
  cb_accept_print_hosts(&res);
  fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  char text[2048] = "";
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[n] = '\0';
  if (f)
    fclose(f);
  close(fd);
  unlink(path);
  const char *c = strstr(text, "host hostc"), *b = strstr(text, "host hostb"),
             *d = strstr(text, "host hostd"), *a = strstr(text, "host hosta");
  ok(c && b && d && a && c < b && b < d && d < a && strstr(text, "step +40% at 64 GPUs"),
     "hosts: the costliest (+40%%) first, then +5%%, then the unpriced, then the healthy:\n%s",
     text);
  cb_accept_result_free(&res);
}

int main(void) {
  test_hosts_order();
  test_host();
  test_nccl();
  test_bad();
  done_testing();
  return exit_status();
}
