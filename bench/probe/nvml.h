/* NVML, loaded once with dlopen (the driver's libnvidia-ml.so.1; no NVIDIA
 * header or library at build time), for the probe's NVLinks and the GPU
 * evidence acceptance explains a slow node with: clocks and their event
 * reasons, ECC, row remapping, PCIe replays, NVLink errors, Xid events.
 * Declarations as in NVIDIA's nvml.h (NVML API reference, r580). */
#ifndef CB_PROBE_NVML_H
#define CB_PROBE_NVML_H

typedef int nvml_return; /* 0: NVML_SUCCESS */
typedef struct nvml_device *nvml_device;
typedef struct nvml_event_set *nvml_event_set;
struct nvml_pci_info { /* nvmlPciInfo_t */
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};
struct nvml_event { /* nvmlEventData_t */
  nvml_device device;
  unsigned long long type, data; /* data: the Xid for an Xid event */
  unsigned int gpu_instance, compute_instance;
};
struct nvml_violation { /* nvmlViolationTime_t: ns since the driver loaded */
  unsigned long long reference_time, violation_time;
};
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 2
#define NVML_FEATURE_ENABLED 1
#define NVML_CLOCK_SM 1
#define NVML_TEMPERATURE_GPU 0
#define NVML_EVENT_XID 0x8ULL /* nvmlEventTypeXidCriticalError */
#define NVML_ERROR_TIMEOUT 10
#define NVML_PERF_POLICY_POWER 0
#define NVML_PERF_POLICY_THERMAL 1
/* nvmlNvLinkErrorCounter_t */
#define NVML_NVLINK_ERROR_DL_REPLAY 0
#define NVML_NVLINK_ERROR_DL_RECOVERY 1
#define NVML_NVLINK_ERROR_DL_CRC_FLIT 2

struct cb_nvml {
  nvml_return (*driver_version)(char *version, unsigned int length);
  nvml_return (*count)(unsigned int *n);
  nvml_return (*by_index)(unsigned int i, nvml_device *d);
  nvml_return (*by_bus_id)(const char *bus_id, nvml_device *d);
  nvml_return (*pci)(nvml_device d, struct nvml_pci_info *pci);
  nvml_return (*link_state)(nvml_device d, unsigned int link, int *active);
  nvml_return (*remote_pci)(nvml_device d, unsigned int link, struct nvml_pci_info *pci);
  nvml_return (*remote_type)(nvml_device d, unsigned int link, int *type);
  /* the rest may be NULL: an older driver lacks some */
  nvml_return (*clock)(nvml_device d, int type, unsigned int *mhz);
  nvml_return (*max_clock)(nvml_device d, int type, unsigned int *mhz);
  nvml_return (*reasons)(nvml_device d, unsigned long long *mask);
  nvml_return (*ecc_mode)(nvml_device d, int *current, int *pending);
  nvml_return (*ecc_total)(nvml_device d, int error_type, int counter_type, unsigned long long *n);
  nvml_return (*remapped)(nvml_device d, unsigned int *corrected, unsigned int *uncorrected,
                          unsigned int *pending, unsigned int *failed);
  nvml_return (*pcie_replay)(nvml_device d, unsigned int *n);
  nvml_return (*nvlink_errors)(nvml_device d, unsigned int link, int counter,
                               unsigned long long *n);
  nvml_return (*violation)(nvml_device d, int policy, struct nvml_violation *t);
  nvml_return (*temperature)(nvml_device d, int sensor, unsigned int *c);
  nvml_return (*power)(nvml_device d, unsigned int *milliwatts);
  nvml_return (*event_set_create)(nvml_event_set *set);
  nvml_return (*register_events)(nvml_device d, unsigned long long types, nvml_event_set set);
  nvml_return (*event_wait)(nvml_event_set set, struct nvml_event *e, unsigned int timeout_ms);
};

/* NVML, initialised on first use and kept for the process (nvmlInit costs
 * tens of milliseconds, and acceptance reads the counters around every
 * check); NULL when the library is missing or will not initialise, with
 * why in why (may be NULL). */
const struct cb_nvml *cb_nvml(char *why, unsigned len);

/* The Xid events NVML has reported for device d since this process first
 * asked (events registered on the first call): how many of each Xid, up to
 * max distinct codes, into codes[] and counts[]; returns how many codes. */
int cb_nvml_xids(nvml_device d, unsigned *codes, unsigned long long *counts, int max);

#endif
