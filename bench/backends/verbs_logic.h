/* The verbs backend's pure logic, apart from any device so that it is
 * unit-tested on machines without RDMA: link rates, GID choice, QP state
 * transition attributes, bandwidth against line rate. */
#ifndef CB_VERBS_LOGIC_H
#define CB_VERBS_LOGIC_H

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

/* Data rate per lane in Gb/s for ibv_port_attr.active_speed (SDR 2.5 ...
 * NDR 100); 0 when unknown. */
double cb_ib_lane_gbps(unsigned active_speed);
const char *cb_ib_speed_name(unsigned active_speed); /* "NDR"; "?" when unknown */
/* Lanes for ibv_port_attr.active_width (1x, 2x, 4x, 8x, 12x); 0 when unknown. */
int cb_ib_lanes(unsigned active_width);
/* Port data rate in Gb/s (lanes x lane rate): 4x NDR = 400. */
double cb_ib_port_gbps(unsigned active_speed, unsigned active_width);
/* Bytes for an enum ibv_mtu value; 0 when unknown. */
int cb_ib_mtu_bytes(int mtu);

struct cb_gid {
  uint8_t raw[16];
  uint32_t index;
  int type; /* IBV_GID_TYPE_IB, _ROCE_V1, _ROCE_V2 */
};

int cb_gid_is_ipv4_mapped(const uint8_t raw[16]); /* ::ffff:a.b.c.d */
/* The RoCE GID index both sides of a pair must agree on: the lowest
 * RoCE v2 entry with an IPv4-mapped address, else the lowest RoCE v2, else
 * the lowest RoCE v1; -1 when there is none. `why` says which rule won. */
int cb_gid_choose(const struct cb_gid *table, int n, char *why, size_t len);

/* What a QP needs to know of its peer, exchanged over MPI. */
struct cb_qp_info {
  uint32_t qpn, psn;
  uint16_t lid;
  uint8_t gid[16];
  int32_t gid_type; /* -1 on InfiniBand */
  int32_t mtu;      /* enum ibv_mtu of the peer's port */
  double gbps;      /* the port's data rate (speed x width), 0 when unknown */
};

/* Attributes and masks for RESET->INIT, INIT->RTR, RTR->RTS of an RC QP. */
void cb_qp_attr_init(struct ibv_qp_attr *a, int *mask, uint8_t port);
void cb_qp_attr_rtr(struct ibv_qp_attr *a, int *mask, const struct cb_qp_info *local,
                    const struct cb_qp_info *remote, uint8_t port, int gid_index);
void cb_qp_attr_rts(struct ibv_qp_attr *a, int *mask, uint32_t psn);

/* "mlx5_0:1" -> name "mlx5_0", port 1; "mlx5_0" -> port 1. 0 or -1. */
int cb_ib_dev_parse(const char *spec, char *name, size_t len, int *port);

/* How a buffer becomes a memory region the NIC may touch. */
enum cb_verbs_reg {
  CB_REG_HOST,    /* ibv_reg_mr on host (or pinned) memory */
  CB_REG_DMABUF,  /* GPU memory: CUDA exports a dma-buf fd, ibv_reg_dmabuf_mr */
  CB_REG_PEERMEM, /* GPU memory: ibv_reg_mr on the device pointer (nvidia-peermem) */
  CB_NREGS
};
/* Short names for the transport label: "host", "dmabuf", "peermem". */
extern const char *const cb_verbs_reg_names[CB_NREGS];

/* The registrations to try for memory kind `mem` (enum cb_mem), in order,
 * into plan; returns how many. Device memory: dma-buf first (upstream
 * kernels, no extra module), then peer memory. */
int cb_verbs_reg_plan(int mem, int plan[CB_NREGS]);

/* cuMemGetHandleForAddressRange exports whole host pages: the range it
 * must be asked for around [ptr, ptr + bytes), and the buffer's offset in
 * it, which ibv_reg_dmabuf_mr takes. */
struct cb_dmabuf_range {
  uint64_t base;   /* ptr rounded down to the page */
  uint64_t length; /* to the page boundary at or after ptr + bytes */
  uint64_t offset; /* ptr - base */
};
void cb_dmabuf_range(uint64_t ptr, uint64_t bytes, uint64_t page, struct cb_dmabuf_range *r);

/* One failed registration and why ("cuMemGetHandleForAddressRange:
 * CUDA_ERROR_NOT_SUPPORTED"). */
struct cb_reg_attempt {
  int reg; /* enum cb_verbs_reg */
  char why[128];
};
/* One message for a buffer no registration could take, naming every
 * attempt's failure, the device and the size. */
void cb_verbs_reg_failure(char *buf, size_t len, const char *device, uint64_t bytes,
                          const struct cb_reg_attempt *tries, int n);

#endif
