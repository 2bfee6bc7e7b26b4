/* The path NCCL actually used, read from its own INFO log (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS
 * including INIT and GRAPH) (nccl_log.h says more). */
#include "nccl_log.h"

#include <stdio.h>
#include <string.h>

enum path {
  NVLINK,
  NVLS,
  PCIE,
  P2P,
  SHM,
  NET_IB,
  NET_ROCE,
  NET_SOCKET,
  NET_OTHER,
  COLLNET,
  NPATHS
};
static const char *const path_names[NPATHS] = {
    "nvlink", "nvls", "pcie", "p2p", "shm", "net-ib", "net-roce", "net-socket", "net", "collnet"};

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
    /* NVLink SHARP's buffers, set up when NVLS is first used (nvls.cc:
     * "NVLS comm %p headRank %d nHeads %d nvlsRanks %d buffSize %zu ...") */
    else if (find_in(line, end, "INFO NVLS comm "))
      seen[NVLS] = 1;
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

/* NCCL's log spellings (ncclAlgoToString, ncclProtoToString; numbers in
 * older logs are the same indexes) and the NCCL_ALGO/NCCL_PROTO names. */
static const char *const algo_log[] = {
    "TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
static const char *const algo_names[] = {
    "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
static const char *const proto_log[] = {"LL", "LL128", "SIMPLE"};
static const char *const proto_names[] = {"LL", "LL128", "Simple"};
#define NALGOS (int)(sizeof algo_log / sizeof algo_log[0])
#define NPROTOS (int)(sizeof proto_log / sizeof proto_log[0])

/* The index of the word at p (up to a space) in names, or its number; -1. */
static int word_index(const char *p, const char *end, const char *const *names, int n) {
  const char *w = p;
  while (w < end && *w != ' ')
    w++;
  size_t len = (size_t)(w - p);
  for (int i = 0; i < n; i++)
    if (strlen(names[i]) == len && memcmp(p, names[i], len) == 0)
      return i;
  if (len == 1 && *p >= '0' && *p < '0' + n)
    return *p - '0';
  return -1;
}

/* Parses "FUNC: BYTES Bytes -> Algo A proto P" after "NCCL INFO ". */
static int tuning_line(const char *line, const char *end, const char *func, uint64_t bytes,
                       int *algo, int *proto, int *channels) {
  const char *p = find_in(line, end, "NCCL INFO ");
  if (!p)
    return 0;
  p += strlen("NCCL INFO ");
  size_t n = strlen(func);
  if (!starts(p, end, func) || !starts(p + n, end, ": "))
    return 0;
  p += n + 2;
  uint64_t b = 0;
  const char *digits = p;
  while (p < end && *p >= '0' && *p <= '9')
    b = b * 10 + (uint64_t)(*p++ - '0');
  if (p == digits || b != bytes || !starts(p, end, " Bytes -> Algo "))
    return 0;
  p += strlen(" Bytes -> Algo ");
  *algo = word_index(p, end, algo_log, NALGOS);
  const char *q = find_in(p, end, " proto ");
  *proto = q ? word_index(q + 7, end, proto_log, NPROTOS) : -1;
  /* "channel{Lo..Hi}={0..1}": channels Lo to Hi, both included */
  const char *ch = find_in(p, end, "channel{Lo..Hi}={");
  int lo, hi;
  *channels = 0;
  if (ch && sscanf(ch + strlen("channel{Lo..Hi}={"), "%d..%d", &lo, &hi) == 2 && hi >= lo &&
      lo >= 0)
    *channels = hi - lo + 1;
  return *algo >= 0 || *proto >= 0;
}

static void join(const int *seen, const char *const *names, int n, char *buf, size_t len) {
  size_t used = 0;
  if (len)
    buf[0] = '\0';
  for (int i = 0; i < n; i++)
    if (seen[i] && used < len)
      used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "+" : "", names[i]);
}

void cb_nccl_log_choice(const char *text, const char *func, uint64_t bytes, char *algo, size_t alen,
                        char *proto, size_t plen, int *channels) {
  int algos[NALGOS] = {0}, protos[NPROTOS] = {0};
  *channels = 0;
  for (const char *line = text; func && line && *line;) {
    const char *end = strchr(line, '\n');
    if (!end)
      end = line + strlen(line);
    int a, p, ch;
    if (tuning_line(line, end, func, bytes, &a, &p, &ch)) {
      *channels = ch > *channels ? ch : *channels;
      if (a >= 0)
        algos[a] = 1;
      if (p >= 0)
        protos[p] = 1;
    }
    line = *end ? end + 1 : end;
  }
  join(algos, algo_names, NALGOS, algo, alen);
  join(protos, proto_names, NPROTOS, proto, plen);
}

const char *cb_nccl_func_name(const char *op) {
  static const char *const names[][2] = {{"allreduce", "AllReduce"},
                                         {"allgather", "AllGather"},
                                         {"reducescatter", "ReduceScatter"},
                                         {"broadcast", "Broadcast"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(op, names[i][0]) == 0)
      return names[i][1];
  return NULL;
}

void cb_nccl_log_net(const char *text, int *nics, int *gdr) {
  int net = 0, direct = 0;
  *nics = 0;
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    if (!end)
      end = line + strlen(line);
    const char *p = find_in(line, end, " : Using ");
    if (p && find_in(line, end, "INFO NET/")) {
      int n = 0; /* "[0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ..." up to the ';' */
      for (const char *q = p; q < end && *q != ';'; q++)
        n += q[0] == '[' && q[1] >= '0' && q[1] <= '9';
      *nics = n;
    }
    if (find_in(line, end, "INFO Channel") && (p = find_in(line, end, " via NET/"))) {
      net = 1;
      direct |= find_in(p, end, "GDRDMA") != NULL;
    }
    line = *end ? end + 1 : end;
  }
  *gdr = direct ? 1 : net ? -1 : 0;
}
