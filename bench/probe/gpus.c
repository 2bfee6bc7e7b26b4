/* The GPUs of this node: CUDA runtime for what every GPU has (no context
 * is created: only properties are read), NVML loaded with dlopen for the
 * driver version and NVLinks, and the NCCL version. */
#include <dlfcn.h>
#include <string.h>

#include "core/gpu.h"
#include "config.h"
#include "node.h"

#include <stdio.h>

#if CB_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#if CB_HAVE_NCCL
#include <nccl.h>
#endif

#if CB_HAVE_CUDA /* NVML is only asked about GPUs the CUDA runtime found */
/* The few NVML declarations needed, as in nvml.h (not installed here). */
typedef int nvml_return;
typedef struct nvml_device *nvml_device;
struct nvml_pci_info { /* nvmlPciInfo_t */
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_NVLINK_DEVICE_TYPE_SWITCH 2
#define NVML_FEATURE_ENABLED 1

struct nvml {
  void *lib;
  nvml_return (*init)(void);
  nvml_return (*shutdown)(void);
  nvml_return (*driver_version)(char *version, unsigned int length);
  nvml_return (*by_bus_id)(const char *pciBusId, nvml_device *device);
  nvml_return (*link_state)(nvml_device device, unsigned int link, int *isActive);
  nvml_return (*remote_pci)(nvml_device device, unsigned int link, struct nvml_pci_info *pci);
  nvml_return (*remote_type)(nvml_device device, unsigned int link, int *type);
};

static int nvml_open(struct nvml *m) {
  memset(m, 0, sizeof *m);
  m->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!m->lib)
    return 0;
  *(void **)&m->init = dlsym(m->lib, "nvmlInit_v2");
  *(void **)&m->shutdown = dlsym(m->lib, "nvmlShutdown");
  *(void **)&m->driver_version = dlsym(m->lib, "nvmlSystemGetDriverVersion");
  *(void **)&m->by_bus_id = dlsym(m->lib, "nvmlDeviceGetHandleByPciBusId_v2");
  *(void **)&m->link_state = dlsym(m->lib, "nvmlDeviceGetNvLinkState");
  *(void **)&m->remote_pci = dlsym(m->lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  *(void **)&m->remote_type = dlsym(m->lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
  if (!m->init || !m->shutdown || !m->driver_version || !m->by_bus_id || !m->link_state ||
      m->init() != 0) {
    dlclose(m->lib);
    m->lib = NULL;
    return 0;
  }
  return 1;
}

static void nvml_close(struct nvml *m) {
  if (m->lib) {
    m->shutdown();
    dlclose(m->lib);
  }
}

static void nvml_links(struct nvml *m, struct cb_probe_gpu *g) {
  nvml_device dev;
  g->nvlinks = -1;
  if (m->by_bus_id(g->bus_id, &dev) != 0)
    return;
  g->nvlinks = 0;
  for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
    int active = 0;
    if (m->link_state(dev, l, &active) != 0) /* NOT_SUPPORTED past the last link */
      continue;
    g->nvlinks++;
    if (active != NVML_FEATURE_ENABLED)
      continue;
    g->nvlinks_active++;
    int type = -1;
    if (m->remote_type && m->remote_type(dev, l, &type) == 0 &&
        type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
      g->nvlinks_to_switch++;
      continue;
    }
    struct nvml_pci_info pci;
    if (!m->remote_pci || m->remote_pci(dev, l, &pci) != 0)
      continue;
    int seen = 0;
    for (int p = 0; p < g->npeers; p++)
      seen |= strcasecmp(g->nvlink_peers[p], pci.busId) == 0;
    if (!seen && g->npeers < 8)
      snprintf(g->nvlink_peers[g->npeers++], sizeof g->nvlink_peers[0], "%s", pci.busId);
  }
}
#endif

/* The NCCL this process would use: the loaded library's own answer, else
 * the header this binary was built with. */
static void nccl_version(struct cb_probe_node *n) {
  void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  char v[32];
  if (lib) {
    int (*get)(int *) = NULL;
    *(void **)&get = dlsym(lib, "ncclGetVersion");
    int code = 0;
    if (get && get(&code) == 0 && code > 0) {
      cb_nccl_version_string(code, v, sizeof v);
      snprintf(n->nccl, sizeof n->nccl, "%s (library)", v);
    }
    dlclose(lib);
  }
#if CB_HAVE_NCCL
  if (!n->nccl[0]) {
    cb_nccl_version_string(NCCL_VERSION_CODE, v, sizeof v);
    snprintf(n->nccl, sizeof n->nccl, "%.12s (header; no libnccl.so.2)", v);
  }
#endif
}

#if CB_HAVE_CUDA
void cb_probe_gpus(struct cb_probe_node *n) {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess)
    cb_cuda_version_string(v, n->cuda_runtime, sizeof n->cuda_runtime);
  if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0)
    cb_cuda_version_string(v, n->cuda_driver, sizeof n->cuda_driver);
  else
    snprintf(n->cuda_driver, sizeof n->cuda_driver, "none");
  nccl_version(n);
  int count = cb_gpu_devices(n->gpu_why, sizeof n->gpu_why);
  if (count == 0)
    return;
  struct nvml m;
  int have_nvml = nvml_open(&m);
  if (have_nvml)
    m.driver_version(n->driver, sizeof n->driver);
  n->ngpus = count < CB_PROBE_MAX_GPUS ? count : CB_PROBE_MAX_GPUS;
  for (int i = 0; i < n->ngpus; i++) {
    struct cb_probe_gpu *g = &n->gpus[i];
    struct cudaDeviceProp p;
    g->numa = -1;
    g->nvlinks = -1;
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) {
      snprintf(g->name, sizeof g->name, "unknown (cudaGetDeviceProperties failed)");
      continue;
    }
    cb_probe_copy(g->name, sizeof g->name, p.name);
    snprintf(g->bus_id, sizeof g->bus_id, "%04x:%02x:%02x.0", (unsigned)p.pciDomainID,
             (unsigned)p.pciBusID, (unsigned)p.pciDeviceID);
    g->mem_bytes = p.totalGlobalMem;
    g->sms = p.multiProcessorCount;
    g->cc_major = p.major;
    g->cc_minor = p.minor;
    if (have_nvml)
      nvml_links(&m, g);
  }
  if (have_nvml)
    nvml_close(&m);
}
#else
void cb_probe_gpus(struct cb_probe_node *n) {
  cb_gpu_devices(n->gpu_why, sizeof n->gpu_why);
  nccl_version(n);
}
#endif
