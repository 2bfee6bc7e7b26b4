/* The layout's step on a GPU (layout_transport.h): a communicator per
 * dimension split from one world communicator (ncclCommSplit), each on a
 * CUDA stream of its own, and cuBLAS GEMMs of each compute's FLOPs on the
 * compute stream, in the model's dtype. An op starts after the point of
 * the compute stream where the plan issues it (an event) and records its
 * end; a wait makes the compute stream wait for that end. What a wait
 * costs is the compute stream's stall: an event recorded just before the
 * wait and one just after, timed by CUDA once the round is done.
 * A stream runs its ops in order, where MPI progresses each posted one: so
 * the pipeline's traffic goes on four communicators and streams, by
 * direction (activations forward, gradients back) and by the parity of
 * the link between stages s and s + 1 it crosses. A stream then carries
 * one kind of op to one peer: a stage's send never queues behind a receive
 * that waits on its peer, which could wait on this stage in turn.
 * NCCL's algorithm per communicator is not chosen here yet. */
#include <cuda_runtime.h>
#include <nccl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/nccl_end.h"
#include "backends/nccl_logfile.h"
#include "kernels/gpu_blas.h"
#include "layout_transport.h"
#include "nccl_choice.h"
#include "runtime/watchdog.h"

/* the pipeline's: CB_SC_PP carries activations over even links */
enum { PP_FWD_ODD = CB_NSC, PP_BACK_EVEN, PP_BACK_ODD, NCOMMS };

struct mark {
  cudaEvent_t before, after;
  int comm;
};

struct dev {
  const struct cb_cluster *cl;
  const struct cb_layout_need *need;
  char where[320];
  ncclComm_t world, comm[NCOMMS]; /* NULL where the group has one rank */
  cudaStream_t compute, stream[NCOMMS];
  cublasHandle_t blas;
  ncclDataType_t ntype;
  cudaDataType_t btype;
  size_t esize;
  char *send, *recv; /* device: a region of slot_elems per slot */
  void *a, *b, *c;   /* the GEMM's operands: t x h times h x 4h */
  size_t gm, gk, gn;
  cudaEvent_t issued, *done; /* a point of the compute stream; each slot's end */
  struct mark *marks;        /* the round's waits */
  int nmarks, capmarks;
  int failed;
};

static const ncclDataType_t nccl_types[CB_MODEL_NDTYPES] = {
    [CB_MODEL_FLOAT] = ncclFloat32, [CB_MODEL_BF16] = ncclBfloat16, [CB_MODEL_FP16] = ncclFloat16};
static const cudaDataType_t blas_types[CB_MODEL_NDTYPES] = {CUDA_R_32F, CUDA_R_16BF, CUDA_R_16F};

static int cuda_failed(struct dev *d, const char *call, cudaError_t e, struct cb_error *err) {
  d->failed = 1;
  return cb_fail(err, CB_RUNTIME, "%s: --tune --parallel nccl: %s failed: %s (%d)", d->where, call,
                 cudaGetErrorString(e), (int)e);
}

static int nccl_failed(struct dev *d, const char *call, ncclResult_t r, struct cb_error *err) {
  d->failed = 1;
  return cb_nccl_fail(err, d->where, call, (int)r, ncclGetErrorString(r), ncclGetLastError(NULL));
}

static int nalgs(void *t, int op) {
  (void)t, (void)op;
  return 0;
}

static const char *algo_name(int op, int alg) {
  (void)op;
  return alg == 0 ? "library" : NULL;
}

/* The stream and communicator of an event's op: a pipeline's by its
 * direction and the parity of its link, min(stage, peer). */
static int comm_of(const struct dev *d, const struct cb_step_event *e) {
  if (e->comm != CB_SC_PP)
    return e->comm;
  int stage = d->need->stage, link = stage < e->peer ? stage : e->peer;
  int forward = e->op == CB_EV_SEND ? e->peer > stage : e->peer < stage;
  static const int pp[2][2] = {{PP_BACK_EVEN, PP_BACK_ODD}, {CB_SC_PP, PP_FWD_ODD}};
  return pp[forward][link & 1];
}

/* Whether communicator c of the transport exists for this layout. */
static int needed(const struct dev *d, int c) {
  if (c < CB_NSC)
    return cb_layout_group_size(d->need->l, c) > 1;
  int stages = cb_layout_group_size(d->need->l, CB_SC_PP);
  return c == PP_BACK_EVEN ? stages > 1 : stages > 2; /* an odd link: 3 stages or more */
}

static void dev_close(void *t) {
  struct dev *d = t;
  if (!d)
    return;
  for (int c = 0; c < NCOMMS; c++) {
    cb_nccl_comm_end(d->comm[c], d->failed);
    if (d->stream[c])
      cudaStreamDestroy(d->stream[c]);
  }
  cb_nccl_comm_end(d->world, d->failed);
  if (d->blas)
    cb_cublas.cublasDestroy(d->blas);
  for (int i = 0; i < d->capmarks; i++)
    cudaEventDestroy(d->marks[i].before), cudaEventDestroy(d->marks[i].after);
  for (int s = 0; d->done && s < (d->need->nslots ? d->need->nslots : 1); s++)
    if (d->done[s])
      cudaEventDestroy(d->done[s]);
  if (d->issued)
    cudaEventDestroy(d->issued);
  if (d->compute)
    cudaStreamDestroy(d->compute);
  cudaFree(d->send), cudaFree(d->recv), cudaFree(d->a), cudaFree(d->b), cudaFree(d->c);
  free(d->done), free(d->marks);
  free(d);
}

/* The world communicator, then one split per dimension of 2+ ranks
 * (every rank calls each split: ncclCommSplit is collective over world). */
static int open_comms(struct dev *d, struct cb_error *err) {
  const struct cb_cluster *cl = d->cl;
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  ncclResult_t r = cl->rank == 0 ? ncclGetUniqueId(&id) : ncclSuccess;
  int status = r == ncclSuccess ? CB_OK : nccl_failed(d, "ncclGetUniqueId", r, err);
  if (cb_cluster_agree(cl, status))
    return status ? status : cb_fail(err, CB_RUNTIME, "--tune nccl: rank 0 has no unique id");
  MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, cl->comm);
  cb_watchdog_arm("--tune --parallel nccl: communicator setup (ncclCommInitRank)");
  r = ncclCommInitRank(&d->world, cl->nranks, id, cl->rank);
  cb_watchdog_disarm();
  if (r != ncclSuccess)
    return nccl_failed(d, "ncclCommInitRank", r, err);
  for (int c = 0; c < NCOMMS; c++) {
    int sc = c < CB_NSC ? c : CB_SC_PP;
    if (!needed(d, c))
      continue;
    cb_watchdog_arm("--tune --parallel nccl: ncclCommSplit");
    r = ncclCommSplit(d->world, cb_layout_color(d->need->l, cl->rank, sc), cl->rank, &d->comm[c],
                      NULL);
    cb_watchdog_disarm();
    if (r != ncclSuccess)
      return nccl_failed(d, "ncclCommSplit", r, err);
    cudaError_t e = cudaStreamCreateWithFlags(&d->stream[c], cudaStreamNonBlocking);
    if (e != cudaSuccess)
      return cuda_failed(d, "cudaStreamCreate", e, err);
  }
  return CB_OK;
}

static int dev_open(const struct cb_cluster *cl, const struct cb_layout_need *need, void **t,
                    struct cb_error *err) {
  struct dev *d = calloc(1, sizeof *d);
  if (!d)
    return cb_fail(err, CB_RUNTIME, "rank %d: out of memory for the layout's step", cl->rank);
  *t = d;
  d->cl = cl, d->need = need;
  snprintf(d->where, sizeof d->where, "rank %d (%s)", cl->rank, cl->hostname);
  const struct cb_model *m = need->m;
  int type = m->dtype >= 0 && m->dtype < CB_MODEL_NDTYPES ? m->dtype : CB_MODEL_FLOAT;
  d->ntype = nccl_types[type], d->btype = blas_types[type];
  d->esize = cb_model_dtype_bytes(type);
  cb_nccl_log_open(); /* before NCCL first logs: its WARN lines go to the process's log */
  if (cb_cublas_load(err))
    return err->status;
  size_t slots = need->nslots ? (size_t)need->nslots : 1;
  d->gm = (size_t)(m->seq * m->batch), d->gk = (size_t)m->hidden, d->gn = 4 * (size_t)m->hidden;
  cudaError_t e = cudaStreamCreateWithFlags(&d->compute, cudaStreamNonBlocking);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags(&d->issued, cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = cudaMalloc((void **)&d->send, (slots * need->slot_elems + 1) * d->esize);
  if (e == cudaSuccess)
    e = cudaMalloc((void **)&d->recv, (slots * need->slot_elems + 1) * d->esize);
  if (e == cudaSuccess)
    e = cudaMalloc(&d->a, d->gm * d->gk * d->esize);
  if (e == cudaSuccess)
    e = cudaMalloc(&d->b, d->gk * d->gn * d->esize);
  if (e == cudaSuccess)
    e = cudaMalloc(&d->c, d->gm * d->gn * d->esize);
  if (e == cudaSuccess) /* zeros: a GEMM of garbage may be slow (denormals) or NaN */
    e = cudaMemset(d->a, 0, d->gm * d->gk * d->esize);
  if (e == cudaSuccess)
    e = cudaMemset(d->b, 0, d->gk * d->gn * d->esize);
  if (e != cudaSuccess)
    return cuda_failed(d, "cudaStreamCreate/cudaMalloc", e, err);
  d->done = calloc(slots, sizeof *d->done);
  if (!d->done)
    return cb_fail(err, CB_RUNTIME, "%s: out of memory", d->where);
  for (size_t s = 0; s < slots; s++)
    if ((e = cudaEventCreateWithFlags(&d->done[s], cudaEventDisableTiming)) != cudaSuccess)
      return cuda_failed(d, "cudaEventCreate", e, err);
  cublasStatus_t st = cb_cublas.cublasCreate(&d->blas);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cb_cublas.cublasSetStream(d->blas, d->compute);
  if (st != CUBLAS_STATUS_SUCCESS)
    return cb_fail(err, CB_RUNTIME, "%s: cublasCreate/cublasSetStream: %s (%d)", d->where,
                   cb_cublas.cublasGetStatusString(st), (int)st);
  return open_comms(d, err);
}

static int dev_start(void *t, const struct cb_step_event *e, int alg, struct cb_error *err) {
  struct dev *d = t;
  (void)alg;
  int c = comm_of(d, e), n = 1;
  ncclComm_t comm = d->comm[c];
  cudaStream_t st = d->stream[c];
  cudaError_t ce = cudaEventRecord(d->issued, d->compute);
  if (ce == cudaSuccess)
    ce = cudaStreamWaitEvent(st, d->issued, 0);
  if (ce != cudaSuccess)
    return cuda_failed(d, "cudaEventRecord/cudaStreamWaitEvent", ce, err);
  ncclCommCount(comm, &n);
  size_t at = (size_t)e->slot * d->need->slot_elems * d->esize, count = (size_t)e->elems;
  char *sb = d->send + at, *rb = d->recv + at;
  ncclResult_t r = ncclSuccess;
  const char *call = "";
  switch (e->op) {
  case CB_EV_ALLREDUCE:
    call = "ncclAllReduce";
    r = ncclAllReduce(sb, rb, count, d->ntype, ncclSum, comm, st);
    break;
  case CB_EV_ALLGATHER:
    call = "ncclAllGather";
    r = ncclAllGather(sb, rb, count / (size_t)n, d->ntype, comm, st);
    break;
  case CB_EV_REDUCE_SCATTER:
    call = "ncclReduceScatter";
    r = ncclReduceScatter(sb, rb, count / (size_t)n, d->ntype, ncclSum, comm, st);
    break;
  case CB_EV_ALLTOALLV: { /* as nccl-tests' alltoallv: a send and a receive per peer, grouped */
    int *const *v = d->need->a2a[e->reverse];
    call = "ncclSend/ncclRecv (all-to-all-v)";
    r = ncclGroupStart();
    for (int p = 0; p < n && r == ncclSuccess; p++) {
      r = ncclSend(sb + (size_t)v[CB_A2A_SD][p] * d->esize, (size_t)v[CB_A2A_SC][p], d->ntype, p,
                   comm, st);
      if (r == ncclSuccess)
        r = ncclRecv(rb + (size_t)v[CB_A2A_RD][p] * d->esize, (size_t)v[CB_A2A_RC][p], d->ntype, p,
                     comm, st);
    }
    ncclResult_t end = ncclGroupEnd();
    r = r == ncclSuccess ? end : r;
    break;
  }
  case CB_EV_SEND:
    call = "ncclSend";
    r = ncclSend(sb, count, d->ntype, e->peer, comm, st);
    break;
  default: call = "ncclRecv"; r = ncclRecv(rb, count, d->ntype, e->peer, comm, st);
  }
  if (r != ncclSuccess)
    return nccl_failed(d, call, r, err);
  ce = cudaEventRecord(d->done[e->slot], st);
  return ce == cudaSuccess ? CB_OK : cuda_failed(d, "cudaEventRecord", ce, err);
}

/* The compute stream waits for the op's end, between two timed events. */
static int dev_wait(void *t, const struct cb_step_event *e, struct cb_error *err) {
  struct dev *d = t;
  if (d->nmarks == d->capmarks) {
    int cap = d->capmarks ? 2 * d->capmarks : 64;
    struct mark *m = realloc(d->marks, (size_t)cap * sizeof *m);
    if (!m)
      return cb_fail(err, CB_RUNTIME, "%s: out of memory for the step's waits", d->where);
    d->marks = m;
    for (; d->capmarks < cap; d->capmarks++) {
      struct mark *k = &d->marks[d->capmarks];
      cudaError_t ce = cudaEventCreate(&k->before);
      if (ce == cudaSuccess && (ce = cudaEventCreate(&k->after)) != cudaSuccess)
        cudaEventDestroy(k->before);
      if (ce != cudaSuccess)
        return cuda_failed(d, "cudaEventCreate", ce, err);
    }
  }
  struct mark *k = &d->marks[d->nmarks++];
  k->comm = e->comm;
  cudaError_t ce = cudaEventRecord(k->before, d->compute);
  if (ce == cudaSuccess)
    ce = cudaStreamWaitEvent(d->compute, d->done[e->slot], 0);
  if (ce == cudaSuccess)
    ce = cudaEventRecord(k->after, d->compute);
  return ce == cudaSuccess ? CB_OK : cuda_failed(d, "cudaEventRecord/cudaStreamWaitEvent", ce, err);
}

/* flops as GEMMs of the layer's width: t x h times h x n, n up to 4h. */
static int dev_compute(void *t, double flops, int comm, struct cb_error *err) {
  struct dev *d = t;
  (void)comm; /* the GPU progresses NCCL's kernels on its own */
  const float one = 1.0f, zero = 0.0f;
  size_t cols = (size_t)(flops / (2.0 * (double)d->gm * (double)d->gk) + 0.5);
  while (cols > 0) {
    size_t n = cols < d->gn ? cols : d->gn;
    /* column-major: out^T (n x gm) = b^T (n x gk) a^T (gk x gm) */
    cublasStatus_t st =
        cb_cublas.cublasGemmEx(d->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)d->gm, (int)d->gk,
                               &one, d->b, d->btype, (int)d->gn, d->a, d->btype, (int)d->gk, &zero,
                               d->c, d->btype, (int)d->gn, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS)
      return cb_fail(err, CB_RUNTIME, "%s: cublasGemmEx: %s (%d)", d->where,
                     cb_cublas.cublasGetStatusString(st), (int)st);
    cols -= n;
  }
  return CB_OK;
}

/* Polls rather than blocking in cudaStreamSynchronize, so an asynchronous
 * NCCL error (a peer gone) ends the wait with a message; a true hang is
 * the watchdog's (--timeout). */
static int drain(struct dev *d, cudaStream_t st, struct cb_error *err) {
  for (;;) {
    cudaError_t e = cudaStreamQuery(st);
    if (e == cudaSuccess)
      return CB_OK;
    if (e != cudaErrorNotReady)
      return cuda_failed(d, "cudaStreamQuery", e, err);
    sched_yield(); /* NCCL's proxy thread may share this core */
    for (int c = 0; c < NCOMMS; c++) {
      ncclResult_t async = ncclSuccess;
      if (d->comm[c] && ncclCommGetAsyncError(d->comm[c], &async) == ncclSuccess &&
          async != ncclSuccess && async != ncclInProgress)
        return nccl_failed(d, "an NCCL op of the step (asynchronous error)", async, err);
    }
  }
}

static int dev_finish(void *t, double wait[CB_NSC], struct cb_error *err) {
  struct dev *d = t;
  memset(wait, 0, CB_NSC * sizeof *wait);
  if (drain(d, d->compute, err))
    return err->status;
  for (int c = 0; c < NCOMMS; c++)
    if (d->stream[c] && drain(d, d->stream[c], err))
      return err->status;
  for (int i = 0; i < d->nmarks; i++) {
    float ms = 0;
    cudaError_t e = cudaEventElapsedTime(&ms, d->marks[i].before, d->marks[i].after);
    if (e != cudaSuccess)
      return cuda_failed(d, "cudaEventElapsedTime", e, err);
    wait[d->marks[i].comm] += ms * 1e-3;
  }
  d->nmarks = 0;
  return CB_OK;
}

const struct cb_layout_transport cb_layout_nccl = {
    .name = "nccl",
    .what = "NCCL on a communicator and CUDA stream per dimension, cuBLAS GEMMs",
    .gpu = 1,
    .where = "the GPU",
    .no_algos = "NCCL's per communicator is not built",
    .open = dev_open,
    .nalgs = nalgs,
    .algo_name = algo_name,
    .start = dev_start,
    .wait = dev_wait,
    .compute = dev_compute,
    .finish = dev_finish,
    .close = dev_close,
};
