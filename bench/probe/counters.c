/* RDMA and GPU error counters, read and gathered (counters.h). */
#include "counters.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sysfs.h"
#include "node.h"
#include "nvml.h"

#define TAG_COUNTERS 32

/* The PortCounters that count errors (sysfs-class-infiniband); the rest
 * of counters/ counts traffic. */
static const char *const errors[] = {"symbol_error",
                                     "link_error_recovery",
                                     "link_downed",
                                     "port_rcv_errors",
                                     "port_rcv_remote_physical_errors",
                                     "port_rcv_switch_relay_errors",
                                     "port_xmit_discards",
                                     "port_xmit_constraint_errors",
                                     "port_rcv_constraint_errors",
                                     "local_link_integrity_errors",
                                     "excessive_buffer_overrun_errors",
                                     "VL15_dropped"};

static void put(struct cb_counters *out, const char *dev, int port, const char *name, uint64_t v) {
  if (out->n == CB_MAX_COUNTERS) {
    out->dropped++;
    return;
  }
  struct cb_counter *c = &out->c[out->n++];
  cb_probe_copy(c->dev, sizeof c->dev, dev);
  c->port = port;
  cb_probe_copy(c->name, sizeof c->name, name);
  c->value = v;
}

static void add(struct cb_counters *out, const char *dev, int port, const char *dir,
                const char *name) {
  uint64_t v;
  int got = cb_sysfs_u64(&v, "/sys/class/infiniband/%s/ports/%d/%s/%s", dev, port, dir, name);
  if (got == 1)
    put(out, dev, port, name, v);
  else if (got < 0 && !out->unreadable++) /* there, but not a count: unknown, and said */
    snprintf(out->unreadable_what, sizeof out->unreadable_what, "%s port %d %s", dev, port, name);
}

/* hw_counters that count traffic, not trouble (mlx5: rx_read_requests,
 * rx_write_requests, rx_atomic_requests, rx_dct_connect; lifespan is a
 * setting) */
static int counts_traffic(const char *name) {
  return strstr(name, "requests") || strstr(name, "dct_connect") || strcmp(name, "lifespan") == 0;
}

static void read_port(struct cb_counters *out, const char *dev, int port) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    add(out, dev, port, "counters", errors[i]);
  char dir[1024];
  struct dirent **names;
  int n = scandir(
      cb_sysfs_path(dir, sizeof dir, "/sys/class/infiniband/%s/ports/%d/hw_counters", dev, port),
      &names, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    if (names[i]->d_name[0] != '.' && !counts_traffic(names[i]->d_name))
      add(out, dev, port, "hw_counters", names[i]->d_name);
    free(names[i]);
  }
  if (n >= 0)
    free(names);
}

/* One GPU's error counters through NVML (port 0): PCIe replays, ECC
 * errors since the driver loaded, NVLink data-link errors summed over its
 * links, the time its clocks were cut for heat, and the Xid events seen
 * since this process first looked (cb_nvml_xids). */
static void read_gpu(struct cb_counters *out, const struct cb_nvml *m, nvml_device d) {
  struct nvml_pci_info pci;
  if (m->pci(d, &pci) != 0)
    return;
  char dev[24], name[40];
  snprintf(dev, sizeof dev, "GPU %04x:%02x:%02x.0", pci.domain & 0xffff, pci.bus, pci.device);
  unsigned u;
  unsigned long long v;
  if (m->pcie_replay && m->pcie_replay(d, &u) == 0)
    put(out, dev, 0, "pcie_replay", u);
  for (int type = 0; type < 2 && m->ecc_total; type++) /* corrected, uncorrected; volatile */
    if (m->ecc_total(d, type, 0, &v) == 0)
      put(out, dev, 0, type ? "ecc_uncorrected" : "ecc_corrected", v);
  static const char *const nvlink[] = {"nvlink_replay", "nvlink_recovery", "nvlink_crc_flit"};
  for (int k = 0; k < 3 && m->nvlink_errors; k++) {
    unsigned long long sum = 0;
    int links = 0;
    for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++)
      if (m->nvlink_errors(d, l, k, &v) == 0)
        sum += v, links++;
    if (links)
      put(out, dev, 0, nvlink[k], sum);
  }
  struct nvml_violation t;
  if (m->violation && m->violation(d, NVML_PERF_POLICY_THERMAL, &t) == 0)
    put(out, dev, 0, "thermal_slowdown_us", t.violation_time / 1000);
  unsigned codes[8];
  unsigned long long counts[8];
  int n = cb_nvml_xids(d, codes, counts, 8);
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "xid_%u", codes[i]);
    put(out, dev, 0, name, counts[i]);
  }
}

static void read_gpus(struct cb_counters *out) {
  const struct cb_nvml *m = cb_nvml(NULL, 0);
  unsigned n = 0;
  if (!m || m->count(&n) != 0)
    return;
  for (unsigned i = 0; i < n; i++) {
    nvml_device d;
    if (m->by_index(i, &d) == 0)
      read_gpu(out, m, d);
  }
}

void cb_counters_read(struct cb_counters *out) {
  memset(out, 0, sizeof *out);
  char dir[1024];
  struct dirent **devs;
  int n = scandir(cb_sysfs_path(dir, sizeof dir, "/sys/class/infiniband"), &devs, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    for (int port = 1; devs[i]->d_name[0] != '.' && port <= 8; port++)
      if (cb_sysfs_exists("/sys/class/infiniband/%s/ports/%d", devs[i]->d_name, port))
        read_port(out, devs[i]->d_name, port);
    free(devs[i]);
  }
  if (n >= 0)
    free(devs);
  read_gpus(out);
}

int cb_counters_gather(const struct cb_cluster *cl, struct cb_counters *all) {
  struct cb_counters mine;
  if (cl->local_rank == 0)
    cb_counters_read(&mine);
  cb_cluster_gather_nodes(cl, &mine, all, sizeof mine, TAG_COUNTERS);
  return CB_OK;
}

int cb_counters_delta(const struct cb_counters *before, const struct cb_counters *after,
                      struct cb_counters *rose) {
  rose->n = rose->dropped = rose->unreadable = 0; /* c[] is filled up to n: not cleared */
  rose->unreadable_what[0] = '\0';
  for (int i = 0; i < after->n; i++) {
    const struct cb_counter *a = &after->c[i];
    uint64_t was = 0; /* absent before: a counter that appeared, as an Xid's first event */
    for (int k = 0; k < before->n; k++) {
      const struct cb_counter *b = &before->c[k];
      if (b->port == a->port && strcmp(b->dev, a->dev) == 0 && strcmp(b->name, a->name) == 0) {
        was = b->value;
        break;
      }
    }
    if (a->value > was && rose->n < CB_MAX_COUNTERS) {
      rose->c[rose->n] = *a;
      rose->c[rose->n++].value = a->value - was;
    }
  }
  return rose->n;
}
