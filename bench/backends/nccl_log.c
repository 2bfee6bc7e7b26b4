#include "nccl_log.h"

#include <stdio.h>
#include <string.h>

enum path { NVLINK, PCIE, P2P, SHM, NET_IB, NET_ROCE, NET_SOCKET, NET_OTHER, COLLNET, NPATHS };
static const char *const path_names[NPATHS] = {"nvlink",   "pcie",       "p2p", "shm",    "net-ib",
                                               "net-roce", "net-socket", "net", "collnet"};

/* Whether the line [line, end) contains `word`. */
static const char *find_in(const char *line, const char *end, const char *word) {
  size_t n = strlen(word);
  for (const char *p = line; p + n <= end; p++)
    if (memcmp(p, word, n) == 0)
      return p;
  return NULL;
}

static int starts(const char *p, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - p) >= n && memcmp(p, word, n) == 0;
}

/* "via P2P/CUMEM", "via SHM/direct/direct", "via NET/IB/0/GDRDMA",
 * "via NET/Socket/1", "via NET/IBext_v8/0", "via COLLNET/..." */
static void connection(const char *via, const char *end, int *seen, int roce) {
  if (starts(via, end, "P2P"))
    seen[P2P] = 1;
  else if (starts(via, end, "SHM"))
    seen[SHM] = 1;
  else if (starts(via, end, "NET/IB"))
    seen[roce ? NET_ROCE : NET_IB] = 1;
  else if (starts(via, end, "NET/Socket"))
    seen[NET_SOCKET] = 1;
  else if (starts(via, end, "NET/"))
    seen[NET_OTHER] = 1;
  else if (starts(via, end, "COLLNET"))
    seen[COLLNET] = 1;
}

/* "Pattern 4, crossNic 0, nChannels 2, bw 20.0/20.0, type NVL/PIX, ...":
 * the first type is the GPU-to-GPU path within a node. */
static void graph_type(const char *type, const char *end, int *nvl, int *pci) {
  if (starts(type, end, "NVL") || starts(type, end, "NVB"))
    *nvl = 1;
  else if (starts(type, end, "PIX") || starts(type, end, "PXB") || starts(type, end, "PHB") ||
           starts(type, end, "SYS") || starts(type, end, "PXN") || starts(type, end, "P2C"))
    *pci = 1;
}

void cb_nccl_log_paths(const char *text, char *label, size_t len) {
  int seen[NPATHS] = {0}, nvl = 0, pci = 0, roce = 0;
  if (len)
    label[0] = '\0';
  /* RoCE shows only in the IB plugin's device line ("NET/IB : Using
   * [0]mlx5_0:1/RoCE"); connections say NET/IB either way. */
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    if (!end)
      end = line + strlen(line);
    if (find_in(line, end, "NET/IB : Using") && find_in(line, end, "/RoCE"))
      roce = 1;
    line = *end ? end + 1 : end;
  }
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    if (!end)
      end = line + strlen(line);
    const char *p;
    if (find_in(line, end, "INFO Channel") && (p = find_in(line, end, " via ")))
      connection(p + 5, end, seen, roce);
    else if (find_in(line, end, "INFO Pattern") && (p = find_in(line, end, "type ")))
      graph_type(p + 5, end, &nvl, &pci);
    line = *end ? end + 1 : end;
  }
  if (seen[P2P] && (nvl || pci)) { /* the graph says which link P2P used */
    seen[P2P] = 0;
    seen[NVLINK] = nvl;
    seen[PCIE] = pci && !nvl;
  }
  size_t used = 0;
  for (int i = 0; i < NPATHS; i++)
    if (seen[i] && used < len)
      used += (size_t)snprintf(label + used, len - used, "%s%s", used ? "+" : "", path_names[i]);
}
