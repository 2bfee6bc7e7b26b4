/* Each GPU's state through NVML (node.h's struct cb_gpu_health): SM clock
 * now and at most with the clock event reasons, ECC mode and uncorrectable
 * errors since the driver loaded, row remapping, PCIe replays, NVLinks not
 * active, temperature and power. What acceptance explains a slow GPU with:
 * throttling (thermal, hardware slowdown, power brake), memory errors, a
 * link down. Sources: NVIDIA's NVML API reference (nvmlDevice* queries,
 * nvmlClocksEventReasons). Never fails: an answer NVML does not give is -1. */
#include <stdio.h>
#include <string.h>

#include "gpu_health.h"
#include "node.h"
#include "nvml.h"

static void one(const struct cb_nvml *m, nvml_device d, struct cb_gpu_health *g) {
  unsigned u = 0, v = 0, w = 0, x = 0;
  unsigned long long ull = 0;
  int cur = 0, pend = 0;
  g->reasons = g->ecc_uncorrected = g->pcie_replay = -1;
  g->ecc = g->remap_pending = g->remap_failed = g->nvlinks = g->nvlinks_down = -1;
  g->temperature_c = -1;
  g->power_w = -1;
  if (m->clock && m->clock(d, NVML_CLOCK_SM, &u) == 0)
    g->sm_mhz = (int)u;
  if (m->max_clock && m->max_clock(d, NVML_CLOCK_SM, &u) == 0)
    g->sm_max_mhz = (int)u;
  if (m->reasons && m->reasons(d, &ull) == 0)
    g->reasons = (long long)ull;
  if (m->ecc_mode && m->ecc_mode(d, &cur, &pend) == 0)
    g->ecc = cur == NVML_FEATURE_ENABLED;
  /* NVML_MEMORY_ERROR_TYPE_UNCORRECTED (1), NVML_VOLATILE_ECC (0) */
  if (g->ecc == 1 && m->ecc_total && m->ecc_total(d, 1, 0, &ull) == 0)
    g->ecc_uncorrected = (long long)ull;
  if (m->remapped && m->remapped(d, &u, &v, &w, &x) == 0)
    g->remap_pending = w != 0, g->remap_failed = x != 0;
  if (m->pcie_replay && m->pcie_replay(d, &u) == 0)
    g->pcie_replay = u;
  g->nvlinks = g->nvlinks_down = 0;
  for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
    int active = 0;
    if (m->link_state(d, l, &active) != 0) /* NOT_SUPPORTED: no such link */
      continue;
    g->nvlinks++;
    g->nvlinks_down += active != NVML_FEATURE_ENABLED;
  }
  if (m->temperature && m->temperature(d, NVML_TEMPERATURE_GPU, &u) == 0)
    g->temperature_c = (int)u;
  if (m->power && m->power(d, &u) == 0)
    g->power_w = u / 1000.0;
}

void cb_probe_gpu_health(struct cb_evidence *e) {
  const struct cb_nvml *m = cb_nvml(e->nvml_why, sizeof e->nvml_why);
  unsigned n = 0;
  if (!m)
    return;
  if (m->count(&n) != 0) {
    snprintf(e->nvml_why, sizeof e->nvml_why, "nvmlDeviceGetCount_v2 failed");
    return;
  }
  for (unsigned i = 0; i < n && e->ngpus < CB_EVID_MAX_GPUS; i++) {
    nvml_device d;
    struct nvml_pci_info pci;
    if (m->by_index(i, &d) != 0 || m->pci(d, &pci) != 0)
      continue;
    struct cb_gpu_health *g = &e->gpus[e->ngpus++];
    memset(g, 0, sizeof *g);
    /* NVML's "00000000:1B:00.0" in sysfs's form, "0000:1b:00.0" */
    snprintf(g->bus_id, sizeof g->bus_id, "%04x:%02x:%02x.0", pci.domain & 0xffff, pci.bus,
             pci.device);
    one(m, d, g);
  }
}

/* nvmlClocksEventReasons bits and their names (nvml.h). */
static const struct {
  long long bit;
  const char *name;
} reason_names[] = {
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake"},
    {0x100, "display_clocks"},
};

const char *cb_gpu_reason_name(int i, long long *bit) {
  if (i < 0 || i >= (int)(sizeof reason_names / sizeof reason_names[0]))
    return NULL;
  *bit = reason_names[i].bit;
  return reason_names[i].name;
}
