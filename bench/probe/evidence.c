/* The evidence of node.h's struct cb_evidence, read through base/sysfs.h
 * so a moved root (COLLBENCH_SYSFS_ROOT) moves all of it. Sources: the
 * kernel's sysfs ABI (Documentation/ABI/testing/sysfs-bus-pci:
 * current_link_speed, max_link_speed, current_link_width, max_link_width;
 * sysfs-kernel-iommu_groups: type), the PCIe base specification's ACS
 * extended capability (ID 0x000d, its control register at +6, as lspci's
 * ACSCtl shows it) and NVIDIA's GPUDirect RDMA guide (the nvidia-peermem
 * module). Nothing here fails: what cannot be read is left unknown. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sysfs.h"
#include "evidence.h"

/* "16.0 GT/s PCIe" -> 16; "Unknown" -> 0 */
static double gts_of(const char *s) {
  double v = atof(s);
  return v > 0 && v < 1000 ? v : 0;
}

/* The bridges above a PCI device, nearest first, from where its
 * /sys/bus/pci/devices link points (../../../devices/pci0000:00/0000:00:01.0/...). */
static void bridges_of(struct cb_evid_dev *d) {
  char target[1024], *comp[64];
  int n = 0;
  if (!cb_sysfs_link(target, sizeof target, "/sys/bus/pci/devices/%s", d->bus_id))
    return;
  for (char *save, *t = strtok_r(target, "/", &save); t && n < 64; t = strtok_r(NULL, "/", &save)) {
    unsigned a, b, c, f;
    if (sscanf(t, "%x:%x:%x.%x", &a, &b, &c, &f) == 4)
      comp[n++] = t;
  }
  d->npath = 0; /* comp[n-1] is the device itself */
  for (int i = n - 2; i >= 0 && d->npath < CB_EVID_MAX_PATH; i--)
    cb_probe_copy(d->path[d->npath++], sizeof d->path[0], comp[i]);
}

static struct cb_evid_dev *add_dev(struct cb_evidence *e, char kind, const char *name,
                                   const char *bus_id) {
  if (e->ndevs == CB_EVID_MAX_DEVS)
    return NULL;
  struct cb_evid_dev *d = &e->devs[e->ndevs++];
  memset(d, 0, sizeof *d);
  d->kind = kind;
  cb_probe_copy(d->name, sizeof d->name, name);
  cb_probe_copy(d->bus_id, sizeof d->bus_id, bus_id);
  char v[64];
  uint64_t w;
  if (cb_sysfs_line(v, sizeof v, "/sys/bus/pci/devices/%s/current_link_speed", bus_id))
    d->gts = gts_of(v);
  if (cb_sysfs_line(v, sizeof v, "/sys/bus/pci/devices/%s/max_link_speed", bus_id))
    d->max_gts = gts_of(v);
  if (cb_sysfs_u64(&w, "/sys/bus/pci/devices/%s/current_link_width", bus_id) == 1 && w <= 32)
    d->width = (int)w;
  if (cb_sysfs_u64(&w, "/sys/bus/pci/devices/%s/max_link_width", bus_id) == 1 && w <= 32)
    d->max_width = (int)w;
  if (cb_sysfs_line(v, sizeof v, "/sys/bus/pci/devices/%s/iommu_group/type", bus_id))
    cb_probe_copy(d->iommu, sizeof d->iommu, v);
  else
    snprintf(d->iommu, sizeof d->iommu, "%s",
             cb_sysfs_exists("/sys/bus/pci/devices/%s/iommu_group", bus_id) ? "?" : "none");
  bridges_of(d);
  return d;
}

/* NVIDIA display and 3D controllers (vendor 0x10de, class 0x03xxxx). */
static void find_gpus(struct cb_evidence *e) {
  char dir[1024];
  struct dirent **names;
  int n = scandir(cb_sysfs_path(dir, sizeof dir, "/sys/bus/pci/devices"), &names, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    uint64_t vendor, cls;
    const char *b = names[i]->d_name;
    if (b[0] != '.' && cb_sysfs_hex(&vendor, "/sys/bus/pci/devices/%s/vendor", b) == 1 &&
        vendor == 0x10de && cb_sysfs_hex(&cls, "/sys/bus/pci/devices/%s/class", b) == 1 &&
        cls >> 16 == 0x03) {
      add_dev(e, 'G', "GPU", b);
    }
    free(names[i]);
  }
  if (n >= 0)
    free(names);
}

/* Each RDMA device's PCI function (/sys/class/infiniband/DEV/device). */
static void find_nics(struct cb_evidence *e) {
  char dir[1024];
  struct dirent **names;
  int n = scandir(cb_sysfs_path(dir, sizeof dir, "/sys/class/infiniband"), &names, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    char link[1024], bus[16];
    const char *dev = names[i]->d_name;
    snprintf(link, sizeof link, "/sys/class/infiniband/%s/device", dev);
    if (dev[0] != '.' && (cb_probe_pci_of(link, bus, sizeof bus), bus[0]))
      add_dev(e, 'N', dev, bus); /* the form nics.c gives the NIC's record */
    free(names[i]);
  }
  if (n >= 0)
    free(names);
}

int cb_pcie_gen(double gts) {
  static const double g[] = {2.5, 5, 8, 16, 32, 64};
  for (int i = 0; i < 6; i++)
    if (gts > 0 && gts < g[i] * 1.1)
      return i + 1;
  return 0;
}

int cb_evid_downtrained(const struct cb_evid_dev *d) {
  return (d->gts > 0 && d->max_gts > 0 && d->gts < d->max_gts * 0.99) ||
         (d->width > 0 && d->max_width > 0 && d->width < d->max_width);
}

int cb_pci_acs_ctrl(const unsigned char *cfg, size_t n) {
  size_t off = 0x100;
  for (int guard = 0; guard < 96 && off >= 0x100 && off + 8 <= n; guard++) {
    unsigned hdr = cfg[off] | cfg[off + 1] << 8 | cfg[off + 2] << 16 | (unsigned)cfg[off + 3] << 24;
    if (hdr == 0 || hdr == 0xffffffffu)
      return -1;
    if ((hdr & 0xffff) == 0x000d)
      return cfg[off + 6] | cfg[off + 7] << 8;
    off = (hdr >> 20) & 0xffc;
  }
  return -1;
}

/* The deepest bridge two devices share: its index in a's path, -1 none. */
static int common_at(const struct cb_evid_dev *a, const struct cb_evid_dev *b, int *in_b) {
  for (int i = 0; i < a->npath; i++)
    for (int j = 0; j < b->npath; j++)
      if (strcmp(a->path[i], b->path[j]) == 0) {
        *in_b = j;
        return i;
      }
  return -1;
}

/* One bridge on the way between GPU g and NIC c: its ACS control read
 * from config space (past the first 256 bytes: root only). */
static void check_bridge(struct cb_evidence *e, const char *bridge, const struct cb_evid_dev *g,
                         const struct cb_evid_dev *c) {
  unsigned char cfg[4096];
  ssize_t n = cb_sysfs_bytes(cfg, sizeof cfg, "/sys/bus/pci/devices/%s/config", bridge);
  if (n <= 0x100) {
    e->acs_known = 0;
    snprintf(e->acs_why, sizeof e->acs_why, "%s: %s", bridge,
             n < 0 ? "no config space" : "extended config space unreadable (root reads it)");
    return;
  }
  int ctrl = cb_pci_acs_ctrl(cfg, (size_t)n);
  if (ctrl < 0 || !(ctrl & (CB_ACS_REQ_REDIR | CB_ACS_CMPL_REDIR)))
    return;
  for (int i = 0; i < e->nacs; i++)
    if (strncmp(e->acs[i], bridge, strlen(bridge)) == 0)
      return;
  if (e->nacs < CB_EVID_MAX_ACS)
    snprintf(e->acs[e->nacs++], sizeof e->acs[0], "%s (%.12s <-> %.12s):%s%s", bridge, g->bus_id,
             c->name, ctrl & CB_ACS_REQ_REDIR ? " ReqRedir" : "",
             ctrl & CB_ACS_CMPL_REDIR ? " CmplRedir" : "");
}

/* ACS between each GPU and its nearest NIC: the bridges below their
 * deepest common one, and that one (a PCIe switch's ports). */
static void find_acs(struct cb_evidence *e) {
  e->acs_known = 1;
  for (int i = 0; i < e->ndevs; i++) {
    const struct cb_evid_dev *g = &e->devs[i], *best = NULL;
    int best_at = CB_EVID_MAX_PATH, best_j = 0;
    if (g->kind != 'G')
      continue;
    for (int k = 0; k < e->ndevs; k++) {
      int j, at;
      if (e->devs[k].kind == 'N' && (at = common_at(g, &e->devs[k], &j)) >= 0 && at < best_at)
        best = &e->devs[k], best_at = at, best_j = j;
    }
    if (!best) /* no shared bridge: peer traffic crosses the root complex anyway */
      continue;
    for (int a = 0; a <= best_at; a++)
      check_bridge(e, g->path[a], g, best);
    for (int b = 0; b < best_j; b++)
      check_bridge(e, best->path[b], g, best);
  }
}

static void find_gdr(struct cb_evidence *e) {
  int gpus = 0, nics = 0;
  for (int i = 0; i < e->ndevs; i++)
    gpus += e->devs[i].kind == 'G', nics += e->devs[i].kind == 'N';
  if (cb_sysfs_exists("/sys/module/nvidia_peermem") || cb_sysfs_exists("/sys/module/nv_peer_mem")) {
    e->gdr = 1;
    snprintf(e->gdr_why, sizeof e->gdr_why, "nvidia-peermem loaded (/sys/module)");
  } else if (!gpus || !nics) {
    e->gdr = -1;
    snprintf(e->gdr_why, sizeof e->gdr_why, "no %s here", gpus ? "RDMA NIC" : "NVIDIA GPU");
  } else {
    e->gdr = 0;
    snprintf(e->gdr_why, sizeof e->gdr_why,
             "no nvidia_peermem or nv_peer_mem module; dma-buf not checked (needs CUDA)");
  }
}

void cb_probe_evidence(struct cb_probe_node *n) {
  struct cb_evidence *e = &n->evidence;
  memset(e, 0, sizeof *e);
  find_gpus(e);
  find_nics(e);
  find_acs(e);
  find_gdr(e);
  cb_probe_gpu_health(e);
}
