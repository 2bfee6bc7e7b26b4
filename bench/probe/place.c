/* NUMA and PCI placement through hwloc: counts of packages, cores and NUMA
 * nodes, each GPU's and NIC's NUMA node, and how far each GPU is from each
 * NIC in nvidia-smi topo -m's terms. */
#include <string.h>

#include "config.h"
#include "node.h"

#include <stdio.h>

#if CB_HAVE_HWLOC
#include <hwloc.h>

static int numa_of(hwloc_topology_t t, hwloc_obj_t dev) {
  hwloc_obj_t cpu = hwloc_get_non_io_ancestor_obj(t, dev);
  if (!cpu || !cpu->nodeset || hwloc_bitmap_weight(cpu->nodeset) != 1)
    return -1;
  return hwloc_bitmap_first(cpu->nodeset);
}

static int bridges_between(hwloc_obj_t dev, hwloc_obj_t top) {
  int n = 0;
  for (hwloc_obj_t o = dev->parent; o && o != top; o = o->parent)
    n += o->type == HWLOC_OBJ_BRIDGE;
  return n;
}

static const char *distance(hwloc_topology_t t, hwloc_obj_t a, hwloc_obj_t b) {
  hwloc_obj_t common = hwloc_get_common_ancestor_obj(t, a, b);
  if (!common)
    return "?";
  int below = bridges_between(a, common), other = bridges_between(b, common);
  if (other > below)
    below = other;
  enum cb_ancestor kind = CB_ANC_CPU;
  if (common->type == HWLOC_OBJ_BRIDGE)
    kind = common->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST ? CB_ANC_HOST_BRIDGE
                                                                       : CB_ANC_PCI_BRIDGE;
  else if (common->type == HWLOC_OBJ_PCI_DEVICE)
    kind = CB_ANC_PCI_BRIDGE;
  hwloc_obj_t ca = hwloc_get_non_io_ancestor_obj(t, a), cb = hwloc_get_non_io_ancestor_obj(t, b);
  int same_numa =
      ca && cb && ca->nodeset && cb->nodeset && hwloc_bitmap_isequal(ca->nodeset, cb->nodeset);
  return cb_pci_distance(kind, below, same_numa);
}

void cb_probe_placement(struct cb_probe_node *n) {
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0) {
    snprintf(n->placement, sizeof n->placement, "unknown (hwloc_topology_init failed)");
    return;
  }
  hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(t) != 0) {
    snprintf(n->placement, sizeof n->placement, "unknown (hwloc_topology_load failed)");
    hwloc_topology_destroy(t);
    return;
  }
  n->packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  n->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  n->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  n->numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  hwloc_obj_t gpu[CB_PROBE_MAX_GPUS] = {0}, nic[CB_PROBE_MAX_NICS] = {0};
  int pci_devices = 0;
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(t, o));)
    pci_devices++;
  for (int g = 0; g < n->ngpus; g++)
    if ((gpu[g] = hwloc_get_pcidev_by_busidstring(t, n->gpus[g].bus_id)))
      n->gpus[g].numa = numa_of(t, gpu[g]);
  for (int i = 0; i < n->nnics; i++)
    if (n->nics[i].bus_id[0] && (nic[i] = hwloc_get_pcidev_by_busidstring(t, n->nics[i].bus_id)))
      n->nics[i].numa = numa_of(t, nic[i]);
  for (int g = 0; g < n->ngpus; g++)
    for (int i = 0; i < n->nnics; i++)
      if (gpu[g] && nic[i])
        snprintf(n->gpu_nic[g][i], sizeof n->gpu_nic[g][i], "%s", distance(t, gpu[g], nic[i]));
  snprintf(n->placement, sizeof n->placement, "hwloc %s, %d PCI devices seen", HWLOC_VERSION,
           pci_devices);
  hwloc_topology_destroy(t);
}

#else
void cb_probe_placement(struct cb_probe_node *n) {
  snprintf(n->placement, sizeof n->placement,
           "unknown (built without hwloc: install libhwloc-dev and run ./configure)");
}
#endif
