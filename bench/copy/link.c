/* Naming the link of a GPU pair: pure, so it is unit-tested. */
#include "link.h"

const char *cb_copy_link(int same_gpu, int nvml_known, int nvlink_direct, int both_on_switch,
                         int p2p_access, int native_atomics) {
  if (same_gpu)
    return "local";
  if (nvml_known)
    return nvlink_direct || both_on_switch ? "NVLink" : "PCIe";
  return p2p_access && native_atomics ? "NVLink" : "PCIe";
}
