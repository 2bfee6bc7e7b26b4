/* The GPUs of this node: CUDA runtime for what every GPU has (no context
 * is created: only properties are read), NVML loaded with dlopen for the
 * driver version and NVLinks, and the NCCL version. */
#include <dlfcn.h>
#include <string.h>

#include "config.h"
#include "node.h"
#include "nvml.h"
#include "runtime/gpu.h"

#include <stdio.h>

#if CB_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#if CB_HAVE_NCCL
#include <nccl.h>
#endif

#if CB_HAVE_CUDA /* NVML is only asked about GPUs the CUDA runtime found */
static void nvml_links(const struct cb_nvml *m, struct cb_probe_gpu *g) {
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
  const struct cb_nvml *m = cb_nvml(NULL, 0);
  if (m)
    m->driver_version(n->driver, sizeof n->driver);
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
    if (m)
      nvml_links(m, g);
  }
}
#else
void cb_probe_gpus(struct cb_probe_node *n) {
  cb_gpu_devices(n->gpu_why, sizeof n->gpu_why);
  nccl_version(n);
}
#endif
