/* The verbs backend's pure logic: what can be checked without a NIC. */
#include <string.h>

#include "backends/backend.h"
#include "backends/verbs_logic.h"
#include "tap.h"
#include "base/units.h"

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

  /* registration order: the NIC sees pinned memory as host memory */
  int plan[CB_NREGS];
  ok(cb_verbs_reg_plan(CB_MEM_HOST, plan) == 1 && plan[0] == CB_REG_HOST, "host: ibv_reg_mr only");
  ok(cb_verbs_reg_plan(CB_MEM_PINNED, plan) == 1 && plan[0] == CB_REG_HOST,
     "pinned: ibv_reg_mr only (host memory to the NIC)");
  ok(cb_verbs_reg_plan(CB_MEM_DEVICE, plan) == 2 && plan[0] == CB_REG_DMABUF &&
         plan[1] == CB_REG_PEERMEM,
     "device: dma-buf first, then peer memory");
  is_str(cb_verbs_reg_names[CB_REG_DMABUF], "dmabuf", "the label names dma-buf");

  /* dma-buf ranges are whole pages; the MR starts at the buffer's offset */
  struct cb_dmabuf_range r;
  cb_dmabuf_range(0x7f0000201000, 8192, 4096, &r);
  ok(r.base == 0x7f0000201000 && r.length == 8192 && r.offset == 0,
     "an aligned buffer is its own range");
  cb_dmabuf_range(0x7f0000201100, 100, 4096, &r);
  ok(r.base == 0x7f0000201000 && r.length == 4096 && r.offset == 0x100,
     "a small buffer inside one page: that page, offset 0x100");
  cb_dmabuf_range(0x7f0000201f00, 0x200, 4096, &r);
  ok(r.base == 0x7f0000201000 && r.length == 8192 && r.offset == 0xf00,
     "a buffer across a page boundary takes both pages");
  cb_dmabuf_range(0x200000, 0, 65536, &r);
  ok(r.base == 0x200000 && r.length == 65536 && r.offset == 0,
     "an empty buffer still asks for one (64 KiB) page");
  int inside = 1;
  for (uint64_t ptr = 0x10000; ptr < 0x10000 + 3 * 4096; ptr += 700)
    for (uint64_t bytes = 1; bytes < 3 * 4096; bytes += 900) {
      cb_dmabuf_range(ptr, bytes, 4096, &r);
      inside &= r.base % 4096 == 0 && r.length % 4096 == 0 && r.offset < 4096 &&
                r.base + r.offset == ptr && r.offset + bytes <= r.length &&
                r.length - (r.offset + bytes) < 4096;
    }
  ok(inside, "every buffer lies inside its page-aligned range, less than a page from each end");

  /* both registrations failing: one message with each reason */
  struct cb_reg_attempt tries[] = {
      {CB_REG_DMABUF, "cuMemGetHandleForAddressRange: CUDA_ERROR_NOT_SUPPORTED (801)"},
      {CB_REG_PEERMEM, "ibv_reg_mr: Bad address (14)"}};
  char msg[512];
  cb_verbs_reg_failure(msg, sizeof msg, "mlx5_0", 1 << 20, tries, 2);
  is_str(msg,
         "cannot register 1 MiB of GPU memory with mlx5_0: dma-buf: cuMemGetHandleForAddressRange: "
         "CUDA_ERROR_NOT_SUPPORTED (801); peer memory: ibv_reg_mr: Bad address (14) (load "
         "nvidia-peermem, or use a kernel and GPU driver with dma-buf)",
         "combined failure names the device, the size and both reasons");
  char small[40];
  cb_verbs_reg_failure(small, sizeof small, "mlx5_0", 1 << 20, tries, 2);
  is_long((long)strlen(small), (long)sizeof small - 1, "a short buffer truncates, no overflow");
  done_testing();
  return exit_status();
}
