/* NCCL takes its paths and logging from the environment, read when the first communicator is
 * made (nccl_env.h says more). */
#include "nccl_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "runtime/settings.h"

const char *const cb_nccl_transports[] = {"auto", "nvlink", "pcie",   "shm", "net",
                                          "ib",   "roce",   "socket", NULL};

/* NCCL's environment variables (NCCL user guide, "Environment Variables":
 * NCCL_P2P_DISABLE, NCCL_P2P_LEVEL, NCCL_SHM_DISABLE, NCCL_NET). NCCL prefers NVLink whenever it
 * exists, so pcie only allows peer copies at any PCIe distance; the record says what NCCL actually
 * chose. Network choices turn off the node-local paths so even ranks on one node go through the
 * network. */
#define NO_LOCAL                                                                                   \
  {"NCCL_P2P_DISABLE", "1"}, {                                                                     \
    "NCCL_SHM_DISABLE", "1"                                                                        \
  }
static const struct {
  const char *transport;
  struct cb_env_setting env[6];
} table[] = {
    {"auto", {{NULL, NULL}}},
    {"nvlink", {{"NCCL_P2P_LEVEL", "NVL"}, {"NCCL_SHM_DISABLE", "1"}, {NULL, NULL}}},
    {"pcie",
     {{"NCCL_P2P_LEVEL", "SYS"},
      {"NCCL_SHM_DISABLE", "1"},
      {"NCCL_NVLS_ENABLE", "0"},
      {NULL, NULL}}},
    {"shm", {{"NCCL_P2P_DISABLE", "1"}, {NULL, NULL}}},
    {"net", {NO_LOCAL, {NULL, NULL}}},
    {"ib", {NO_LOCAL, {"NCCL_NET", "IB"}, {NULL, NULL}}},
    {"roce", {NO_LOCAL, {"NCCL_NET", "IB"}, {NULL, NULL}}},
    {"socket", {NO_LOCAL, {"NCCL_NET", "Socket"}, {"NCCL_IB_DISABLE", "1"}, {NULL, NULL}}},
};

const struct cb_env_setting *cb_nccl_transport_env(const char *transport) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(transport, table[i].transport) == 0)
      return table[i].env;
  return NULL;
}

int cb_env_apply(const struct cb_env_setting *settings, char *kept, size_t len) {
  int n = 0;
  size_t used = len ? strlen(kept) : 0;
  for (const struct cb_env_setting *e = settings; e->name; e++) {
    const char *have = getenv(e->name);
    if (!have) {
      setenv(e->name, e->value, 0);
      continue;
    }
    if (strcmp(have, e->value) == 0)
      continue;
    n++;
    if (used < len)
      used += (size_t)snprintf(kept + used, len - used, "%s%s=%s (wanted %s)", used ? "; " : "",
                               e->name, have, e->value);
  }
  return n;
}

void cb_nccl_share_gpu_env(int rank, char *kept, size_t len) {
  char hostid[64];
  snprintf(hostid, sizeof hostid, "collbench-%d", rank);
  const struct cb_env_setting env[] = {
      {"NCCL_HOSTID", hostid}, {"NCCL_SOCKET_IFNAME", "lo"}, {NULL, NULL}};
  cb_env_apply(env, kept, len);
}

int cb_mps_running(const char *pipe_dir) {
  char path[4096];
  struct stat st;
  int n = snprintf(path, sizeof path, "%s/control",
                   pipe_dir && *pipe_dir ? pipe_dir : CB_MPS_DEFAULT_PIPE_DIR);
  return n > 0 && (size_t)n < sizeof path && stat(path, &st) == 0 &&
         (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

const char *cb_nccl_register_refusal(int reg, int version, char *why, size_t len) {
  static const struct {
    int since; /* NCCL_VERSION(2, y, 0) */
    const char *call;
  } need[CB_NREGISTERS] = {[CB_REGISTER_LOCAL] = {21900, "ncclCommRegister"},
                           [CB_REGISTER_SYMMETRIC] = {22700, "ncclCommWindowRegister"}};
  if (reg <= CB_REGISTER_NONE || reg >= CB_NREGISTERS || version >= need[reg].since)
    return NULL;
  snprintf(why, len, "--register %s needs NCCL %d.%d or newer (%s); this NCCL is %d.%d.%d",
           cb_register_names[reg], need[reg].since / 10000, need[reg].since / 100 % 100,
           need[reg].call, version / 10000, version / 100 % 100, version % 100);
  return why;
}

/* NCCL_ALGO's names (src/graph/tuning.cc, ncclAlgoStr; any case). */
const char *const cb_nccl_algo_names[CB_NCCL_NALGO_NAMES] = {
    "Tree", "Ring", "CollnetDirect", "CollnetChain", "NVLS", "NVLSTree", "PAT"};

const char *const cb_nccl_func_names[CB_NCCL_NFUNCS] = {"Broadcast", "Reduce", "AllGather",
                                                        "ReduceScatter", "AllReduce"};

static int bad(struct cb_error *err, const char *var, const char *value, const char *why,
               const char *tok) {
  return cb_fail(err, CB_USAGE, "%s='%s': %s '%s' (NCCL would refuse the communicator)", var, value,
                 why, tok);
}

/* One comma list of names, after an optional '^', applied to enabled[]. */
static int apply_list(const char *var, const char *value, char *list, const char *const *names,
                      int n, unsigned char *enabled, struct cb_error *err) {
  int set = 1;
  if (list[0] == '^')
    set = 0, list++;
  unsigned char now[16];
  for (int i = 0; i < n; i++)
    now[i] = (unsigned char)!set;
  char *save = NULL;
  for (char *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
    int i = 0;
    while (i < n && strcasecmp(e, names[i]))
      i++;
    if (i == n)
      return bad(err, var, value, "NCCL knows no name", e);
    now[i] = (unsigned char)set;
  }
  if (enabled)
    memcpy(enabled, now, (size_t)n);
  return CB_OK;
}

/* NCCL 2.28 src/graph/tuning.cc, parseList's own comment:
 *   NCCL_ALGO="ring,collnetdirect;allreduce:tree,collnetdirect;broadcast:ring"
 *   "Enable ring and collnetdirect for all functions, then select tree and
 *   collnetdirect for allreduce and ring for broadcast."
 * Entries are ';'-separated and applied in order; only the first may lack
 * a "function:" prefix; a list starting with '^' enables all but its
 * names. Tokens are split with strtok_r as NCCL does (empty ones skipped). */
int cb_nccl_parse_env(const char *var, const char *value, const char *func,
                      const char *const *names, int n, unsigned char *enabled,
                      struct cb_error *err) {
  memset(enabled, 1, (size_t)n);
  if (!value)
    return CB_OK;
  char full[512], *save = NULL;
  if (snprintf(full, sizeof full, "%s", value) >= (int)sizeof full || n > 16)
    return cb_fail(err, CB_USAGE, "%s: value too long", var);
  for (char *tok = strtok_r(full, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
    char sub[512], *s2 = NULL;
    snprintf(sub, sizeof sub, "%s", tok);
    char *prefix = strtok_r(sub, ":", &s2), *list = strtok_r(NULL, ":", &s2);
    if (!prefix)
      return bad(err, var, value, "an entry has no names:", tok);
    if (!list) {
      if (tok != full)
        return bad(err, var, value, "every entry after the first needs a function prefix:", tok);
      list = prefix, prefix = NULL;
    }
    int found = 0;
    for (int f = 0; f < CB_NCCL_NFUNCS; f++) {
      if (prefix && strcasecmp(prefix, cb_nccl_func_names[f]))
        continue;
      found = 1;
      char copy[512];
      snprintf(copy, sizeof copy, "%s", list);
      if (apply_list(var, value, copy, names, n,
                     strcasecmp(func, cb_nccl_func_names[f]) ? NULL : enabled, err))
        return err->status;
    }
    if (!found)
      return bad(err, var, value, "NCCL knows no function", prefix);
  }
  return CB_OK;
}
