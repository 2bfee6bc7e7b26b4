/* The rules from evidence to likely causes (issue 41): each fires on its
 * planted fault and stays quiet on a healthy node; a rule is asked only
 * where its cause can touch what the check crossed; a verdict's hosts. */
#include <string.h>

#include "accept/causes.h"
#include "tap.h"

/* An HGX-like node: a GPU and an NDR port, Gen5 x16 each, healthy. */
static void healthy(struct cb_probe_node *n, const char *host) {
  memset(n, 0, sizeof *n);
  strcpy(n->hostname, host);
  n->nnics = 1;
  struct cb_probe_nic *x = &n->nics[0];
  strcpy(x->name, "mlx5_0"), strcpy(x->netdev, "ib0"), strcpy(x->state, "ACTIVE");
  strcpy(x->rate, "4X NDR");
  x->rdma = 1, x->port = 1, x->gbps = 400, x->mtu = 4092;
  struct cb_evidence *e = &n->evidence;
  e->ndevs = 2, e->gdr = 1, e->acs_known = 1;
  for (int i = 0; i < 2; i++) {
    struct cb_evid_dev *d = &e->devs[i];
    d->kind = i ? 'N' : 'G';
    strcpy(d->name, i ? "mlx5_0" : "GPU");
    strcpy(d->bus_id, i ? "0000:04:00.0" : "0000:03:00.0");
    d->gts = d->max_gts = 32, d->width = d->max_width = 16;
    strcpy(d->iommu, "identity");
  }
  e->ngpus = 1; /* idle, ECC on and clean, 18 NVLinks up */
  struct cb_gpu_health *g = &e->gpus[0];
  strcpy(g->bus_id, "0000:03:00.0");
  g->sm_mhz = 345, g->sm_max_mhz = 1980, g->reasons = 0x1, g->ecc = 1, g->ecc_uncorrected = 0;
  g->remap_pending = g->remap_failed = 0, g->pcie_replay = 0, g->nvlinks = 18;
  g->nvlinks_down = 0, g->temperature_c = 34, g->power_w = 79;
}

static const struct cb_record net_gpu = {
    .op = "allreduce", .backend = "nccl", .mem = "device", .nranks = 16, .nnodes = 2};
static const struct cb_record net_host = {
    .op = "allreduce", .backend = "mpi", .mem = "host", .nranks = 2, .nnodes = 2};
static const struct cb_record one_node_host = {
    .op = "allreduce", .backend = "mpi", .mem = "host", .nranks = 2, .nnodes = 1};

/* The rules that fired for check on nodes, "host:rule " each. */
static const char *fired(struct cb_probe_node *nodes, int n, const char *check,
                         const struct cb_record *rec) {
  static char buf[512];
  struct cb_causes c;
  cb_causes_find(nodes, n, check, rec, NULL, &c);
  buf[0] = '\0';
  for (int i = 0; i < c.n; i++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s:%s ", c.c[i].host, c.c[i].rule);
  return buf;
}

int main(void) {
  struct cb_probe_node nodes[2];
  healthy(&nodes[0], "n1"), healthy(&nodes[1], "n2");
  is_str(fired(nodes, 2, "allreduce-busbw", &net_gpu), "", "two healthy nodes: no rule fires");

  /* each rule: its fault on n2 fires it, naming n2 only */
  const char *rules[] = {
      "port-down",         "pcie-trained-down", "port-rate-low", "gpudirect-rdma-off",
      "acs-redirect",      "iommu-translation", "mtu-low",       "nvlink-down",
      "gpu-memory-errors", "gpu-memory-errors", "gpu-throttled"};
  for (int k = 0; k < 11; k++) {
    healthy(&nodes[1], "n2");
    struct cb_probe_node *n = &nodes[1];
    switch (k) {
    case 0: strcpy(n->nics[0].state, "DOWN"); break;
    case 1: n->evidence.devs[1].gts = 16, n->evidence.devs[1].width = 8; break;
    case 2: n->nics[0].gbps = 200, strcpy(n->nics[0].rate, "4X HDR"); break;
    case 3:
      n->evidence.gdr = 0;
      strcpy(n->evidence.gdr_why, "no nvidia_peermem");
      break;
    case 4:
      n->evidence.nacs = 1;
      strcpy(n->evidence.acs[0], "0000:02:00.0 (0000:03:00.0 <-> mlx5_0): ReqRedir");
      break;
    case 5: strcpy(n->evidence.devs[0].iommu, "DMA-FQ"); break;
    case 6: n->nics[0].mtu = 1500; break;
    case 7: n->evidence.gpus[0].nvlinks_down = 2; break;
    case 8: n->evidence.gpus[0].ecc_uncorrected = 3; break;
    case 9: n->evidence.gpus[0].remap_pending = 1; break;
    case 10: n->evidence.gpus[0].reasons = 0x1 | 0x40, n->evidence.gpus[0].sm_mhz = 990; break;
    }
    char want[64];
    snprintf(want, sizeof want, "n2:%s ", rules[k]);
    is_str(fired(nodes, 2, "allreduce-busbw", &net_gpu), want, "%s fires on its fault, on n2 only",
           rules[k]);
    is_str(fired(nodes, 2, "node n1", &net_gpu), "", "%s: quiet for 'node n1' (healthy)", rules[k]);
    is_str(fired(nodes, 2, "link n1->n2", &net_gpu), want, "%s: named for 'link n1->n2'", rules[k]);
  }

  /* ACS: the bridge is the device, the GPU and NIC it stands between in the text */
  healthy(&nodes[1], "n2");
  nodes[1].evidence.nacs = 1;
  strcpy(nodes[1].evidence.acs[0], "0000:02:00.0 (0000:03:00.0 <-> mlx5_0): ReqRedir");
  struct cb_causes ac;
  cb_causes_find(nodes, 2, "allreduce-busbw", &net_gpu, NULL, &ac);
  ok(ac.n == 1 && strcmp(ac.c[0].device, "0000:02:00.0") == 0 &&
         strstr(ac.c[0].text, "(0000:03:00.0 <-> mlx5_0): ReqRedir"),
     "acs-redirect names the bridge and the pair it stands between (got '%s': '%s')",
     ac.n ? ac.c[0].device : "", ac.n ? ac.c[0].text : "");

  /* what the check crossed decides which rules are asked */
  healthy(&nodes[1], "n2");
  nodes[1].evidence.gdr = 0;          /* GPU and network at once */
  nodes[1].evidence.devs[0].gts = 16; /* the GPU's link */
  nodes[1].nics[0].mtu = 1500;        /* the network */
  is_str(fired(nodes, 2, "allreduce-busbw", &net_host), "n2:mtu-low ",
         "host memory across nodes: the network's rules only");
  is_str(fired(nodes, 2, "allreduce-busbw", &one_node_host), "",
         "host memory on one node: neither the GPU's nor the network's");
  is_str(fired(nodes, 2, "allreduce-busbw", &net_gpu),
         "n2:pcie-trained-down n2:gpudirect-rdma-off n2:mtu-low ",
         "GPU memory across nodes: all, in the table's order");
  is_str(fired(nodes, 1, "node n1", NULL), "", "a matrix verdict on one node: no network");
  /* the counters that rose during the check: on their node only */
  healthy(&nodes[1], "n2");
  struct cb_window w = {1, {{1, {"mlx5_0", 1, "symbol_error", 412}}}, 0};
  struct cb_causes cs;
  cb_causes_find(nodes, 2, "allreduce-busbw", &net_host, &w, &cs);
  ok(cs.n == 1 && strcmp(cs.c[0].host, "n2") == 0 && strcmp(cs.c[0].rule, "counters-rising") == 0 &&
         strcmp(cs.c[0].text, "port 1: symbol_error +412 during this check") == 0,
     "a counter that rose: named on its node with its rise (got %d: %s)", cs.n,
     cs.n ? cs.c[0].text : "");
  cb_causes_find(nodes, 2, "node n1", &net_host, &w, &cs);
  is_long(cs.n, 0, "counters-rising: quiet for the other node");
  cb_causes_find(nodes, 2, "allreduce-busbw", &one_node_host, &w, &cs);
  is_long(cs.n, 0, "counters-rising: not asked for a check on one node");
  /* the GPU's state and counters (NVML) */
  healthy(&nodes[1], "n2");
  nodes[1].evidence.gpus[0].reasons = 0x4; /* the power cap: how a loaded GPU keeps its rating */
  is_str(fired(nodes, 2, "allreduce-busbw", &net_gpu), "",
         "gpu-throttled: quiet on the power cap alone");
  nodes[1].evidence.gpus[0].reasons = 0x41;
  nodes[1].evidence.gpus[0].nvlinks_down = 1;
  is_str(fired(nodes, 2, "allreduce-busbw", &net_host), "",
         "host memory: the GPU's rules are not asked");
  struct cb_causes gc;
  cb_causes_find(nodes, 2, "node n2", &net_gpu, NULL, &gc);
  ok(gc.n == 2 && strcmp(gc.c[0].device, "GPU 0000:03:00.0") == 0 &&
         strcmp(gc.c[0].text, "1 of its 18 NVLinks not active: its traffic to other GPUs shares "
                              "the rest, or goes over PCIe") == 0 &&
         strcmp(gc.c[1].text, "clocks held down (hw_thermal_slowdown): SM 345 of 1980 MHz, 34 C") ==
             0,
     "the GPU named by its bus id, each fault with its figures (got %d: '%s', '%s')", gc.n,
     gc.n ? gc.c[0].text : "", gc.n > 1 ? gc.c[1].text : "");
  healthy(&nodes[1], "n2");
  struct cb_window gw = {3,
                         {{1, {"GPU 0000:03:00.0", 0, "xid_79", 1}},
                          {1, {"GPU 0000:03:00.0", 0, "thermal_slowdown_us", 1500}},
                          {1, {"mlx5_0", 1, "symbol_error", 9}}},
                         0};
  cb_causes_find(nodes, 2, "allreduce-busbw", &net_gpu, &gw, &gc);
  ok(gc.n == 3 && strcmp(gc.c[0].rule, "counters-rising") == 0 &&
         strcmp(gc.c[1].rule, "gpu-errors-rising") == 0 &&
         strcmp(gc.c[1].text, "Xid 79 reported 1 time during this check") == 0 &&
         strcmp(gc.c[2].text, "clocks cut for heat 1.5 ms during this check") == 0,
     "GPU counters that rose: their own rule, in words (got %d: '%s', '%s')", gc.n,
     gc.n > 1 ? gc.c[1].text : "", gc.n > 2 ? gc.c[2].text : "");
  cb_causes_find(nodes, 2, "allreduce-busbw", &net_host, &gw, &gc);
  ok(gc.n == 1 && strcmp(gc.c[0].rule, "counters-rising") == 0,
     "host memory across nodes: the port's counter only, not the GPU's (got %d)", gc.n);

  /* what NCCL did, from its log as the record carries it */
  healthy(&nodes[1], "n2");
  struct cb_record sock = net_gpu;
  snprintf(sock.transport, sizeof sock.transport, "nvlink+net-socket");
  is_str(fired(nodes, 2, "allreduce-busbw", &sock),
         "n1:nccl-socket-fallback n2:nccl-socket-fallback ",
         "NCCL over sockets with ACTIVE InfiniBand ports: named on each node");
  snprintf(sock.transport, sizeof sock.transport, "nvlink+net-ib");
  is_str(fired(nodes, 2, "allreduce-busbw", &sock), "", "NCCL over IB: quiet");
  sock.nccl_gdr = -1;
  is_str(fired(nodes, 2, "allreduce-busbw", &sock), "n1:nccl-gdr-unused n2:nccl-gdr-unused ",
         "GPUDirect RDMA available (peermem) but NCCL's connections without it");
  sock.nccl_gdr = 1;
  nodes[1].nnics = 2;
  nodes[1].nics[1] = nodes[1].nics[0];
  strcpy(nodes[1].nics[1].name, "mlx5_1");
  sock.nccl_nics = 1;
  is_str(fired(nodes, 2, "allreduce-busbw", &sock), "n2:nccl-fewer-nics ",
         "NCCL listed 1 device where n2 has 2 ACTIVE ports; n1 has 1: quiet");
  sock.nccl_nics = 2;
  is_str(fired(nodes, 2, "allreduce-busbw", &sock), "", "NCCL listed them all: quiet");
  int nrules = 0;
  while (cb_rule(nrules) && cb_rule(nrules)->source[0])
    nrules++;
  ok(nrules == 15 && !cb_rule(15), "fifteen rules, each with its source");
  done_testing();
  return exit_status();
}
