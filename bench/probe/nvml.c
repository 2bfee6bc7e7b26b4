/* NVML loaded once (nvml.h). */
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static struct cb_nvml nvml;
static int state; /* 0 not tried, 1 usable, -1 not */
static char state_why[96];

#define SYM(field, name) *(void **)&nvml.field = dlsym(lib, name)

const struct cb_nvml *cb_nvml(char *why, unsigned len) {
  if (state == 0) {
    state = -1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    nvml_return (*init)(void) = NULL;
    if (!lib)
      snprintf(state_why, sizeof state_why, "no libnvidia-ml.so.1 (no NVIDIA driver)");
    else if (!(*(void **)&init = dlsym(lib, "nvmlInit_v2")) || init() != 0)
      snprintf(state_why, sizeof state_why, "nvmlInit_v2 failed (driver not loaded?)");
    else {
      SYM(driver_version, "nvmlSystemGetDriverVersion");
      SYM(count, "nvmlDeviceGetCount_v2");
      SYM(by_index, "nvmlDeviceGetHandleByIndex_v2");
      SYM(by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
      SYM(pci, "nvmlDeviceGetPciInfo_v3");
      SYM(link_state, "nvmlDeviceGetNvLinkState");
      SYM(remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
      SYM(remote_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
      SYM(clock, "nvmlDeviceGetClockInfo");
      SYM(max_clock, "nvmlDeviceGetMaxClockInfo");
      SYM(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
      if (!nvml.reasons) /* the name before driver 535 */
        SYM(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
      SYM(ecc_mode, "nvmlDeviceGetEccMode");
      SYM(ecc_total, "nvmlDeviceGetTotalEccErrors");
      SYM(remapped, "nvmlDeviceGetRemappedRows");
      SYM(pcie_replay, "nvmlDeviceGetPcieReplayCounter");
      SYM(nvlink_errors, "nvmlDeviceGetNvLinkErrorCounter");
      SYM(violation, "nvmlDeviceGetViolationStatus");
      SYM(temperature, "nvmlDeviceGetTemperature");
      SYM(power, "nvmlDeviceGetPowerUsage");
      SYM(event_set_create, "nvmlEventSetCreate");
      SYM(register_events, "nvmlDeviceRegisterEvents");
      SYM(event_wait, "nvmlEventSetWait_v2");
      if (nvml.driver_version && nvml.count && nvml.by_index && nvml.by_bus_id && nvml.pci &&
          nvml.link_state)
        state = 1;
      else
        snprintf(state_why, sizeof state_why, "libnvidia-ml.so.1 lacks a function collbench uses");
    }
    /* kept loaded for the process: counters are read around every check */
  }
  if (why && len)
    snprintf(why, len, "%s", state == 1 ? "" : state_why);
  return state == 1 ? &nvml : NULL;
}

/* Xid events, counted per device and code as they are drained. */
#define MAX_XID 32
static struct {
  nvml_device d;
  unsigned code;
  unsigned long long n;
} xids[MAX_XID];
static int nxid;
static nvml_event_set events;
static int events_state; /* 0 not tried, 1 registered, -1 not available */

static void drain(void) {
  struct nvml_event e;
  for (int guard = 0; guard < 4096 && nvml.event_wait(events, &e, 0) == 0; guard++) {
    if (e.type != NVML_EVENT_XID)
      continue;
    int i = 0;
    while (i < nxid && !(xids[i].d == e.device && xids[i].code == (unsigned)e.data))
      i++;
    if (i == nxid && nxid < MAX_XID)
      xids[nxid++] = (typeof(xids[0])){e.device, (unsigned)e.data, 0};
    if (i < nxid)
      xids[i].n++;
  }
}

int cb_nvml_xids(nvml_device d, unsigned *codes, unsigned long long *counts, int max) {
  const struct cb_nvml *m = cb_nvml(NULL, 0);
  if (!m)
    return 0;
  if (events_state == 0) {
    events_state = -1;
    unsigned n = 0;
    if (m->event_set_create && m->register_events && m->event_wait && m->count(&n) == 0 &&
        m->event_set_create(&events) == 0) {
      for (unsigned i = 0; i < n; i++) {
        nvml_device x;
        if (m->by_index(i, &x) == 0 && m->register_events(x, NVML_EVENT_XID, events) == 0)
          events_state = 1; /* one device that can report is enough to listen */
      }
    }
  }
  if (events_state != 1)
    return 0;
  drain();
  int k = 0;
  for (int i = 0; i < nxid && k < max; i++)
    if (xids[i].d == d) {
      codes[k] = xids[i].code;
      counts[k++] = xids[i].n;
    }
  return k;
}
