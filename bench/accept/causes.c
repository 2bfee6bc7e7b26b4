/* The rules from evidence to likely causes (causes.h). Each reads one
 * node's evidence (probe/node.h) against what the run's other nodes show
 * (the fastest port, the largest MTU) and appends what it finds. The order
 * of the table is the order of likelihood: what stops a link outright,
 * then what caps its bandwidth, then what slows it. */
#include "causes.h"

#include <stdio.h>
#include <string.h>

#include "probe/evidence.h"
#include "probe/gpu_health.h"

/* What the run's nodes show at best, to judge one node against. */
struct best {
  double gbps;
  int mtu;
  int crosses;                 /* NET, GPU: what the check's traffic crosses */
  const struct cb_window *w;   /* the counters that rose during the check, or NULL */
  const struct cb_record *rec; /* the check's record, or NULL */
  int node;                    /* the index of the node a rule is asked about */
};

typedef const struct cb_rule_info *rule_t;
typedef void (*rule_fn)(const struct cb_probe_node *n, const struct best *b, rule_t r,
                        struct cb_causes *c);

/* What a check's traffic crosses: the network between nodes, GPU memory. A
 * rule is asked only where its cause can touch the check. */
enum { NET = 1, GPU = 2 };

struct rule {
  struct cb_rule_info info;
  rule_fn fire;
  int needs; /* NET, GPU, both (NET | GPU: any), or NET * GPU: both at once */
};

static struct cb_cause *add(struct cb_causes *c, const struct cb_probe_node *n, const char *device,
                            rule_t r) {
  if (c->n == CB_MAX_CAUSES)
    return NULL;
  struct cb_cause *k = &c->c[c->n++];
  *k = (struct cb_cause){0};
  memset(k, 0, sizeof *k);
  snprintf(k->host, sizeof k->host, "%s", n->hostname);
  snprintf(k->device, sizeof k->device, "%s", device);
  k->rule = r->id;
  k->source = r->source;
  return k;
}

/* The counters that rose on this node during the check: an RDMA port's
 * (port > 0) or a GPU's (port 0, through NVML). */
static void rose(const struct cb_probe_node *n, const struct best *b, rule_t r, struct cb_causes *c,
                 int gpu) {
  for (int i = 0; b->w && i < b->w->n; i++) {
    const struct cb_counter *k = &b->w->r[i].c;
    struct cb_cause *x;
    if (b->w->r[i].node != b->node || (k->port == 0) != gpu || !(x = add(c, n, k->dev, r)))
      continue;
    unsigned long long v = (unsigned long long)k->value;
    if (!gpu)
      snprintf(x->text, sizeof x->text, "port %d: %s +%llu during this check", k->port, k->name, v);
    else if (strncmp(k->name, "xid_", 4) == 0)
      snprintf(x->text, sizeof x->text, "Xid %s reported %llu time%s during this check",
               k->name + 4, v, v == 1 ? "" : "s");
    else if (strcmp(k->name, "thermal_slowdown_us") == 0)
      snprintf(x->text, sizeof x->text, "clocks cut for heat %.1f ms during this check", v / 1e3);
    else
      snprintf(x->text, sizeof x->text, "%s +%llu during this check", k->name, v);
  }
  struct cb_cause *x;
  if (b->w && b->w->more && !gpu && (x = add(c, n, "-", r)))
    snprintf(x->text, sizeof x->text,
             "%d more error counters rose on the nodes during this check, past the %d listed",
             b->w->more, CB_MAX_ROSE);
}

static void counters_rose(const struct cb_probe_node *n, const struct best *b, rule_t r,
                          struct cb_causes *c) {
  rose(n, b, r, c, 0);
}

static void gpu_counters_rose(const struct cb_probe_node *n, const struct best *b, rule_t r,
                              struct cb_causes *c) {
  rose(n, b, r, c, 1);
}

static void gpu_name(char *dev, size_t len, const struct cb_gpu_health *g) {
  snprintf(dev, len, "GPU %s", g->bus_id);
}

static void nvlink_down(const struct cb_probe_node *n, const struct best *b, rule_t r,
                        struct cb_causes *c) {
  (void)b;
  for (int i = 0; i < n->evidence.ngpus; i++) {
    const struct cb_gpu_health *g = &n->evidence.gpus[i];
    char dev[32];
    struct cb_cause *k;
    gpu_name(dev, sizeof dev, g);
    if (g->nvlinks > 0 && g->nvlinks_down > 0 && (k = add(c, n, dev, r)))
      snprintf(k->text, sizeof k->text,
               "%d of its %d NVLinks not active: its traffic to other GPUs shares the rest, "
               "or goes over PCIe",
               g->nvlinks_down, g->nvlinks);
  }
}

static void memory_errors(const struct cb_probe_node *n, const struct best *b, rule_t r,
                          struct cb_causes *c) {
  (void)b;
  for (int i = 0; i < n->evidence.ngpus; i++) {
    const struct cb_gpu_health *g = &n->evidence.gpus[i];
    char dev[32];
    struct cb_cause *k;
    gpu_name(dev, sizeof dev, g);
    if ((g->ecc_uncorrected > 0 || g->remap_pending == 1 || g->remap_failed == 1) &&
        (k = add(c, n, dev, r)))
      snprintf(k->text, sizeof k->text,
               "%lld uncorrectable ECC error%s since the driver loaded%s%s", g->ecc_uncorrected,
               g->ecc_uncorrected == 1 ? "" : "s",
               g->remap_pending == 1 ? "; a row remapping waits for a GPU reset" : "",
               g->remap_failed == 1 ? "; a row remapping failed: replace the GPU" : "");
  }
}

static void throttled(const struct cb_probe_node *n, const struct best *b, rule_t r,
                      struct cb_causes *c) {
  (void)b;
  for (int i = 0; i < n->evidence.ngpus; i++) {
    const struct cb_gpu_health *g = &n->evidence.gpus[i];
    char dev[32], why[96] = "";
    struct cb_cause *k;
    if (g->reasons < 0 || !(g->reasons & CB_GPU_SLOWDOWN))
      continue;
    long long bit;
    const char *name;
    for (int j = 0; (name = cb_gpu_reason_name(j, &bit)); j++)
      if (g->reasons & bit & CB_GPU_SLOWDOWN)
        snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s", why[0] ? ", " : "", name);
    gpu_name(dev, sizeof dev, g);
    if ((k = add(c, n, dev, r)))
      snprintf(k->text, sizeof k->text, "clocks held down (%s): SM %d of %d MHz, %d C", why,
               g->sm_mhz, g->sm_max_mhz, g->temperature_c);
  }
}

/* The node's RDMA ports that are up. */
static int active_ports(const struct cb_probe_node *n, const char **first) {
  int k = 0;
  for (int i = 0; i < n->nnics; i++)
    if (n->nics[i].rdma && strcmp(n->nics[i].state, "ACTIVE") == 0 && !k++)
      *first = n->nics[i].name;
  return k;
}

static int nccl_rec(const struct best *b) {
  return b->rec && b->rec->backend && strcmp(b->rec->backend, "nccl") == 0;
}

static void nccl_socket(const struct cb_probe_node *n, const struct best *b, rule_t r,
                        struct cb_causes *c) {
  const char *dev = "";
  struct cb_cause *k;
  if (nccl_rec(b) && strstr(b->rec->transport, "net-socket") && active_ports(n, &dev) &&
      (k = add(c, n, dev, r)))
    snprintf(k->text, sizeof k->text,
             "NCCL went through sockets although %s is ACTIVE (NCCL_IB_DISABLE, NCCL_IB_HCA, "
             "NCCL_SOCKET_IFNAME or a missing IB plugin)",
             dev);
}

static void nccl_nics(const struct cb_probe_node *n, const struct best *b, rule_t r,
                      struct cb_causes *c) {
  const char *dev = "";
  int up = active_ports(n, &dev);
  struct cb_cause *k;
  if (nccl_rec(b) && b->rec->nccl_nics > 0 && b->rec->nccl_nics < up &&
      (k = add(c, n, "NCCL NET", r)))
    snprintf(k->text, sizeof k->text, "NCCL's NET plugin listed %d device%s of the %d ACTIVE ports",
             b->rec->nccl_nics, b->rec->nccl_nics == 1 ? "" : "s", up);
}

static void nccl_no_gdr(const struct cb_probe_node *n, const struct best *b, rule_t r,
                        struct cb_causes *c) {
  struct cb_cause *k;
  if (nccl_rec(b) && b->rec->nccl_gdr < 0 && n->evidence.gdr > 0 && (k = add(c, n, "NCCL NET", r)))
    snprintf(k->text, sizeof k->text,
             "GPUDirect RDMA can work here (%s) but NCCL's network connections did not use it "
             "(NCCL_NET_GDR_LEVEL, the GPU-NIC distance)",
             n->evidence.gdr_why);
}

static void port_down(const struct cb_probe_node *n, const struct best *b, rule_t r,
                      struct cb_causes *c) {
  (void)b;
  for (int i = 0; i < n->nnics; i++) {
    const struct cb_probe_nic *x = &n->nics[i];
    struct cb_cause *k;
    if (x->rdma && strcmp(x->state, "ACTIVE") != 0 && (k = add(c, n, x->name, r)))
      snprintf(k->text, sizeof k->text,
               "port %d %s, not ACTIVE: traffic takes the other ports, or sockets", x->port,
               x->state);
  }
}

static void pcie_down(const struct cb_probe_node *n, const struct best *b, rule_t r,
                      struct cb_causes *c) {
  for (int i = 0; i < n->evidence.ndevs; i++) {
    const struct cb_evid_dev *d = &n->evidence.devs[i];
    struct cb_cause *k;
    if (!cb_evid_downtrained(d) || !(d->gts > 0 && d->width > 0 && d->max_gts > 0) ||
        !(b->crosses & (d->kind == 'G' ? GPU : NET)))
      continue;
    char dev[32];
    snprintf(dev, sizeof dev, "%s %s", d->kind == 'G' ? "GPU" : d->name, d->bus_id);
    if ((k = add(c, n, dev, r)))
      snprintf(k->text, sizeof k->text,
               "PCIe Gen%d x%d, capable of Gen%d x%d: a link trained down carries %.0f%% of its "
               "bandwidth",
               cb_pcie_gen(d->gts), d->width, cb_pcie_gen(d->max_gts), d->max_width,
               100 * d->gts * d->width / (d->max_gts * d->max_width));
  }
}

static void rate_low(const struct cb_probe_node *n, const struct best *b, rule_t r,
                     struct cb_causes *c) {
  for (int i = 0; i < n->nnics; i++) {
    const struct cb_probe_nic *x = &n->nics[i];
    struct cb_cause *k;
    if (x->rdma && x->gbps > 0 && x->gbps < b->gbps * 0.99 && (k = add(c, n, x->name, r)))
      snprintf(k->text, sizeof k->text,
               "port %d at %g Gb/s (%s) where the fastest port of this run runs %g Gb/s", x->port,
               x->gbps, x->rate, b->gbps);
  }
}

static void gdr_off(const struct cb_probe_node *n, const struct best *b, rule_t r,
                    struct cb_causes *c) {
  (void)b;
  struct cb_cause *k;
  if (n->evidence.gdr == 0 && (k = add(c, n, "GPUDirect RDMA", r)))
    snprintf(k->text, sizeof k->text,
             "%s: without GPUDirect RDMA, NCCL stages network traffic through host memory",
             n->evidence.gdr_why);
}

static void acs_on(const struct cb_probe_node *n, const struct best *b, rule_t r,
                   struct cb_causes *c) {
  (void)b;
  for (int i = 0; i < n->evidence.nacs; i++) {
    struct cb_cause *k;
    const char *acs = n->evidence.acs[i],
               *paren = strchr(acs, '('); /* "BRIDGE (GPU <-> NIC):..." */
    char dev[16];
    snprintf(dev, sizeof dev, "%.*s", paren ? (int)(paren - acs - (paren > acs)) : 12, acs);
    if ((k = add(c, n, dev, r)))
      snprintf(k->text, sizeof k->text,
               "ACS on this bridge redirects peer traffic (%s): GPU-NIC traffic goes up through "
               "the root complex",
               paren ? paren : acs);
  }
}

static void iommu_dma(const struct cb_probe_node *n, const struct best *b, rule_t r,
                      struct cb_causes *c) {
  (void)b;
  int count = 0;
  const char *type = "";
  for (int i = 0; i < n->evidence.ndevs; i++)
    if (strncmp(n->evidence.devs[i].iommu, "DMA", 3) == 0)
      count++, type = n->evidence.devs[i].iommu;
  struct cb_cause *k;
  if (count && (k = add(c, n, "IOMMU", r)))
    snprintf(k->text, sizeof k->text,
             "the IOMMU translates (%s) for %d GPU/NIC function%s: peer DMA goes through address "
             "translation (iommu=pt avoids it)",
             type, count, count == 1 ? "" : "s");
}

static void mtu_low(const struct cb_probe_node *n, const struct best *b, rule_t r,
                    struct cb_causes *c) {
  for (int i = 0; i < n->nnics; i++) {
    const struct cb_probe_nic *x = &n->nics[i];
    struct cb_cause *k;
    if (x->rdma && x->mtu > 0 && x->mtu < b->mtu && (k = add(c, n, x->name, r)))
      snprintf(k->text, sizeof k->text, "%s MTU %d where other ports of this run use %d",
               x->netdev[0] ? x->netdev : "its interface", x->mtu, b->mtu);
  }
}

static const struct rule rules[] = {
    {{"counters-rising",
      "Linux sysfs ABI, sysfs-class-infiniband: ports/N/counters and hw_counters (InfiniBand "
      "PortCounters)"},
     counters_rose,
     NET},
    {{"gpu-errors-rising",
      "NVML API reference: nvmlDeviceRegisterEvents (Xid), nvmlDeviceGetTotalEccErrors, "
      "nvmlDeviceGetPcieReplayCounter, nvmlDeviceGetNvLinkErrorCounter, "
      "nvmlDeviceGetViolationStatus; NVIDIA Xid catalog"},
     gpu_counters_rose,
     GPU},
    {{"port-down", "Linux sysfs ABI, sysfs-class-infiniband: ports/N/state"}, port_down, NET},
    {{"nvlink-down", "NVML API reference: nvmlDeviceGetNvLinkState"}, nvlink_down, GPU},
    {{"gpu-memory-errors",
      "NVML API reference: nvmlDeviceGetTotalEccErrors, nvmlDeviceGetRemappedRows; NVIDIA GPU "
      "memory error management guide"},
     memory_errors,
     GPU},
    {{"nccl-socket-fallback", "NCCL's INFO log (NET/Socket, 'via NET/Socket'); NCCL environment "
                              "variables: NCCL_IB_DISABLE, NCCL_IB_HCA, NCCL_SOCKET_IFNAME"},
     nccl_socket,
     NET},
    {{"pcie-trained-down",
      "Linux sysfs ABI, sysfs-bus-pci: current_link_speed/width against max_link_speed/width"},
     pcie_down,
     NET | GPU},
    {{"gpu-throttled", "NVML API reference: nvmlDeviceGetCurrentClocksEventReasons "
                       "(nvmlClocksEventReasons), nvmlDeviceGetClockInfo"},
     throttled,
     GPU},
    {{"port-rate-low", "Linux sysfs ABI, sysfs-class-infiniband: ports/N/rate"}, rate_low, NET},
    {{"gpudirect-rdma-off",
      "NCCL troubleshooting guide, GPU Direct RDMA; NVIDIA GPUDirect RDMA guide (nvidia-peermem)"},
     gdr_off,
     NET *GPU},
    {{"acs-redirect", "NCCL troubleshooting guide, PCI Access Control Services (ACS); PCIe base "
                      "specification, ACS control register"},
     acs_on,
     NET *GPU},
    {{"iommu-translation",
      "NCCL troubleshooting guide, IOMMU; Linux sysfs ABI, sysfs-kernel-iommu_groups: type"},
     iommu_dma,
     NET | GPU},
    {{"mtu-low", "Linux sysfs ABI, sysfs-class-net: mtu"}, mtu_low, NET},
    {{"nccl-fewer-nics", "NCCL's INFO log ('NET/IB : Using [0]... [1]...')"}, nccl_nics, NET},
    {{"nccl-gdr-unused",
      "NCCL's INFO log ('via NET/IB/N/GDRDMA'); NCCL environment variables: NCCL_NET_GDR_LEVEL"},
     nccl_no_gdr,
     NET *GPU},
};
#define NRULES ((int)(sizeof rules / sizeof rules[0]))

const struct cb_rule_info *cb_rule(int i) {
  return i >= 0 && i < NRULES ? &rules[i].info : NULL;
}

/* Whether node n is one the check concerns. */
static int concerns(const char *check, const char *host) {
  size_t h = strlen(host);
  if (strncmp(check, "node ", 5) == 0)
    return strcmp(check + 5, host) == 0;
  if (strncmp(check, "link ", 5) == 0) {
    const char *a = check + 5, *arrow = strstr(a, "->");
    if (!arrow)
      return 0;
    return ((size_t)(arrow - a) == h && strncmp(a, host, h) == 0) || strcmp(arrow + 2, host) == 0;
  }
  return 1;
}

static int asked(int needs, int crosses) {
  return needs == NET * GPU ? crosses == (NET | GPU) : (needs & crosses) != 0;
}

void cb_causes_find(const struct cb_probe_node *nodes, int nnodes, const char *check,
                    const struct cb_record *rec, const struct cb_window *w, struct cb_causes *c) {
  /* a record says what it crossed; a matrix verdict (no record) crossed
   * the network when the run had several nodes, and may have used GPUs */
  int net = rec ? rec->nnodes > 1 : nnodes > 1;
  int gpu = rec ? (rec->mem && strcmp(rec->mem, "device") == 0) ||
                      (rec->backend && strcmp(rec->backend, "nccl") == 0)
                : 1;
  struct best b = {0, 0, (net ? NET : 0) | (gpu ? GPU : 0), w, rec, 0};
  memset(c, 0, sizeof *c);
  for (int i = 0; i < nnodes; i++)
    for (int k = 0; k < nodes[i].nnics; k++)
      if (nodes[i].nics[k].rdma) {
        if (nodes[i].nics[k].gbps > b.gbps)
          b.gbps = nodes[i].nics[k].gbps;
        if (nodes[i].nics[k].mtu > b.mtu)
          b.mtu = nodes[i].nics[k].mtu;
      }
  for (int r = 0; r < NRULES; r++)
    for (int i = 0; i < nnodes && asked(rules[r].needs, b.crosses); i++)
      if (concerns(check, nodes[i].hostname)) {
        b.node = i;
        rules[r].fire(&nodes[i], &b, &rules[r].info, c);
      }
}
