/* The verbs backend's pure logic: what can be checked without a NIC. */
#include <string.h>

#include "backends/verbs_logic.h"
#include "tap.h"
#include "units.h"

static struct cb_gid gid(uint32_t index, int type, const char *hex16) {
  struct cb_gid g = {.index = index, .type = type};
  for (int i = 0; i < 16; i++) {
    unsigned byte;
    sscanf(hex16 + 2 * i, "%2x", &byte);
    g.raw[i] = (uint8_t)byte;
  }
  return g;
}

#define LINK_LOCAL "fe800000000000000202c9fffe000001"
#define IPV4_MAPPED "00000000000000000000ffffc0a80101" /* ::ffff:192.168.1.1 */
#define IPV6_GLOBAL "20010db8000000000000000000000001"

int main(void) {
  /* rates: 4x NDR is the 400 Gb/s of an NDR HCA, 4x HDR 200, 4x EDR 100 */
  is_double(cb_ib_port_gbps(128, 2), 400.0, 1e-9, "4x NDR = 400 Gb/s");
  is_double(cb_ib_port_gbps(64, 2), 200.0, 1e-9, "4x HDR = 200 Gb/s");
  is_double(cb_ib_port_gbps(32, 2), 100.0, 1e-9, "4x EDR = 100 Gb/s");
  is_double(cb_ib_port_gbps(64, 16), 100.0, 1e-9, "2x HDR = 100 Gb/s");
  is_double(cb_ib_port_gbps(4, 8), 120.0, 1e-9, "12x QDR = 120 Gb/s");
  is_double(cb_ib_port_gbps(3, 2), 0.0, 1e-9, "unknown speed gives 0, not a guess");
  is_str(cb_ib_speed_name(128), "NDR", "speed 128 is NDR");
  is_long(cb_ib_lanes(5), 0, "unknown width gives 0 lanes");
  is_long(cb_ib_mtu_bytes(IBV_MTU_4096), 4096, "MTU enum 5 is 4096 B");
  is_long(cb_ib_mtu_bytes(IBV_MTU_256), 256, "MTU enum 1 is 256 B");
  is_long(cb_ib_mtu_bytes(9), 0, "unknown MTU enum gives 0");
  is_double(cb_line_rate_percent(48.0, 400.0), 96.0, 1e-9, "48 GB/s on 400 Gb/s is 96%%");
  is_double(cb_line_rate_percent(1.0, 0.0), 0.0, 1e-9, "no line rate, no percentage");

  /* GID choice: a typical RoCE table (v1 and v2 of link-local, then IPv4) */
  char why[64];
  struct cb_gid table[] = {
      gid(0, IBV_GID_TYPE_ROCE_V1, LINK_LOCAL),
      gid(1, IBV_GID_TYPE_ROCE_V2, LINK_LOCAL),
      gid(2, IBV_GID_TYPE_ROCE_V1, IPV4_MAPPED),
      gid(3, IBV_GID_TYPE_ROCE_V2, IPV4_MAPPED),
  };
  is_long(cb_gid_choose(table, 4, why, sizeof why), 3, "RoCE v2 IPv4 wins (index 3)");
  ok(strstr(why, "IPv4") != NULL, "and says why: %s", why);
  /* the same table in another order gives the same index on the other side */
  struct cb_gid shuffled[] = {table[3], table[1], table[2], table[0]};
  is_long(cb_gid_choose(shuffled, 4, why, sizeof why), 3, "table order does not matter");
  struct cb_gid v6_only[] = {gid(0, IBV_GID_TYPE_ROCE_V1, LINK_LOCAL),
                             gid(5, IBV_GID_TYPE_ROCE_V2, IPV6_GLOBAL),
                             gid(4, IBV_GID_TYPE_ROCE_V2, LINK_LOCAL)};
  is_long(cb_gid_choose(v6_only, 3, why, sizeof why), 4, "no IPv4: lowest RoCE v2 (4)");
  struct cb_gid v1_only[] = {gid(2, IBV_GID_TYPE_ROCE_V1, IPV4_MAPPED)};
  is_long(cb_gid_choose(v1_only, 1, why, sizeof why), 2, "only v1: v1, with a reason");
  ok(strstr(why, "v1") != NULL, "reason names v1: %s", why);
  struct cb_gid ib_only[] = {gid(0, IBV_GID_TYPE_IB, LINK_LOCAL)};
  is_long(cb_gid_choose(ib_only, 1, why, sizeof why), -1, "InfiniBand table: no RoCE GID");
  struct cb_gid empty_v2[] = {gid(7, IBV_GID_TYPE_ROCE_V2, "00000000000000000000000000000000")};
  is_long(cb_gid_choose(empty_v2, 1, why, sizeof why), -1, "an all-zero GID is not a GID");
  ok(cb_gid_is_ipv4_mapped(table[3].raw) && !cb_gid_is_ipv4_mapped(table[1].raw),
     "IPv4-mapped detection");

  /* QP attributes */
  struct ibv_qp_attr a;
  int mask;
  cb_qp_attr_init(&a, &mask, 2);
  ok(a.qp_state == IBV_QPS_INIT && a.port_num == 2 && (mask & IBV_QP_PORT) &&
         (a.qp_access_flags & IBV_ACCESS_REMOTE_READ) &&
         (a.qp_access_flags & IBV_ACCESS_REMOTE_WRITE),
     "INIT: port and remote read/write access");
  struct cb_qp_info local = {.qpn = 10, .psn = 111, .lid = 1, .gid_type = -1, .mtu = IBV_MTU_4096};
  struct cb_qp_info remote = {.qpn = 20, .psn = 222, .lid = 7, .gid_type = -1, .mtu = IBV_MTU_2048};
  cb_qp_attr_rtr(&a, &mask, &local, &remote, 1, 0);
  ok(a.qp_state == IBV_QPS_RTR && a.dest_qp_num == 20 && a.rq_psn == 222 && a.ah_attr.dlid == 7 &&
         !a.ah_attr.is_global,
     "RTR on InfiniBand: remote QPN, PSN and LID, no GRH");
  is_long(a.path_mtu, IBV_MTU_2048, "RTR takes the smaller of the two MTUs");
  ok((mask & IBV_QP_AV) && (mask & IBV_QP_DEST_QPN) && (mask & IBV_QP_RQ_PSN), "RTR mask");
  memcpy(remote.gid, table[3].raw, 16);
  remote.gid_type = IBV_GID_TYPE_ROCE_V2;
  cb_qp_attr_rtr(&a, &mask, &local, &remote, 1, 3);
  ok(a.ah_attr.is_global && a.ah_attr.grh.sgid_index == 3 &&
         memcmp(a.ah_attr.grh.dgid.raw, table[3].raw, 16) == 0 && a.ah_attr.dlid == 0,
     "RTR on RoCE: GRH with our GID index and the peer's GID");
  cb_qp_attr_rts(&a, &mask, 111);
  ok(a.qp_state == IBV_QPS_RTS && a.sq_psn == 111 && a.rnr_retry == 7 && (mask & IBV_QP_SQ_PSN),
     "RTS: our PSN, infinite RNR retry");

  char name[32];
  int port;
  ok(cb_ib_dev_parse("mlx5_0:2", name, sizeof name, &port) == 0 && strcmp(name, "mlx5_0") == 0 &&
         port == 2,
     "--ib-dev mlx5_0:2");
  ok(cb_ib_dev_parse("mlx5_1", name, sizeof name, &port) == 0 && port == 1,
     "--ib-dev without a port means port 1");
  ok(cb_ib_dev_parse("mlx5_0:x", name, sizeof name, &port) != 0 &&
         cb_ib_dev_parse(":1", name, sizeof name, &port) != 0 &&
         cb_ib_dev_parse("mlx5_0:0", name, sizeof name, &port) != 0,
     "malformed --ib-dev values are refused");
  done_testing();
  return exit_status();
}
