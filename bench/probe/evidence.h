/* The evidence acceptance explains a slow node or link with: each GPU's
 * and RDMA NIC's PCIe link, IOMMU domain and the bridges above it, ACS on
 * the way from a GPU to its nearest NIC, and whether GPUDirect RDMA can
 * work (evidence.c fills node.h's struct cb_evidence). */
#ifndef CB_PROBE_EVIDENCE_H
#define CB_PROBE_EVIDENCE_H

#include <stddef.h>

#include "node.h"

/* ACS control register bits (PCIe base specification, ACS extended
 * capability): peer requests and completions sent up to the root complex. */
#define CB_ACS_REQ_REDIR 0x4
#define CB_ACS_CMPL_REDIR 0x8

/* The ACS control register from n bytes of PCI config space, -1 when the
 * capability is absent or the space too short. Pure. */
int cb_pci_acs_ctrl(const unsigned char *cfg, size_t n);

/* The PCIe generation of a link speed in GT/s (2.5, 5, 8, 16, 32, 64:
 * Gen1-6); 0 when unknown. Pure. */
int cb_pcie_gen(double gts);
/* 1 when a device's PCIe link runs slower or narrower than it can. Pure. */
int cb_evid_downtrained(const struct cb_evid_dev *d);

#endif
