/* The verbs backend's pure logic, apart from any device so that it is unit-tested on machines
 * without RDMA (verbs_logic.h says more). */
#include "verbs_logic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "base/units.h"

static const struct {
  unsigned speed;
  double lane_gbps;
  const char *name;
} speeds[] = {
    /* data rates as marketed (after encoding); ibv_port_attr.active_speed */
    {1, 2.5, "SDR"},   {2, 5.0, "DDR"},   {4, 10.0, "QDR"},  {8, 10.0, "FDR10"},
    {16, 14.0, "FDR"}, {32, 25.0, "EDR"}, {64, 50.0, "HDR"}, {128, 100.0, "NDR"},
};

double cb_ib_lane_gbps(unsigned active_speed) {
  for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
    if (speeds[i].speed == active_speed)
      return speeds[i].lane_gbps;
  return 0.0;
}

const char *cb_ib_speed_name(unsigned active_speed) {
  for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
    if (speeds[i].speed == active_speed)
      return speeds[i].name;
  return "?";
}

int cb_ib_lanes(unsigned active_width) {
  switch (active_width) {
  case 1: return 1;
  case 2: return 4;
  case 4: return 8;
  case 8: return 12;
  case 16: return 2;
  default: return 0;
  }
}

double cb_ib_port_gbps(unsigned active_speed, unsigned active_width) {
  return cb_ib_lane_gbps(active_speed) * cb_ib_lanes(active_width);
}

int cb_ib_mtu_bytes(int mtu) {
  return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0;
}

int cb_gid_is_ipv4_mapped(const uint8_t raw[16]) {
  static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return memcmp(raw, prefix, sizeof prefix) == 0;
}

static int all_zero(const uint8_t raw[16]) {
  for (int i = 0; i < 16; i++)
    if (raw[i])
      return 0;
  return 1;
}

int cb_gid_choose(const struct cb_gid *table, int n, char *why, size_t len) {
  static const struct {
    int type, ipv4;
    const char *rule;
  } rules[] = {
      {IBV_GID_TYPE_ROCE_V2, 1, "RoCE v2, IPv4"},
      {IBV_GID_TYPE_ROCE_V2, 0, "RoCE v2 (no IPv4 GID)"},
      {IBV_GID_TYPE_ROCE_V1, 0, "RoCE v1 (no RoCE v2 GID)"},
  };
  for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
    int best = -1;
    for (int i = 0; i < n; i++) {
      const struct cb_gid *g = &table[i];
      if (g->type != rules[r].type || all_zero(g->raw) ||
          (rules[r].ipv4 && !cb_gid_is_ipv4_mapped(g->raw)))
        continue;
      if (best < 0 || g->index < table[best].index)
        best = i;
    }
    if (best >= 0) {
      snprintf(why, len, "%s", rules[r].rule);
      return (int)table[best].index;
    }
  }
  snprintf(why, len, "no RoCE GID in the port's table");
  return -1;
}

void cb_qp_attr_init(struct ibv_qp_attr *a, int *mask, uint8_t port) {
  memset(a, 0, sizeof *a);
  a->qp_state = IBV_QPS_INIT;
  a->pkey_index = 0;
  a->port_num = port;
  a->qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  *mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
}

void cb_qp_attr_rtr(struct ibv_qp_attr *a, int *mask, const struct cb_qp_info *local,
                    const struct cb_qp_info *remote, uint8_t port, int gid_index) {
  memset(a, 0, sizeof *a);
  a->qp_state = IBV_QPS_RTR;
  /* both sides must use the smaller MTU, or large messages are dropped */
  a->path_mtu = (enum ibv_mtu)(local->mtu < remote->mtu ? local->mtu : remote->mtu);
  a->dest_qp_num = remote->qpn;
  a->rq_psn = remote->psn;
  a->max_dest_rd_atomic = 16;
  a->min_rnr_timer = 1; /* 0.01 ms: a receiver reposting late is retried soon */
  a->ah_attr.port_num = port;
  a->ah_attr.sl = 0;
  if (remote->gid_type >= 0) { /* RoCE: routed by GID, no LID */
    a->ah_attr.is_global = 1;
    memcpy(a->ah_attr.grh.dgid.raw, remote->gid, 16);
    a->ah_attr.grh.sgid_index = (uint8_t)gid_index;
    a->ah_attr.grh.hop_limit = 64;
  } else {
    a->ah_attr.dlid = remote->lid;
  }
  *mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}

void cb_qp_attr_rts(struct ibv_qp_attr *a, int *mask, uint32_t psn) {
  memset(a, 0, sizeof *a);
  a->qp_state = IBV_QPS_RTS;
  a->sq_psn = psn;
  a->timeout = 14; /* 4.096 us * 2^14 = 67 ms per retry */
  a->retry_cnt = 7;
  a->rnr_retry = 7; /* infinite: a window may outrun the receiver's posting */
  a->max_rd_atomic = 16;
  *mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
          IBV_QP_MAX_QP_RD_ATOMIC;
}

int cb_ib_dev_parse(const char *spec, char *name, size_t len, int *port) {
  const char *colon = strchr(spec, ':');
  size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
  if (n == 0 || n >= len)
    return -1;
  memcpy(name, spec, n);
  name[n] = '\0';
  *port = 1;
  if (colon) {
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end || p < 1 || p > 255)
      return -1;
    *port = (int)p;
  }
  return 0;
}

const char *const cb_verbs_reg_names[CB_NREGS] = {"host", "dmabuf", "peermem"};

int cb_verbs_reg_plan(int mem, int plan[CB_NREGS]) {
  if (mem != CB_MEM_DEVICE) { /* pinned memory is host memory to the NIC */
    plan[0] = CB_REG_HOST;
    return 1;
  }
  plan[0] = CB_REG_DMABUF;
  plan[1] = CB_REG_PEERMEM;
  return 2;
}

void cb_dmabuf_range(uint64_t ptr, uint64_t bytes, uint64_t page, struct cb_dmabuf_range *r) {
  uint64_t end = ptr + (bytes ? bytes : 1);
  r->base = ptr - ptr % page;
  r->length = (end + page - 1) / page * page - r->base;
  r->offset = ptr - r->base;
}

static const char *const reg_what[CB_NREGS] = {"ibv_reg_mr", "dma-buf", "peer memory"};

void cb_verbs_reg_failure(char *buf, size_t len, const char *device, uint64_t bytes,
                          const struct cb_reg_attempt *tries, int n) {
  char size[32];
  size_t used = (size_t)snprintf(buf, len, "cannot register %s of GPU memory with %s",
                                 cb_format_size(bytes, size, sizeof size), device);
  for (int i = 0; i < n; i++)
    used += (size_t)snprintf(buf + (used < len ? used : len), used < len ? len - used : 0,
                             "%s %s: %s", i ? ";" : ":", reg_what[tries[i].reg], tries[i].why);
  for (int i = 0; i < n; i++)
    if (tries[i].reg == CB_REG_PEERMEM) { /* the usual remedy, once */
      snprintf(buf + (used < len ? used : len), used < len ? len - used : 0,
               " (load nvidia-peermem, or use a kernel and GPU driver with dma-buf)");
      break;
    }
}
