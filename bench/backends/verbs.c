/* The verbs backend: one RC queue pair per rank pair, RDMA write (with
 * immediate, so the receiver learns of each message), send/recv or RDMA
 * read, chosen with --transport. QP attributes and memory keys travel over
 * MPI. Built wherever libibverbs is; it has not run on RDMA hardware yet
 * (the development machine has none), so treat its figures as unverified.
 * GPU buffers are registered through dma-buf, else through peer memory
 * (nvidia-peermem); neither path has run on hardware yet either. */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "base/dtype.h"
#include "config.h"
#include "runtime/gpu.h"
#include "runtime/settings.h"
#include "verbs_logic.h"
#if CB_HAVE_CUDA && CB_HAVE_IBV_DMABUF
#include <cuda.h> /* types only: the driver is loaded with dlopen */
#endif

static const char *const transports[] = {"write", "send", "read", NULL};

#define MAX_BUFFERS 8 /* an engine series holds at most send, recv (and staging) */

struct region {
  void *ptr;
  size_t bytes;
  struct ibv_mr *mr;
  uint64_t remote_addr; /* the peer's buffer allocated at the same step */
  uint32_t remote_rkey;
};

struct verbs_ctx {
  const struct cb_cluster *cl;
  const struct cb_settings *s;
  int peer, verb; /* verb: index in transports */
  struct ibv_context *dev;
  struct ibv_pd *pd;
  struct ibv_cq *cq;
  struct ibv_qp *qp;
  uint8_t port;
  int gid_index;
  double gbps; /* the slower of the two ports of the pair: the line rate */
  char label[48];
  int gpu_reg; /* how GPU buffers were registered (enum cb_verbs_reg); -1 before the first */
  struct region regions[MAX_BUFFERS];
  int nregions;
};

static int verbs_failed(const struct verbs_ctx *c, const char *call, int code,
                        struct cb_error *err) {
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): verbs: %s failed: %s (%d)", c->cl->rank,
                 c->cl->hostname, call, strerror(code), code);
}

static int verbs_probe(char *why, size_t len) {
  int n = 0;
  errno = 0;
  struct ibv_device **list = ibv_get_device_list(&n);
  if (!list) {
    snprintf(why, len, "no RDMA devices (ibv_get_device_list: %s)", strerror(errno));
    return 0;
  }
  ibv_free_device_list(list);
  if (n == 0) {
    snprintf(why, len, "no RDMA devices (none found)");
    return 0;
  }
  snprintf(why, len, "usable");
  return 1;
}

static void verbs_version(char *buf, size_t len) {
  snprintf(buf, len, "libibverbs");
}

/* --ib-dev, or the local rank's turn among the devices with an active port. */
static int open_device(struct verbs_ctx *c, const struct cb_settings *s, struct cb_error *err) {
  int n = 0;
  struct ibv_device **list = ibv_get_device_list(&n);
  if (!list || n == 0)
    return cb_fail(err, CB_USAGE, "verbs: no RDMA devices");
  char want[64] = "";
  int port = 1;
  if (s->ib_dev && cb_ib_dev_parse(s->ib_dev, want, sizeof want, &port)) {
    ibv_free_device_list(list);
    return cb_fail(err, CB_USAGE, "--ib-dev '%s' is not DEVICE[:PORT]", s->ib_dev);
  }
  int active = 0;
  for (int i = 0; i < n && !c->dev; i++) {
    const char *name = ibv_get_device_name(list[i]);
    if (*want && strcmp(name, want) != 0)
      continue;
    struct ibv_context *dev = ibv_open_device(list[i]);
    struct ibv_port_attr pa;
    if (dev && ibv_query_port(dev, (uint8_t)port, &pa) == 0 && pa.state == IBV_PORT_ACTIVE &&
        (*want || active++ == c->cl->local_rank % n)) {
      c->dev = dev;
      c->port = (uint8_t)port;
    } else if (dev) {
      ibv_close_device(dev);
    }
  }
  ibv_free_device_list(list);
  if (!c->dev)
    return cb_fail(err, CB_USAGE, "verbs: %s%s has no active port %d", *want ? "device " : "",
                   *want ? want : "no device", port);
  return CB_OK;
}

static int read_gid_table(struct verbs_ctx *c, int len, struct cb_gid *out) {
  int n = 0;
  for (int i = 0; i < len; i++) {
    struct ibv_gid_entry e;
    if (ibv_query_gid_ex(c->dev, c->port, (uint32_t)i, &e, 0) != 0)
      continue;
    memcpy(out[n].raw, e.gid.raw, 16);
    out[n].index = e.gid_index;
    out[n].type = (int)e.gid_type;
    n++;
  }
  return n;
}

/* Fills this side's QP info, choosing the RoCE GID index when needed. */
static int local_info(struct verbs_ctx *c, const struct cb_settings *s,
                      const struct ibv_port_attr *pa, struct cb_qp_info *me, struct cb_error *err) {
  memset(me, 0, sizeof *me);
  me->qpn = c->qp->qp_num;
  me->psn = (uint32_t)(lrand48() & 0xffffff);
  me->lid = pa->lid;
  me->mtu = pa->active_mtu;
  me->gbps = cb_ib_port_gbps(pa->active_speed, pa->active_width);
  me->gid_type = -1;
  char why[64] = "InfiniBand (LID)";
  if (pa->link_layer == IBV_LINK_LAYER_ETHERNET) {
    struct cb_gid *table = calloc((size_t)pa->gid_tbl_len, sizeof *table);
    if (!table)
      return cb_fail(err, CB_RUNTIME, "verbs: out of memory for the GID table");
    int n = read_gid_table(c, pa->gid_tbl_len, table);
    c->gid_index = s->gid_index >= 0 ? s->gid_index : cb_gid_choose(table, n, why, sizeof why);
    if (s->gid_index >= 0)
      snprintf(why, sizeof why, "--gid-index");
    for (int i = 0; i < n; i++)
      if ((int)table[i].index == c->gid_index) {
        memcpy(me->gid, table[i].raw, 16);
        me->gid_type = table[i].type;
      }
    free(table);
    if (c->gid_index < 0 || me->gid_type < 0)
      return cb_fail(err, CB_USAGE, "verbs: no usable RoCE GID on %s:%d (%s); give --gid-index",
                     ibv_get_device_name(c->dev->device), c->port, why);
  }
  snprintf(c->label, sizeof c->label, "%s/%s",
           pa->link_layer == IBV_LINK_LAYER_ETHERNET ? "roce" : "ib", transports[c->verb]);
  /* say which port, rate and GID each rank uses: the perftest guessing game */
  fprintf(stderr,
          "collbench: rank %d verbs: %s:%d %s %.0f Gb/s (%dx %s), MTU %d, GID index %d (%s)\n",
          c->cl->rank, ibv_get_device_name(c->dev->device), c->port,
          pa->link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand",
          cb_ib_port_gbps(pa->active_speed, pa->active_width), cb_ib_lanes(pa->active_width),
          cb_ib_speed_name(pa->active_speed), cb_ib_mtu_bytes(pa->active_mtu), c->gid_index, why);
  return CB_OK;
}

static int connect_qp(struct verbs_ctx *c, const struct cb_settings *s, struct cb_error *err) {
  struct ibv_port_attr pa;
  if (ibv_query_port(c->dev, c->port, &pa))
    return verbs_failed(c, "ibv_query_port", errno, err);
  struct cb_qp_info me, peer;
  if (local_info(c, s, &pa, &me, err))
    return err->status;
  MPI_Sendrecv(&me, sizeof me, MPI_BYTE, c->peer, 2, &peer, sizeof peer, MPI_BYTE, c->peer, 2,
               c->cl->comm, MPI_STATUS_IGNORE);
  if ((me.gid_type < 0) != (peer.gid_type < 0) ||
      (me.gid_type >= 0 && me.gid_type != peer.gid_type))
    return cb_fail(err, CB_USAGE,
                   "verbs: rank %d and rank %d use different GID types (%d, %d): give both the "
                   "same --gid-index type",
                   c->cl->rank, c->peer, me.gid_type, peer.gid_type);
  c->gbps = me.gbps < peer.gbps ? me.gbps : peer.gbps;
  struct ibv_qp_attr a;
  int mask;
  cb_qp_attr_init(&a, &mask, c->port);
  if (ibv_modify_qp(c->qp, &a, mask))
    return verbs_failed(c, "ibv_modify_qp(INIT)", errno, err);
  cb_qp_attr_rtr(&a, &mask, &me, &peer, c->port, c->gid_index);
  if (ibv_modify_qp(c->qp, &a, mask))
    return verbs_failed(c, "ibv_modify_qp(RTR)", errno, err);
  cb_qp_attr_rts(&a, &mask, me.psn);
  if (ibv_modify_qp(c->qp, &a, mask))
    return verbs_failed(c, "ibv_modify_qp(RTS)", errno, err);
  return CB_OK;
}

static int verbs_init(const struct cb_cluster *cl, const struct cb_settings *s,
                      const char *transport, void **ctx, struct cb_error *err) {
  struct verbs_ctx *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "verbs: out of memory");
  *ctx = c;
  c->cl = cl;
  c->s = s;
  c->gpu_reg = -1;
  c->peer = cb_p2p_peer(cl->rank, cl->nranks);
  for (c->verb = 0; transports[c->verb] && strcmp(transports[c->verb], transport); c->verb++)
    ;
  snprintf(c->label, sizeof c->label, "none");
  if (c->peer < 0)
    return CB_OK;
  if (open_device(c, s, err))
    return err->status;
  int depth = 2 * s->window + 8;
  c->pd = ibv_alloc_pd(c->dev);
  c->cq = c->pd ? ibv_create_cq(c->dev, 2 * depth, NULL, NULL, 0) : NULL;
  if (!c->pd || !c->cq)
    return verbs_failed(c, c->pd ? "ibv_create_cq" : "ibv_alloc_pd", errno, err);
  struct ibv_qp_init_attr qa = {
      .send_cq = c->cq,
      .recv_cq = c->cq,
      .qp_type = IBV_QPT_RC,
      .sq_sig_all = 0,
      .cap = {.max_send_wr = (uint32_t)depth,
              .max_recv_wr = (uint32_t)depth,
              .max_send_sge = 1,
              .max_recv_sge = 1},
  };
  c->qp = ibv_create_qp(c->pd, &qa);
  if (!c->qp)
    return verbs_failed(c, "ibv_create_qp", errno, err);
  return connect_qp(c, s, err);
}

static struct region *region_of(struct verbs_ctx *c, const void *ptr) {
  for (int i = 0; i < c->nregions; i++)
    if (c->regions[i].ptr == ptr)
      return &c->regions[i];
  return NULL;
}

#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* ibv_reg_mr on the pointer: host memory, or GPU memory when
 * nvidia-peermem lets the kernel pin it. */
static struct ibv_mr *reg_plain(struct verbs_ctx *c, const struct region *r, char *why,
                                size_t len) {
  struct ibv_mr *mr = ibv_reg_mr(c->pd, r->ptr, r->bytes ? r->bytes : 1, ACCESS);
  if (!mr) {
    int e = errno;
    snprintf(why, len, "ibv_reg_mr: %s (%d)", strerror(e), e);
  }
  return mr;
}

#if CB_HAVE_CUDA && CB_HAVE_IBV_DMABUF
/* The CUDA driver API, loaded at the first GPU registration: linking
 * libcuda (or its stub) would tie the binary to a driver at build time. */
static struct {
  int state; /* 0 not tried, 1 loaded, -1 failed (why says) */
  CUresult (*get_handle)(void *, CUdeviceptr, size_t, CUmemRangeHandleType, unsigned long long);
  CUresult (*error_name)(CUresult, const char **);
  char why[112];
} driver;

static int load_driver(void) {
  if (driver.state)
    return driver.state > 0;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(driver.why, sizeof driver.why, "dlopen: %s", dlerror());
  } else {
    *(void **)&driver.get_handle = dlsym(lib, "cuMemGetHandleForAddressRange");
    *(void **)&driver.error_name = dlsym(lib, "cuGetErrorName");
    if (!driver.get_handle || !driver.error_name)
      snprintf(driver.why, sizeof driver.why,
               "libcuda.so.1 has no cuMemGetHandleForAddressRange (driver older than 515)");
  }
  driver.state = driver.why[0] ? -1 : 1;
  return driver.state > 0;
}

/* CUDA exports the pages around the buffer as a dma-buf fd; the MR covers
 * the buffer at its offset in them, addressed by its device pointer. */
static struct ibv_mr *reg_dmabuf(struct verbs_ctx *c, const struct region *r, char *why,
                                 size_t len) {
  if (!load_driver()) {
    snprintf(why, len, "%s", driver.why);
    return NULL;
  }
  struct cb_dmabuf_range range;
  cb_dmabuf_range((uint64_t)(uintptr_t)r->ptr, r->bytes, (uint64_t)sysconf(_SC_PAGESIZE), &range);
  int fd = -1;
  CUresult rc = driver.get_handle(&fd, (CUdeviceptr)range.base, (size_t)range.length,
                                  CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
  if (rc != CUDA_SUCCESS) {
    const char *name = "unknown error";
    driver.error_name(rc, &name);
    snprintf(why, len, "cuMemGetHandleForAddressRange: %s (%d)", name, (int)rc);
    return NULL;
  }
  struct ibv_mr *mr = ibv_reg_dmabuf_mr(c->pd, range.offset, r->bytes ? r->bytes : 1,
                                        (uint64_t)(uintptr_t)r->ptr, fd, ACCESS);
  int e = errno;
  close(fd); /* the MR holds its own reference to the dma-buf */
  if (!mr)
    snprintf(why, len, "ibv_reg_dmabuf_mr: %s (%d)", strerror(e), e);
  return mr;
}
#else
static struct ibv_mr *reg_dmabuf(struct verbs_ctx *c, const struct region *r, char *why,
                                 size_t len) {
  (void)c, (void)r;
  snprintf(why, len, "%s",
           CB_HAVE_CUDA ? "not built (this rdma-core has no ibv_reg_dmabuf_mr; 34 or newer has)"
                        : "not built (no CUDA)");
  return NULL;
}
#endif

/* Tries the registrations cb_verbs_reg_plan lists for the memory kind;
 * device memory neither can take is a configuration problem (status 2)
 * with every reason in one message. */
static int register_region(struct verbs_ctx *c, struct region *r, int mem, struct cb_error *err) {
  int plan[CB_NREGS], n = cb_verbs_reg_plan(mem, plan);
  struct cb_reg_attempt tries[CB_NREGS];
  for (int i = 0; i < n; i++) {
    tries[i].reg = plan[i];
    r->mr = plan[i] == CB_REG_DMABUF ? reg_dmabuf(c, r, tries[i].why, sizeof tries[i].why)
                                     : reg_plain(c, r, tries[i].why, sizeof tries[i].why);
    if (r->mr) {
      if (mem == CB_MEM_DEVICE)
        c->gpu_reg = plan[i];
      return CB_OK;
    }
  }
  if (mem != CB_MEM_DEVICE)
    return cb_fail(err, CB_RUNTIME, "rank %d (%s): verbs: %s", c->cl->rank, c->cl->hostname,
                   tries[0].why);
  char msg[768];
  cb_verbs_reg_failure(msg, sizeof msg, ibv_get_device_name(c->dev->device), r->bytes, tries, n);
  return cb_fail(err, CB_USAGE, "rank %d (%s): verbs: %s", c->cl->rank, c->cl->hostname, msg);
}

static int alloc_buffer(struct verbs_ctx *c, int mem, size_t bytes, void **ptr,
                        struct cb_error *err) {
  if (mem == CB_MEM_HOST)
    return (*ptr = cb_host_alloc(bytes))
               ? CB_OK
               : cb_fail(err, CB_RUNTIME, "rank %d: verbs: cannot allocate %zu bytes", c->cl->rank,
                         bytes);
  int device;
  if (cb_gpu_bind(c->cl, c->s, &device, err))
    return err->status;
  return cb_gpu_alloc(c->cl, "verbs", mem, bytes, ptr, err);
}

static void free_buffer(int mem, void *ptr) {
  if (mem == CB_MEM_HOST)
    free(ptr);
  else
    cb_gpu_free(mem, ptr);
}

/* Registers the buffer and swaps address and key with the peer, which
 * allocates its counterpart at the same step of the same series. */
static int verbs_alloc(void *ctx, int mem, size_t bytes, void **ptr, struct cb_error *err) {
  struct verbs_ctx *c = ctx;
  if (alloc_buffer(c, mem, bytes, ptr, err))
    return err->status;
  if (c->peer < 0)
    return CB_OK;
  if (c->nregions == MAX_BUFFERS)
    return cb_fail(err, CB_RUNTIME, "verbs: more than %d buffers", MAX_BUFFERS);
  struct region *r = &c->regions[c->nregions];
  r->ptr = *ptr;
  r->bytes = bytes;
  if (register_region(c, r, mem, err))
    return err->status;
  uint64_t mine[2] = {(uint64_t)(uintptr_t)*ptr, r->mr->rkey}, theirs[2];
  MPI_Sendrecv(mine, 2, MPI_UINT64_T, c->peer, 3, theirs, 2, MPI_UINT64_T, c->peer, 3, c->cl->comm,
               MPI_STATUS_IGNORE);
  r->remote_addr = theirs[0];
  r->remote_rkey = (uint32_t)theirs[1];
  c->nregions++;
  return CB_OK;
}

static void verbs_free(void *ctx, int mem, void *ptr) {
  struct verbs_ctx *c = ctx;
  struct region *r = region_of(c, ptr);
  if (r) {
    ibv_dereg_mr(r->mr);
    *r = c->regions[--c->nregions];
  }
  free_buffer(mem, ptr);
}

static int verbs_copy(void *ctx, void *dst, const void *src, size_t bytes, struct cb_error *err) {
  return cb_gpu_copy(((struct verbs_ctx *)ctx)->cl, "verbs", dst, src, bytes, err);
}

static int post_recv(struct verbs_ctx *c, struct region *r, size_t bytes, struct cb_error *err) {
  struct ibv_sge sge = {(uint64_t)(uintptr_t)r->ptr, (uint32_t)bytes, r->mr->lkey};
  struct ibv_recv_wr wr = {.sg_list = &sge, .num_sge = 1}, *bad;
  int rc = ibv_post_recv(c->qp, &wr, &bad);
  return rc ? verbs_failed(c, "ibv_post_recv", rc, err) : CB_OK;
}

/* Posts one message of the chosen verb; `signaled` asks for a completion. */
static int post_send(struct verbs_ctx *c, struct region *local, struct region *remote_of,
                     size_t bytes, int signaled, struct cb_error *err) {
  static const enum ibv_wr_opcode opcodes[] = {IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND,
                                               IBV_WR_RDMA_READ};
  struct ibv_sge sge = {(uint64_t)(uintptr_t)local->ptr, (uint32_t)bytes, local->mr->lkey};
  struct ibv_send_wr wr = {.sg_list = &sge,
                           .num_sge = 1,
                           .opcode = opcodes[c->verb],
                           .send_flags = signaled ? IBV_SEND_SIGNALED : 0},
                     *bad;
  if (c->verb != 1) {
    wr.wr.rdma.remote_addr = remote_of->remote_addr;
    wr.wr.rdma.rkey = remote_of->remote_rkey;
  }
  int rc = ibv_post_send(c->qp, &wr, &bad);
  return rc ? verbs_failed(c, "ibv_post_send", rc, err) : CB_OK;
}

static int poll_cq(struct verbs_ctx *c, int n, struct cb_error *err) {
  struct ibv_wc wc[16];
  while (n > 0) {
    int got = ibv_poll_cq(c->cq, n < 16 ? n : 16, wc);
    if (got < 0)
      return verbs_failed(c, "ibv_poll_cq", EIO, err);
    for (int i = 0; i < got; i++)
      if (wc[i].status != IBV_WC_SUCCESS)
        return cb_fail(err, CB_RUNTIME, "rank %d (%s): verbs: completion failed: %s", c->cl->rank,
                       c->cl->hostname, ibv_wc_status_str(wc[i].status));
    n -= got;
  }
  return CB_OK;
}

/* Messages in flight between completions (completion moderation). */
#define SIGNAL_EVERY 16

static int send_window(struct verbs_ctx *c, struct region *src, struct region *dst, size_t bytes,
                       int w, struct cb_error *err) {
  int signaled = 0;
  for (int i = 0; i < w; i++) {
    int sig = (i + 1) % SIGNAL_EVERY == 0 || i == w - 1;
    if (post_send(c, src, dst, bytes, sig, err))
      return err->status;
    signaled += sig;
  }
  return poll_cq(c, signaled, err);
}

static int verbs_run(void *ctx, const struct cb_op_args *a, struct cb_error *err) {
  struct verbs_ctx *c = ctx;
  if (c->peer < 0)
    return CB_OK;
  size_t bytes = a->count * cb_dtypes[a->dtype].size;
  struct region *src = region_of(c, a->send), *dst = region_of(c, a->recv);
  if (!src || !dst)
    return cb_fail(err, CB_RUNTIME, "verbs: buffer not registered");
  int even = c->cl->rank % 2 == 0, reading = c->verb == 2;
  /* write-with-immediate and send consume a receive on the target */
  int w = a->op->id == CB_OP_P2P_LAT ? 1 : a->window;
  switch (a->op->id) {
  case CB_OP_P2P_LAT:
    /* two reads by each rank, so one op time (half of it reported) is one read and both
     * ranks' buffers hold their peer's data for --check (the even rank alone left the odd
     * one's unwritten: every row wrong, found on the stand-in libibverbs). Reads run both
     * ways at once here, where perftest's ib_read_lat reads one way. */
    if (reading)
      return send_window(c, dst, src, bytes, 1, err) || send_window(c, dst, src, bytes, 1, err)
                 ? err->status
                 : CB_OK;
    if (even) {
      if (post_recv(c, dst, bytes, err) || send_window(c, src, dst, bytes, 1, err))
        return err->status;
      return poll_cq(c, 1, err);
    }
    if (post_recv(c, dst, bytes, err) || poll_cq(c, 1, err))
      return err->status;
    return send_window(c, src, dst, bytes, 1, err);
  case CB_OP_P2P_BW:
    if (reading) /* the odd rank pulls what the even one would have pushed */
      return even ? CB_OK : send_window(c, dst, src, bytes, w, err);
    if (even)
      return send_window(c, src, dst, bytes, w, err);
    for (int i = 0; i < w; i++)
      if (post_recv(c, dst, bytes, err))
        return err->status;
    return poll_cq(c, w, err);
  case CB_OP_P2P_BIBW:
    if (reading)
      return send_window(c, dst, src, bytes, w, err);
    for (int i = 0; i < w; i++)
      if (post_recv(c, dst, bytes, err))
        return err->status;
    if (send_window(c, src, dst, bytes, w, err))
      return err->status;
    return poll_cq(c, w, err);
  default: return cb_fail(err, CB_RUNTIME, "verbs: %s is not a point-to-point op", a->op->name);
  }
}

static const char *verbs_unsupported(void *ctx, const struct cb_op *op, int mem, int dtype,
                                     int redop, int inplace) {
  (void)ctx, (void)mem, (void)redop, (void)inplace;
  /* GPU memory the NIC cannot register fails at alloc with every reason:
   * only a registration attempt tells */
  if (cb_dtype_is_fp8(dtype))
    return CB_FP8_NCCL_ONLY;
  if (op->id != CB_OP_P2P_LAT && op->id != CB_OP_P2P_BW && op->id != CB_OP_P2P_BIBW)
    return "the verbs backend measures point-to-point ops only";
  return NULL;
}

static int verbs_sync(void *ctx, struct cb_error *err) {
  (void)ctx, (void)err;
  return CB_OK; /* run() polls its completions */
}

/* "roce/write", and for GPU memory how it was registered: "roce/write/dmabuf"
 * ("/gpu" before the first GPU buffer, for a series' heading). */
static void verbs_transport_label(void *ctx, const struct cb_op *op, int mem, char *buf,
                                  size_t len) {
  struct verbs_ctx *c = ctx;
  (void)op;
  if (mem != CB_MEM_DEVICE || c->peer < 0)
    snprintf(buf, len, "%s", c->label);
  else
    snprintf(buf, len, "%s/%s", c->label, c->gpu_reg >= 0 ? cb_verbs_reg_names[c->gpu_reg] : "gpu");
}

static double verbs_line_gbps(void *ctx) {
  return ((struct verbs_ctx *)ctx)->gbps;
}

static void verbs_finalize(void *ctx) {
  struct verbs_ctx *c = ctx;
  if (!c)
    return;
  MPI_Barrier(c->cl->comm); /* the peer may still read our memory */
  while (c->nregions > 0)
    ibv_dereg_mr(c->regions[--c->nregions].mr);
  if (c->qp)
    ibv_destroy_qp(c->qp);
  if (c->cq)
    ibv_destroy_cq(c->cq);
  if (c->pd)
    ibv_dealloc_pd(c->pd);
  if (c->dev)
    ibv_close_device(c->dev);
  free(c);
}

const struct cb_backend cb_backend_verbs = {
    .name = "verbs",
    .transports = transports,
    .max_count = UINT32_MAX, /* an SGE length is 32 bits */
    .probe = verbs_probe,
    .version = verbs_version,
    .init = verbs_init,
    .unsupported = verbs_unsupported,
    .alloc = verbs_alloc,
    .free = verbs_free,
    .copy = verbs_copy,
    .run = verbs_run,
    .sync = verbs_sync,
    .transport_label = verbs_transport_label,
    .line_gbps = verbs_line_gbps,
    .finalize = verbs_finalize,
};
