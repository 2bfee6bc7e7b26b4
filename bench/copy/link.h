/* The name of the link between two GPUs of the copy matrix (link.c). */
#ifndef CB_COPY_LINK_H
#define CB_COPY_LINK_H

/* The link between two GPUs. With NVML: NVLink when an active link joins
 * them directly or both have active links to NVSwitches, else PCIe.
 * Without NVML: NVLink when peer access is possible and peer atomics are
 * native (PCIe peers lack them), else PCIe. "local" for one GPU. */
const char *cb_copy_link(int same_gpu, int nvml_known, int nvlink_direct, int both_on_switch,
                         int p2p_access, int native_atomics);

#endif
