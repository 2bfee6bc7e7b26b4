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
 * NCCL's algorithm and protocol per communicator and op: NCCL reads
 * NCCL_ALGO and NCCL_PROTO when a communicator starts, so each pair the
 * search may try is a communicator of its own, split at open with the two
 * variables set and used by that op alone, on its dimension's stream (the
 * dimension's ops stay in issue order). The pairs are those NCCL runs on
 * a communicator of that size and node count (space.c's pruning). */
#include <cuda_runtime.h>
#include <nccl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/nccl_end.h"
#include "backends/nccl_logfile.h"
#include "kernels/gpu_blas.h"
#include "layout_rules.h"
#include "layout_transport.h"
#include "nccl_choice.h"
#include "nccl_world.h"
#include "plugin.h"
#include "runtime/watchdog.h"
#include "space.h"

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
  void *probe;       /* device: 2 x nranks elements, each pair's op once */
  void *a, *b, *c;   /* the GEMM's operands: t x h times h x 4h */
  size_t gm, gk, gn;
  cudaEvent_t issued, *done; /* a point of the compute stream; each slot's end */
  /* each op's communicator with a pair forced, by the pair's code (space.h's
   * cb_nccl_pair_code); NULL where it is not split or this rank's group
   * does not issue the op */
  ncclComm_t pair[CB_NSC][CB_NEV_OPS][1 + CB_NCCL_NPAIRS];
  struct mark *marks; /* the round's waits */
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

static int algs(void *t, int comm, int op, int *alg) {
  struct dev *d = t;
  int n = 0;
  for (int code = 1;
       comm >= 0 && comm < CB_NSC && op >= 0 && op < CB_NEV_OPS && code <= CB_NCCL_NPAIRS; code++)
    if (d->pair[comm][op][code])
      alg[n++] = code;
  return n;
}

static const char *algo_name(int op, int alg) {
  (void)op;
  return cb_nccl_pair_name(alg);
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
  for (int c = 0; c < CB_NSC; c++)
    for (int o = 0; o < CB_NEV_OPS; o++)
      for (int code = 1; code <= CB_NCCL_NPAIRS; code++)
        cb_nccl_comm_end(d->pair[c][o][code], d->failed);
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
  cudaFree(d->probe);
  free(d->done), free(d->marks);
  free(d);
}

/* The pairs NCCL runs for collective op on dimension c, as this rank's
 * group of it sees NCCL's rules; agreed over the world (a bit each), so
 * every rank makes the same splits. */
static int pair_codes(struct dev *d, int c, int op, int *codes) {
  const struct cb_cluster *cl = d->cl;
  int mine[2] = {0, 0}, all[2], n = 0;
  unsigned mask = ~0u, agreed;
  struct cb_nccl_view v;
  if (cb_layout_nccl_colls[op] && d->need->uses[c][op]) {
    mine[1] = cb_layout_nccl_view(cl, d->need->share_gpu, d->need->l, c, &v) != 0;
    int got[CB_NCCL_NPAIRS],
        ng = mine[1] ? 0 : cb_nccl_pair_codes(cb_layout_nccl_colls[op], &v, got);
    mask = 0;
    for (int a = 0; a < ng; a++)
      mask |= 1u << got[a];
    mine[0] = 1;
  }
  /* whether any rank issues the op there, any ran out of memory; the pairs
   * every issuing rank's group runs (ranks that do not issue it: all ones) */
  MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, cl->comm);
  MPI_Allreduce(&mask, &agreed, 1, MPI_UNSIGNED, MPI_BAND, cl->comm);
  if (!all[0] || all[1])
    return all[1] ? -1 : 0;
  for (int code = 1; code <= CB_NCCL_NPAIRS; code++)
    if (agreed & 1u << code)
      codes[n++] = code;
  return n;
}

static int drain(struct dev *d, cudaStream_t st, struct cb_error *err);

/* The op once on a communicator of this rank's group: small, from the
 * probe buffer (2 x the world's ranks elements). */
static ncclResult_t probe_op(struct dev *d, int op, ncclComm_t comm, cudaStream_t st) {
  int n = 1;
  ncclResult_t r = ncclCommCount(comm, &n);
  char *half = (char *)d->probe + (size_t)d->cl->nranks * d->esize;
  if (r != ncclSuccess)
    return r;
  if (op == CB_EV_ALLREDUCE)
    return ncclAllReduce(d->probe, half, (size_t)n, d->ntype, ncclSum, comm, st);
  if (op == CB_EV_ALLGATHER)
    return ncclAllGather(d->probe, half, 1, d->ntype, comm, st);
  return ncclReduceScatter(d->probe, half, 1, d->ntype, ncclSum, comm, st);
}

/* NCCL refuses a forced pair it cannot run when the op is enqueued, not
 * at the split (NVIDIA/nccl v2.28.9-1 src/enqueue.cc, topoGetAlgoInfo:
 * "no algorithm/protocol available"; cb_nccl_pair_refused says which code;
 * whether a pair is available does not depend on the size). So each
 * pair's op runs once at open, on a stream of its own; a pair refused on
 * any rank is aborted on every rank (which also ends a probe left waiting
 * on a peer that was refused) and dropped from the search, rank 0 saying
 * which and NCCL's words. Any other failure (sockets, memory, descriptors)
 * is no refusal: the run fails with NCCL's words, on every rank. */
enum { PROBE_RAN, PROBE_REFUSED, PROBE_FAILED };
static int probe_pairs(struct dev *d, int c, int o, struct cb_error *err) {
  int bad[1 + CB_NCCL_NPAIRS] = {0}, all[1 + CB_NCCL_NPAIRS];
  ncclResult_t codes[1 + CB_NCCL_NPAIRS] = {ncclSuccess};
  char why[1 + CB_NCCL_NPAIRS][200];
  cudaStream_t st = NULL;
  cudaError_t e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  if (e != cudaSuccess)
    return cuda_failed(d, "cudaStreamCreate (the pairs' probe)", e, err);
  cb_watchdog_arm("--tune --parallel nccl: each pair's op once (the pairs' probe)");
  for (int code = 1; code <= CB_NCCL_NPAIRS; code++) {
    ncclResult_t r = d->pair[c][o][code] ? probe_op(d, o, d->pair[c][o][code], st) : ncclSuccess;
    const char *last = r != ncclSuccess ? ncclGetLastError(NULL) : "";
    bad[code] = r == ncclSuccess                     ? PROBE_RAN
                : cb_nccl_pair_refused((int)r, last) ? PROBE_REFUSED
                                                     : PROBE_FAILED;
    codes[code] = r;
    if (r != ncclSuccess)
      snprintf(why[code], sizeof why[0], "%s (%d): %s", ncclGetErrorString(r), (int)r, last);
  }
  MPI_Allreduce(bad, all, 1 + CB_NCCL_NPAIRS, MPI_INT, MPI_MAX, d->cl->comm);
  int failed = 0;
  for (int code = 1; code <= CB_NCCL_NPAIRS; code++) {
    if (all[code] == PROBE_FAILED && !failed++) { /* no refusal: the run ends, NCCL's words said */
      char call[160];
      snprintf(call, sizeof call, "the %s %s pair %s's first call%s", cb_step_comm_names[c],
               cb_ev_op_names[o], cb_nccl_pair_name(code),
               bad[code] == PROBE_FAILED ? "" : " (failed on another rank)");
      if (bad[code] == PROBE_FAILED)
        nccl_failed(d, call, codes[code], err);
      else
        cb_fail(err, CB_RUNTIME, "%s: --tune nccl: %s", d->where, call), d->failed = 1;
    }
    if (!all[code])
      continue;
    cb_nccl_comm_end(d->pair[c][o][code], 1); /* NULL: none on this rank */
    d->pair[c][o][code] = NULL;
    if (d->cl->rank == 0 && all[code] == PROBE_REFUSED)
      printf("# search: %s %s: %s dropped: NCCL does not run it on this communicator%s%s\n",
             cb_step_comm_names[c], cb_ev_op_names[o], cb_nccl_pair_name(code),
             bad[code] ? ": " : " (refused on another rank)", bad[code] ? why[code] : "");
  }
  int rc = failed ? err->status : drain(d, st, err);
  cb_watchdog_disarm();
  cudaStreamDestroy(st);
  return rc;
}

/* One communicator per pair NCCL runs, for each collective op a dimension
 * issues: split from the world with the pair in NCCL_ALGO and NCCL_PROTO
 * (bare names: the communicator runs that op alone), by every rank, those
 * whose group does not issue the op with NCCL_SPLIT_NOCOLOR. A split's
 * init reads both variables as any communicator's does (NVIDIA/nccl
 * v2.28.9-1: src/graph/tuning.cc, ncclTopoTuneModel; init.cc's
 * ncclCommSplit copies the parent's config for a NULL one and makes no
 * communicator, NULL, for NCCL_SPLIT_NOCOLOR). */
static int open_pairs(struct dev *d, struct cb_error *err) {
  const struct cb_cluster *cl = d->cl;
  for (int c = 0; c < CB_NSC; c++) {
    if (!needed(d, c))
      continue;
    for (int o = 0; o < CB_NEV_OPS; o++) {
      int codes[CB_NCCL_NPAIRS], n = cb_layout_nccl_colls[o] ? pair_codes(d, c, o, codes) : 0;
      if (n < 0)
        return cb_fail(err, CB_RUNTIME, "%s: out of memory for the layout's NCCL pairs", d->where);
      for (int a = 0; a < n; a++) {
        int algo, proto;
        cb_nccl_pair_of(codes[a], &algo, &proto);
        char *sa = cb_nccl_env_swap("NCCL_ALGO", cb_nccl_algo_env[algo - 1]);
        char *sp = cb_nccl_env_swap("NCCL_PROTO", cb_nccl_proto_env[proto - 1]);
        ncclComm_t comm = NULL;
        int color =
            d->need->uses[c][o] ? cb_layout_color(d->need->l, cl->rank, c) : NCCL_SPLIT_NOCOLOR;
        cb_watchdog_arm("--tune --parallel nccl: ncclCommSplit (a pair's communicator)");
        ncclResult_t r = ncclCommSplit(d->world, color, cl->rank, &comm, NULL);
        cb_watchdog_disarm();
        cb_nccl_env_restore("NCCL_ALGO", sa);
        cb_nccl_env_restore("NCCL_PROTO", sp);
        if (r != ncclSuccess) {
          char call[160];
          snprintf(call, sizeof call, "ncclCommSplit (the %s %s communicator with %s)",
                   cb_step_comm_names[c], cb_ev_op_names[o], cb_nccl_pair_name(codes[a]));
          cb_nccl_comm_end(comm, 1);
          return nccl_failed(d, call, r, err);
        }
        d->pair[c][o][codes[a]] = comm;
      }
      if (n > 0 && probe_pairs(d, c, o, err))
        return err->status;
    }
  }
  return CB_OK;
}

/* The world communicator, then one split per dimension of 2+ ranks
 * (every rank calls each split: ncclCommSplit is collective over world),
 * then the pairs' communicators. */
static int open_comms(struct dev *d, struct cb_error *err) {
  const struct cb_cluster *cl = d->cl;
  if (cb_nccl_world_init(cl, d->where,
                         "--tune --parallel nccl: communicator setup "
                         "(ncclCommInitRank)",
                         NULL, &d->world, err)) {
    d->failed = 1;
    return err->status;
  }
  for (int c = 0; c < NCOMMS; c++) {
    int sc = c < CB_NSC ? c : CB_SC_PP;
    if (!needed(d, c))
      continue;
    cb_watchdog_arm("--tune --parallel nccl: ncclCommSplit");
    ncclResult_t r = ncclCommSplit(d->world, cb_layout_color(d->need->l, cl->rank, sc), cl->rank,
                                   &d->comm[c], NULL);
    cb_watchdog_disarm();
    if (r != ncclSuccess)
      return nccl_failed(d, "ncclCommSplit", r, err);
    cudaError_t e = cudaStreamCreateWithFlags(&d->stream[c], cudaStreamNonBlocking);
    if (e != cudaSuccess)
      return cuda_failed(d, "cudaStreamCreate", e, err);
  }
  return d->need->search ? open_pairs(d, err) : CB_OK;
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
  if (e == cudaSuccess)
    e = cudaMalloc(&d->probe, 2 * (size_t)cl->nranks * d->esize);
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

/* The communicator of the op with the configuration's pair (alg: its
 * code), else the dimension's own; NULL for a pair never split here. */
static ncclComm_t comm_for(const struct dev *d, const struct cb_step_event *e, int c, int alg) {
  if (alg <= 0)
    return d->comm[c];
  return e->comm < CB_NSC && e->op < CB_NEV_OPS && alg <= CB_NCCL_NPAIRS
             ? d->pair[e->comm][e->op][alg]
             : NULL;
}

static int dev_start(void *t, const struct cb_step_event *e, int alg, struct cb_error *err) {
  struct dev *d = t;
  int c = comm_of(d, e), n = 1;
  ncclComm_t comm = comm_for(d, e, c, alg);
  if (!comm) /* the search offers only the pairs algs() listed */
    return cb_fail(err, CB_RUNTIME, "%s: the %s %s has no communicator with %s", d->where,
                   cb_step_comm_names[e->comm], cb_ev_op_names[e->op], cb_nccl_pair_name(alg));
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
  if (r != ncclSuccess) {
    char what[160];
    snprintf(what, sizeof what, "%s (the %s communicator, %s)", call, cb_step_comm_names[e->comm],
             cb_nccl_pair_name(comm == d->comm[c] ? 0 : alg));
    return nccl_failed(d, what, r, err);
  }
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

static int async_failed(struct dev *d, ncclComm_t comm, struct cb_error *err) {
  ncclResult_t async = ncclSuccess;
  if (comm && ncclCommGetAsyncError(comm, &async) == ncclSuccess && async != ncclSuccess &&
      async != ncclInProgress)
    return nccl_failed(d, "an NCCL op of the step (asynchronous error)", async, err);
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
    for (int c = 0; c < NCOMMS; c++)
      if (async_failed(d, d->comm[c], err))
        return err->status;
    for (int c = 0; c < CB_NSC; c++)
      for (int o = 0; o < CB_NEV_OPS; o++)
        for (int code = 1; code <= CB_NCCL_NPAIRS; code++)
          if (async_failed(d, d->pair[c][o][code], err))
            return err->status;
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

static int nccl_version(void) {
  int v = 0;
  return ncclGetVersion(&v) == ncclSuccess ? v : 0;
}

const struct cb_layout_transport cb_layout_nccl = {
    .name = "nccl",
    .what = "NCCL on a communicator and CUDA stream per dimension, cuBLAS GEMMs",
    .gpu = 1,
    .where = "the GPU",
    .env_note = "NCCL reads NCCL_ALGO and NCCL_PROTO when a communicator starts, one pair a "
                "collective a process; collbench made a communicator per pair; --plugin-out's "
                "rules choose per communicator size and node count",
    .no_algos = "NCCL runs one (algorithm, protocol) pair here for each collective this layout "
                "issues, or none can be forced",
    .open = dev_open,
    .algs = algs,
    .algo_name = algo_name,
    .start = dev_start,
    .wait = dev_wait,
    .compute = dev_compute,
    .finish = dev_finish,
    .close = dev_close,
    .version = nccl_version,
};
