/* --probe orchestration: local rank 0 of each node probes, rank 0 gathers
 * the nodes in node order. Plus the readable summary and the pure helpers. */
#include "probe.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/text.h"
#include "counters.h"
#include "evidence.h"
#include "gpu_health.h"

#define TAG_PROBE 31

void cb_probe_host(struct cb_probe_node *n) {
  gethostname(n->hostname, sizeof n->hostname - 1);
  cb_text_terminal_inplace(n->hostname, sizeof n->hostname); /* as cluster.c does */
  snprintf(n->cpu_model, sizeof n->cpu_model, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *v = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && v) {
      v += 1 + (v[1] == ' ');
      v[strcspn(v, "\n")] = '\0';
      snprintf(n->cpu_model, sizeof n->cpu_model, "%s", v);
      break;
    }
  }
  fclose(f);
  long pus = sysconf(_SC_NPROCESSORS_ONLN);
  if (!n->pus && pus > 0)
    n->pus = (int)pus;
}

static void probe_node(struct cb_probe_node *n) {
  memset(n, 0, sizeof *n);
  cb_probe_host(n);
  cb_probe_gpus(n);
  cb_probe_nics(n);
  cb_probe_placement(n); /* places the GPUs and NICs found above */
  cb_probe_evidence(n);
  cb_counters_read(&n->counters);
}

int cb_probe_collect(const struct cb_cluster *cl, struct cb_probe *p, struct cb_error *err) {
  memset(p, 0, sizeof *p);
  struct cb_probe_node mine;
  if (cl->local_rank == 0)
    probe_node(&mine);
  if (cl->rank == 0 && !(p->nodes = calloc((size_t)cl->nnodes, sizeof *p->nodes)))
    return cb_fail(err, CB_RUNTIME, "--probe: out of memory for %d nodes", cl->nnodes);
  p->nnodes = cl->rank == 0 ? cl->nnodes : 0;
  cb_cluster_gather_nodes(cl, &mine, p->nodes, sizeof mine, TAG_PROBE);
  return CB_OK;
}

void cb_probe_free(struct cb_probe *p) {
  free(p->nodes);
  p->nodes = NULL;
  p->nnodes = 0;
}

static void print_gpus(FILE *f, const struct cb_probe_node *n) {
  if (n->ngpus == 0) {
    fprintf(f, "  GPUs: none (%s)\n", n->gpu_why);
    return;
  }
  fprintf(f, "  GPUs: %d; driver %s, CUDA driver %s, runtime %s; NCCL %s\n", n->ngpus,
          n->driver[0] ? n->driver : "unknown", n->cuda_driver, n->cuda_runtime,
          n->nccl[0] ? n->nccl : "none");
  for (int g = 0; g < n->ngpus; g++) {
    const struct cb_probe_gpu *d = &n->gpus[g];
    fprintf(f, "    GPU%d %s, %s, %.1f GiB, %d SMs, sm_%d%d, NUMA %d", g, d->name, d->bus_id,
            (double)d->mem_bytes / (1 << 30), d->sms, d->cc_major, d->cc_minor, d->numa);
    if (d->nvlinks < 0)
      fprintf(f, ", NVLink unknown (no NVML)\n");
    else if (d->nvlinks == 0)
      fprintf(f, ", no NVLink\n");
    else
      fprintf(f, ", NVLink %d/%d links active (%d to NVSwitch, %d to GPUs)\n", d->nvlinks_active,
              d->nvlinks, d->nvlinks_to_switch, d->npeers);
  }
}

static void print_nics(FILE *f, const struct cb_probe_node *n) {
  if (n->nrdma == 0)
    fprintf(f, "  RDMA NICs: none (%s)\n", n->rdma_why);
  for (int pass = 1; pass >= 0; pass--) { /* RDMA devices first */
    int shown = 0;
    for (int i = 0; i < n->nnics; i++) {
      const struct cb_probe_nic *c = &n->nics[i];
      if (c->rdma != pass)
        continue;
      if (!shown++)
        fprintf(f, "  %s:\n", pass ? "RDMA NICs" : "Network interfaces");
      fprintf(f, "    %s", c->name);
      if (c->rdma)
        fprintf(f, " port %d%s%s", c->port, c->netdev[0] ? " " : "", c->netdev);
      fprintf(f, ": %s, %s", c->link, c->state);
      if (c->gbps > 0)
        fprintf(f, ", %g Gb/s (%s)", c->gbps, c->rate);
      else
        fprintf(f, ", speed unknown");
      if (c->mtu > 0)
        fprintf(f, ", MTU %d", c->mtu);
      fprintf(f, ", %s%s, NUMA %d\n", c->bus_id[0] ? "PCI " : "virtual",
              c->bus_id[0] ? c->bus_id : "", c->numa);
    }
  }
}

/* The GPU x NIC block of nvidia-smi topo -m, for NICs with a PCI address. */
static void print_distances(FILE *f, const struct cb_probe_node *n) {
  int any = 0;
  for (int g = 0; g < n->ngpus; g++)
    for (int i = 0; i < n->nnics; i++)
      any |= n->gpu_nic[g][i][0] != '\0';
  if (!any)
    return;
  fprintf(f, "  GPU-NIC distance (PIX < PXB < PHB < NODE < SYS):\n        ");
  for (int i = 0; i < n->nnics; i++)
    if (n->nics[i].bus_id[0])
      fprintf(f, " %8.8s", n->nics[i].name);
  fputc('\n', f);
  for (int g = 0; g < n->ngpus; g++) {
    fprintf(f, "    GPU%-2d", g);
    for (int i = 0; i < n->nnics; i++)
      if (n->nics[i].bus_id[0])
        fprintf(f, " %8s", n->gpu_nic[g][i][0] ? n->gpu_nic[g][i] : "?");
    fputc('\n', f);
  }
}

/* Each GPU's state through NVML (gpu_health.c); NVML's absence is said only
 * where sysfs shows NVIDIA GPUs. */
static void print_health(FILE *f, const struct cb_evidence *e) {
  int sysfs_gpus = 0;
  for (int i = 0; i < e->ndevs; i++)
    sysfs_gpus += e->devs[i].kind == 'G';
  if (!e->ngpus && sysfs_gpus)
    fprintf(f, "  GPU state: unknown (%s)\n", e->nvml_why[0] ? e->nvml_why : "NVML lists none");
  if (e->ngpus)
    fprintf(f, "  GPU state (NVML):\n");
  for (int i = 0; i < e->ngpus; i++) {
    const struct cb_gpu_health *g = &e->gpus[i];
    fprintf(f, "    GPU %s: SM %d / %d MHz, clocks ", g->bus_id, g->sm_mhz, g->sm_max_mhz);
    long long bit;
    const char *name;
    int any = 0;
    for (int j = 0; g->reasons > 0 && (name = cb_gpu_reason_name(j, &bit)); j++)
      if (g->reasons & bit)
        fprintf(f, "%s%s%s", any++ ? "," : "", name, bit & CB_GPU_SLOWDOWN ? " (SLOWDOWN)" : "");
    fprintf(f, "%s", g->reasons < 0 ? "?" : any ? "" : "unrestricted");
    if (g->ecc == 1)
      fprintf(f, "; ECC on, %lld uncorrectable", g->ecc_uncorrected);
    else
      fprintf(f, "; ECC %s", g->ecc == 0 ? "off" : "?");
    if (g->remap_pending == 1 || g->remap_failed == 1)
      fprintf(f, ", row remap %s", g->remap_failed == 1 ? "FAILED" : "pending");
    fprintf(f, "; PCIe replays %lld", g->pcie_replay);
    if (g->nvlinks > 0)
      fprintf(f, "; NVLink %d/%d active", g->nvlinks - g->nvlinks_down, g->nvlinks);
    fprintf(f, "; %d C, %.0f W\n", g->temperature_c, g->power_w);
  }
}

/* What acceptance explains a slow node with (evidence.c). */
static void print_evidence(FILE *f, const struct cb_evidence *e) {
  print_health(f, e);
  if (e->ndevs)
    fprintf(f, "  PCIe links (now / at most) and IOMMU:\n");
  for (int i = 0; i < e->ndevs; i++) {
    const struct cb_evid_dev *d = &e->devs[i];
    fprintf(f, "    %-8s %s: ", d->name, d->bus_id);
    char now[32] = "?", most[32] = "?";
    if (d->gts > 0 && d->width > 0)
      snprintf(now, sizeof now, "Gen%d x%d", cb_pcie_gen(d->gts), d->width);
    if (d->max_gts > 0 && d->max_width > 0)
      snprintf(most, sizeof most, "Gen%d x%d", cb_pcie_gen(d->max_gts), d->max_width);
    fprintf(f, "%s / %s%s", now, most, cb_evid_downtrained(d) ? " (trained down)" : "");
    fprintf(f, ", IOMMU %s\n", d->iommu);
  }
  fprintf(f, "  GPUDirect RDMA: %s (%s)\n",
          e->gdr > 0 ? "can work"
          : e->gdr   ? "unknown"
                     : "no",
          e->gdr_why);
  if (!e->acs_known)
    fprintf(f, "  ACS between GPUs and NICs: unknown (%s)\n", e->acs_why);
  else if (!e->nacs)
    fprintf(f, "  ACS between GPUs and NICs: no bridge redirects peer traffic\n");
  for (int i = 0; i < e->nacs; i++)
    fprintf(f, "  ACS redirects peer traffic: %s\n", e->acs[i]);
}

/* The error counters that are not zero (since boot or the driver loaded):
 * acceptance reports what rises during a check; this is the history. */
static void print_counters(FILE *f, const struct cb_counters *c) {
  int nonzero = 0;
  for (int i = 0; i < c->n; i++)
    nonzero += c->c[i].value != 0;
  if (c->n)
    fprintf(f, "  error counters: %d read, %d not zero%s\n", c->n, nonzero, nonzero ? ":" : "");
  if (c->unreadable)
    fprintf(f, "  error counters: %d unknown (not a decimal count), the first %s\n", c->unreadable,
            c->unreadable_what);
  if (c->dropped)
    fprintf(f, "  error counters: %d more not read (over %d a node): acceptance is blind to them\n",
            c->dropped, CB_MAX_COUNTERS);
  for (int i = 0; i < c->n; i++)
    if (c->c[i].value) {
      if (c->c[i].port)
        fprintf(f, "    %s port %d: %s %llu\n", c->c[i].dev, c->c[i].port, c->c[i].name,
                (unsigned long long)c->c[i].value);
      else
        fprintf(f, "    %s: %s %llu\n", c->c[i].dev, c->c[i].name,
                (unsigned long long)c->c[i].value);
    }
}

void cb_probe_print(FILE *f, const struct cb_probe_node *n) {
  fprintf(f, "node %s\n", n->hostname);
  fprintf(f, "  CPU: %s; %d package%s, %d cores, %d threads, %d NUMA node%s\n", n->cpu_model,
          n->packages, n->packages == 1 ? "" : "s", n->cores, n->pus, n->numa_nodes,
          n->numa_nodes == 1 ? "" : "s");
  fprintf(f, "  placement: %s\n", n->placement);
  print_gpus(f, n);
  print_nics(f, n);
  print_distances(f, n);
  print_evidence(f, &n->evidence);
  print_counters(f, &n->counters);
}
