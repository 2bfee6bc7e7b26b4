/* How the probe names what it finds: PCI distances as nvidia-smi topo -m
 * does, bus ids, CUDA and NCCL versions. Pure; the pieces call these. */
#include <stdio.h>
#include <string.h>

#include "node.h"

const char *cb_pci_distance(enum cb_ancestor common, int bridges_below, int same_numa) {
  switch (common) {
  case CB_ANC_PCI_BRIDGE: return bridges_below <= 1 ? "PIX" : "PXB";
  case CB_ANC_HOST_BRIDGE: return "PHB";
  case CB_ANC_CPU: return same_numa ? "NODE" : "SYS";
  }
  return "?";
}

int cb_bus_id_same(const char *a, const char *b) {
  unsigned x[4] = {0}, y[4] = {0};
  int nx = sscanf(a, "%x:%x:%x.%x", &x[0], &x[1], &x[2], &x[3]);
  int ny = sscanf(b, "%x:%x:%x.%x", &y[0], &y[1], &y[2], &y[3]);
  return nx >= 3 && nx == ny && memcmp(x, y, sizeof x) == 0;
}

void cb_cuda_version_string(int v, char *buf, size_t len) {
  snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
}

void cb_nccl_version_string(int v, char *buf, size_t len) {
  if (v >= 20900) /* NCCL_VERSION(X,Y,Z) is X*10000+Y*100+Z from 2.9 on */
    snprintf(buf, len, "%d.%d.%d", v / 10000, v % 10000 / 100, v % 100);
  else
    snprintf(buf, len, "%d.%d.%d", v / 1000, v % 1000 / 100, v % 100);
}
