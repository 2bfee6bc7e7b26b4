/* Timing the copies of one node with CUDA events: one warm-up, then
 * CB_COPY_REPS timed copies per cell, the median reported. Every cell's
 * destination is cleared first and checked after (its first and last
 * 64 KiB), so a copy that did not happen cannot pass. */
#include <stdlib.h>
#include <string.h>

#include "../probe/probe.h"
#include "base/stats.h"
#include "config.h"
#include "link.h"
#include "runtime/gpu.h"
#include "timing.h"

#if CB_HAVE_CUDA
#include <cuda_runtime.h>

#include "kernels/gpu_copy.h"

#define CHECK_BYTES (64 << 10)

struct gpu {
  void *src, *dst; /* src holds pattern(i); dst receives */
  cudaStream_t stream;
  cudaEvent_t start, end, other_done;
  int blocks; /* for the SM kernel: 4 per SM */
};

struct node {
  int n;
  struct gpu g[CB_COPY_MAX_GPUS];
  unsigned char *host; /* pinned */
  size_t bytes;
  unsigned char *check; /* CHECK_BYTES of host memory */
  int peer[CB_COPY_MAX_GPUS][CB_COPY_MAX_GPUS];
  char sm_why[200];
};

static unsigned char pattern(int gpu) {
  return gpu < 0 ? 0xa5 : (unsigned char)(0x11 * (gpu % 15 + 1));
}

#define TRY(call, what, dev)                                                                       \
  do {                                                                                             \
    cudaError_t rc_ = (call);                                                                      \
    if (rc_ != cudaSuccess)                                                                        \
      return cb_fail(err, CB_RUNTIME, "--op copy: %s on GPU %d: %s", what, dev,                    \
                     cudaGetErrorString(rc_));                                                     \
  } while (0)

int cb_copy_gpus(uint64_t *min_mem, char *why, size_t len) {
  int count = cb_gpu_devices(why, len);
  if (count == 0)
    return 0;
  *min_mem = UINT64_MAX;
  for (int i = 0; i < count; i++) {
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) == cudaSuccess && p.totalGlobalMem < *min_mem)
      *min_mem = p.totalGlobalMem;
  }
  return count;
}

/* One cell's work, queued on the streams of the GPUs it names. */
enum kind { CE, CE_BIDIR, SM, SM_BIDIR, H2D, D2H, NKINDS };
static const char *const kind_names[NKINDS] = {"copy_ce",       "copy_ce_bidir", "copy_sm",
                                               "copy_sm_bidir", "copy_h2d",      "copy_d2h"};
static const char *kind_name(enum kind k) {
  return kind_names[k];
}

static cudaError_t copy_one(struct node *nd, enum kind k, int from, int to, cudaStream_t s) {
  size_t b = nd->bytes;
  switch (k) {
  case CE:
  case CE_BIDIR:
    return from == to
               ? cudaMemcpyAsync(nd->g[to].dst, nd->g[from].src, b, cudaMemcpyDeviceToDevice, s)
               : cudaMemcpyPeerAsync(nd->g[to].dst, to, nd->g[from].src, from, b, s);
  case SM:
  case SM_BIDIR: /* the source GPU's SMs write into the destination */
    return (cudaError_t)cb_copy_kernel_launch(nd->g[to].dst, nd->g[from].src, b, nd->g[from].blocks,
                                              s);
  case H2D: return cudaMemcpyAsync(nd->g[to].dst, nd->host, b, cudaMemcpyHostToDevice, s);
  case D2H: return cudaMemcpyAsync(nd->host, nd->g[from].src, b, cudaMemcpyDeviceToHost, s);
  default: return cudaErrorInvalidValue;
  }
}

/* One timed execution of a cell, in seconds: the one-way copy on the
 * stream of the GPU that drives it, or both directions at once, timed from
 * a start event the other stream waits for to an end event after both. */
static int time_once(struct node *nd, enum kind k, int a, int b, double *sec,
                     struct cb_error *err) {
  int bidir = k == CE_BIDIR || k == SM_BIDIR;
  int drv = k == H2D ? b : a; /* the GPU whose stream runs the copy */
  struct gpu *g = &nd->g[drv], *o = &nd->g[b];
  TRY(cudaSetDevice(drv), "cudaSetDevice", drv);
  TRY(cudaEventRecord(g->start, g->stream), "cudaEventRecord", drv);
  TRY(copy_one(nd, k, k == H2D ? -1 : a, k == D2H ? -1 : b, g->stream), kind_name(k), drv);
  if (bidir) {
    TRY(cudaSetDevice(b), "cudaSetDevice", b);
    TRY(cudaStreamWaitEvent(o->stream, g->start, 0), "cudaStreamWaitEvent", b);
    TRY(copy_one(nd, k, b, a, o->stream), kind_name(k), b);
    TRY(cudaEventRecord(o->other_done, o->stream), "cudaEventRecord", b);
    TRY(cudaSetDevice(drv), "cudaSetDevice", drv);
    TRY(cudaStreamWaitEvent(g->stream, o->other_done, 0), "cudaStreamWaitEvent", drv);
  }
  TRY(cudaEventRecord(g->end, g->stream), "cudaEventRecord", drv);
  TRY(cudaEventSynchronize(g->end), kind_name(k), drv);
  float ms = 0;
  TRY(cudaEventElapsedTime(&ms, g->start, g->end), "cudaEventElapsedTime", drv);
  *sec = ms * 1e-3;
  return CB_OK;
}

/* Bytes of `len` at `p` (device or host) that are not `want`. */
static int count_wrong(struct node *nd, const void *p, int dev, unsigned char want, long *wrong,
                       struct cb_error *err) {
  size_t len = nd->bytes < CHECK_BYTES ? nd->bytes : CHECK_BYTES;
  size_t offs[2] = {0, nd->bytes - len};
  for (int part = 0; part < (nd->bytes > len ? 2 : 1); part++) {
    TRY(cudaMemcpy(nd->check, (const char *)p + offs[part], len, cudaMemcpyDefault),
        "checking the copy", dev);
    for (size_t i = 0; i < len; i++)
      *wrong += nd->check[i] != want;
  }
  return CB_OK;
}

static int clear(struct node *nd, enum kind k, int a, int b, struct cb_error *err) {
  if (k == D2H) {
    memset(nd->host, 0, nd->bytes);
    return CB_OK;
  }
  if (k == H2D)
    memset(nd->host, pattern(-1), nd->bytes);
  int targets[2] = {b, a};
  for (int t = 0; t < (k == CE_BIDIR || k == SM_BIDIR ? 2 : 1); t++) {
    TRY(cudaSetDevice(targets[t]), "cudaSetDevice", targets[t]);
    TRY(cudaMemset(nd->g[targets[t]].dst, 0, nd->bytes), "cudaMemset", targets[t]);
  }
  return CB_OK;
}

static int verify(struct node *nd, enum kind k, int a, int b, long *wrong, struct cb_error *err) {
  *wrong = 0;
  if (k == D2H)
    return count_wrong(nd, nd->host, a, pattern(a), wrong, err);
  if (count_wrong(nd, nd->g[b].dst, b, pattern(k == H2D ? -1 : a), wrong, err))
    return err->status;
  if (k == CE_BIDIR || k == SM_BIDIR)
    return count_wrong(nd, nd->g[a].dst, a, pattern(b), wrong, err);
  return CB_OK;
}

static int measure_cell(struct node *nd, enum kind k, int a, int b, struct cb_copy_cell *c,
                        struct cb_error *err) {
  double t[CB_COPY_REPS + 1];
  if (clear(nd, k, a, b, err))
    return err->status;
  for (int r = 0; r <= CB_COPY_REPS; r++) /* t[0]: the warm-up */
    if (time_once(nd, k, a, b, &t[r], err))
      return err->status;
  if (verify(nd, k, a, b, &c->wrong, err))
    return err->status;
  struct cb_stats st;
  cb_stats_compute(t + 1, CB_COPY_REPS, &st);
  int bidir = k == CE_BIDIR || k == SM_BIDIR;
  c->GBps = (bidir ? 2.0 : 1.0) * (double)nd->bytes / st.median / 1e9;
  snprintf(c->matrix, sizeof c->matrix, "%s", kind_name(k));
  c->src = k == H2D ? -1 : a;
  c->dst = k == D2H ? -1 : b;
  return CB_OK;
}

static int setup(struct node *nd, struct cb_error *err) {
  for (int i = 0; i < nd->n; i++) {
    struct gpu *g = &nd->g[i];
    struct cudaDeviceProp p;
    TRY(cudaSetDevice(i), "cudaSetDevice", i);
    TRY(cudaGetDeviceProperties(&p, i), "cudaGetDeviceProperties", i);
    g->blocks = 4 * p.multiProcessorCount;
    TRY(cudaMalloc(&g->src, nd->bytes), "cudaMalloc", i);
    TRY(cudaMalloc(&g->dst, nd->bytes), "cudaMalloc", i);
    TRY(cudaMemset(g->src, pattern(i), nd->bytes), "cudaMemset", i);
    TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), "cudaStreamCreate", i);
    TRY(cudaEventCreate(&g->start), "cudaEventCreate", i);
    TRY(cudaEventCreate(&g->end), "cudaEventCreate", i);
    TRY(cudaEventCreateWithFlags(&g->other_done, cudaEventDisableTiming), "cudaEventCreate", i);
    for (int j = 0; j < nd->n; j++) {
      int can = 0;
      if (j == i || cudaDeviceCanAccessPeer(&can, i, j) != cudaSuccess || !can)
        continue;
      cudaError_t rc = cudaDeviceEnablePeerAccess(j, 0);
      if (rc != cudaSuccess && rc != cudaErrorPeerAccessAlreadyEnabled)
        return cb_fail(err, CB_RUNTIME, "--op copy: cudaDeviceEnablePeerAccess(%d) on GPU %d: %s",
                       j, i, cudaGetErrorString(rc));
      cudaGetLastError(); /* clear an already-enabled */
      nd->peer[i][j] = 1;
    }
  }
  /* the SM copy kernel once: a GPU that cannot run it (no kernel image for it in this build)
   * still has its copy engines measured */
  TRY(cudaSetDevice(0), "cudaSetDevice", 0);
  cudaError_t sm =
      (cudaError_t)cb_copy_kernel_launch(nd->g[0].dst, nd->g[0].src, 16, 1, nd->g[0].stream);
  if (sm == cudaSuccess)
    sm = cudaStreamSynchronize(nd->g[0].stream);
  if (sm != cudaSuccess) {
    cudaGetLastError();
    snprintf(nd->sm_why, sizeof nd->sm_why, "%s (%d)", cudaGetErrorString(sm), (int)sm);
  }
  TRY(cudaHostAlloc((void **)&nd->host, nd->bytes, cudaHostAllocPortable), "cudaHostAlloc", 0);
  TRY(cudaHostAlloc((void **)&nd->check, CHECK_BYTES, cudaHostAllocPortable), "cudaHostAlloc", 0);
  return CB_OK;
}

static void teardown(struct node *nd) {
  for (int i = 0; i < nd->n; i++) {
    struct gpu *g = &nd->g[i];
    cudaSetDevice(i);
    for (int j = 0; j < nd->n; j++)
      if (nd->peer[i][j])
        cudaDeviceDisablePeerAccess(j);
    cudaFree(g->src);
    cudaFree(g->dst);
    if (g->stream)
      cudaStreamDestroy(g->stream);
    if (g->start)
      cudaEventDestroy(g->start);
    if (g->end)
      cudaEventDestroy(g->end);
    if (g->other_done)
      cudaEventDestroy(g->other_done);
  }
  cudaFreeHost(nd->host);
  cudaFreeHost(nd->check);
}

/* NVLink or PCIe per pair, from the probe's NVML view when it has one. */
static const char *pair_link(const struct cb_probe_node *pn, struct node *nd, int a, int b) {
  const struct cb_probe_gpu *ga = &pn->gpus[a], *gb = &pn->gpus[b];
  int nvml = ga->nvlinks >= 0 && gb->nvlinks >= 0, direct = 0, atomics = 0;
  for (int p = 0; nvml && p < ga->npeers; p++)
    direct |= cb_bus_id_same(ga->nvlink_peers[p], gb->bus_id);
  if (a != b && !nvml)
    cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, a, b);
  return cb_copy_link(a == b, nvml, direct, ga->nvlinks_to_switch > 0 && gb->nvlinks_to_switch > 0,
                      nd->peer[a][b], atomics);
}

static int measure_all(struct node *nd, const struct cb_probe_node *pn, struct cb_copy_node *out,
                       struct cb_error *err) {
  for (enum kind k = CE; k <= SM_BIDIR; k++)
    for (int a = 0; a < nd->n; a++)
      for (int b = 0; b < nd->n; b++) {
        int bidir = k == CE_BIDIR || k == SM_BIDIR, sm = k == SM || k == SM_BIDIR;
        /* both ways at once needs two GPUs; a kernel writing into a peer
         * needs peer access (both ways for both directions) */
        if ((bidir && a == b) ||
            (sm && a != b && !(nd->peer[a][b] && (k == SM || nd->peer[b][a]))) ||
            (sm && nd->sm_why[0]))
          continue;
        struct cb_copy_cell *c = &out->cells[out->ncells];
        if (measure_cell(nd, k, a, b, c, err))
          return err->status;
        snprintf(c->link, sizeof c->link, "%s", pair_link(pn, nd, a, b));
        out->ncells++;
      }
  for (enum kind k = H2D; k <= D2H; k++)
    for (int g = 0; g < nd->n; g++) {
      struct cb_copy_cell *c = &out->cells[out->ncells];
      if (measure_cell(nd, k, g, g, c, err))
        return err->status;
      snprintf(c->link, sizeof c->link, "host");
      out->ncells++;
    }
  return CB_OK;
}

int cb_copy_measure(uint64_t bytes, struct cb_copy_node *out, struct cb_error *err) {
  struct node *nd = calloc(1, sizeof *nd);
  struct cb_probe_node *pn = calloc(1, sizeof *pn);
  if (!nd || !pn) {
    free(nd);
    free(pn);
    return cb_fail(err, CB_RUNTIME, "--op copy: out of memory");
  }
  cb_probe_gpus(pn); /* names the links (NVML) */
  uint64_t min_mem;
  char why[CB_PROBE_WHY];
  nd->n = cb_copy_gpus(&min_mem, why, sizeof why);
  if (nd->n > CB_COPY_MAX_GPUS)
    nd->n = CB_COPY_MAX_GPUS;
  nd->bytes = bytes < 16 ? 16 : bytes / 16 * 16; /* the kernel moves 16-byte words */
  out->ngpus = nd->n;
  int rc = nd->n == 0       ? cb_fail(err, CB_USAGE, "--op copy needs a GPU: %s", why)
           : setup(nd, err) ? err->status
                            : measure_all(nd, pn, out, err);
  snprintf(out->sm_why, sizeof out->sm_why, "%s", nd->sm_why);
  teardown(nd);
  free(nd);
  free(pn);
  return rc;
}

#else

int cb_copy_gpus(uint64_t *min_mem, char *why, size_t len) {
  *min_mem = 0;
  return cb_gpu_devices(why, len);
}

int cb_copy_measure(uint64_t bytes, struct cb_copy_node *out, struct cb_error *err) {
  (void)bytes;
  (void)out;
  return cb_fail(err, CB_USAGE, "--op copy needs a GPU: not built with CUDA");
}

#endif
