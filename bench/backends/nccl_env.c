/* NCCL takes its paths and logging from the environment, read when the first communicator is
 * made (nccl_env.h says more). */
#include "nccl_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
