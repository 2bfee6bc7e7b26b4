/* The reference step computed on the host, its gradients on the GPU: the host kernel
 * (kernels/host.c, OpenBLAS in float) with each gradient copied into device memory on a stream
 * of its own as soon as backward makes it final. --tune on NCCL takes it where collbench's GPU
 * kernels cannot run on the bound GPU (a build without code for it, or the test stand-in of
 * CUDA), so NCCL still reduces device memory; T_compute is then the host's, and the run says
 * so (tuner/step_setup.c). */
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "compute.h"

extern const struct cb_compute cb_compute_openblas; /* host.c */

struct hg {
  const struct cb_compute *host;
  void *hctx;
  float *dev;
  cudaStream_t stream;
  size_t *end; /* the end of tensor i (ready order) in the flat gradients, in elements */
  size_t copied;
  const struct cb_step_hooks *user;
};

static int cuda_ok(cudaError_t rc, const char *call, struct cb_error *err) {
  return rc == cudaSuccess ? 1
                           : !cb_fail(err, CB_RUNTIME, "host step, GPU gradients: %s: %s (%d)",
                                      call, cudaGetErrorString(rc), (int)rc);
}

static void hg_finalize(void *ctx) {
  struct hg *c = ctx;
  if (c->hctx)
    c->host->finalize(c->hctx);
  if (c->dev)
    cudaFree(c->dev);
  if (c->stream)
    cudaStreamDestroy(c->stream);
  free(c->end);
  free(c);
}

static int hg_init(const struct cb_model *m, int threads, void **ctx, struct cb_error *err) {
  struct hg *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "host step, GPU gradients: out of memory");
  int n = m->layers * CB_T_PER_LAYER;
  c->end = calloc((size_t)n, sizeof *c->end);
  c->host = &cb_compute_openblas;
  if (!c->end) {
    hg_finalize(c);
    return cb_fail(err, CB_RUNTIME, "host step, GPU gradients: out of memory");
  }
  for (int i = 0; i < n; i++) /* grads are laid out in ready order (compute.h) */
    c->end[i] = (i ? c->end[i - 1] : 0) + cb_model_tensor_elems(m, i % CB_T_PER_LAYER);
  if (c->host->init(m, threads, &c->hctx, err) ||
      !cuda_ok(cudaMalloc((void **)&c->dev, cb_model_params(m) * sizeof(float)), "cudaMalloc",
               err) ||
      !cuda_ok(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate",
               err)) {
    hg_finalize(c);
    return err->status;
  }
  *ctx = c;
  return CB_OK;
}

/* a gradient is final on the host: copied behind the ones before it, then handed on (the
 * stream orders whoever reads it after the copy, as on the GPU step) */
static int hg_ready(void *user, int tensor, struct cb_error *err) {
  struct hg *c = user;
  float *g = c->host->grads(c->hctx);
  size_t end = c->end[tensor];
  if (!cuda_ok(cudaMemcpyAsync(c->dev + c->copied, g + c->copied, (end - c->copied) * sizeof *g,
                               cudaMemcpyHostToDevice, c->stream),
               "cudaMemcpyAsync", err))
    return err->status;
  c->copied = end;
  return c->user && c->user->ready ? c->user->ready(c->user->user, tensor, err) : CB_OK;
}

static void hg_poll(void *user) {
  struct hg *c = user;
  if (c->user && c->user->poll)
    c->user->poll(c->user->user);
}

static int hg_step(void *ctx, const struct cb_step_hooks *hooks, struct cb_error *err) {
  struct hg *c = ctx;
  struct cb_step_hooks mine = {hg_ready, hg_poll, c};
  c->user = hooks, c->copied = 0;
  int rc = c->host->step(c->hctx, &mine, err);
  if (rc == CB_OK && !cuda_ok(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize", err))
    rc = err->status;
  return rc;
}

static void *hg_grads(void *ctx) {
  return ((struct hg *)ctx)->dev;
}
static int hg_grad_dtype(void *ctx) {
  (void)ctx;
  return CB_MODEL_FLOAT;
}
static void *hg_stream(void *ctx) {
  return ((struct hg *)ctx)->stream;
}
static double hg_flops(void *ctx) {
  struct hg *c = ctx;
  return c->host->flops(c->hctx);
}

const struct cb_compute cb_compute_host_gpu_grads = {
    .name = "openblas, gradients on the GPU",
    .init = hg_init,
    .grads = hg_grads,
    .grad_dtype = hg_grad_dtype,
    .stream = hg_stream,
    .step = hg_step,
    .params = NULL,
    .loss = NULL,
    .flops = hg_flops,
    .finalize = hg_finalize,
};
