/* The UCX backend (UCP tag API): point-to-point between rank pairs, the
 * way ucx_perftest's tag tests run, but under mpirun: worker addresses are
 * exchanged over MPI. UCX_TLS and UCX_NET_DEVICES from the environment are
 * respected (ucp_config_read reads them); --transport shm|tcp overrides
 * the transport list for this context only. Device memory needs a UCX
 * built with CUDA (ucp_context_query says); pinned memory is host memory
 * to UCX. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

#include "backend.h"
#include "base/dtype.h"
#include "runtime/gpu.h"
#include "runtime/settings.h"
#include "ucx_logic.h"

static const char *const transports[] = {"auto", "shm", "tcp", NULL};

enum { DATA_TAG = 1, ACK_TAG = 2, FENCE_TAG = 3 };
#define TAG_MASK ((ucp_tag_t)-1)

#define MAX_REGIONS 8 /* an engine series holds a send and a receive buffer */

/* A buffer mapped for RMA, and the partner's buffer allocated at the same
 * step (both sides allocate in lockstep). */
struct region {
  void *ptr;
  ucp_mem_h memh;
  uint64_t remote_addr;
  ucp_rkey_h rkey;
};

struct ucx_ctx {
  const struct cb_cluster *cl;
  const struct cb_settings *s;
  int put; /* --ucx-api put */
  struct region regions[MAX_REGIONS];
  int nregions;
  ucp_context_h context;
  ucp_worker_h worker;
  ucp_ep_h ep; /* to this rank's pair partner; NULL when it sits out */
  int peer;
  void **requests;
  int nrequests;
  char label[32]; /* transports UCX chose for the endpoint */
  int yield;      /* more ranks than cores here: let the partner run */
  /* The memory type of the buffers allocated last (a series allocates all
   * of one kind) for data transfers; acknowledgements are host memory. */
  ucp_request_param_t data;
  char no_cuda[160]; /* why device memory cannot run, or "" */
  char no_gpu[160];
};

static int ucx_failed(const struct ucx_ctx *c, const char *call, ucs_status_t st,
                      struct cb_error *err) {
  return cb_fail(err, CB_RUNTIME, "rank %d (%s): ucx: %s failed: %s (%d)", c->cl->rank,
                 c->cl->hostname, call, ucs_status_string(st), (int)st);
}

/* Drives the worker until the request is done; NULL means done at once.
 * Oversubscribed, a spinning rank would starve the partner it waits for on
 * the same core (minutes per size): it yields when progress found nothing. */
static ucs_status_t wait_request(const struct ucx_ctx *c, ucs_status_ptr_t req) {
  if (req == NULL)
    return UCS_OK;
  if (UCS_PTR_IS_ERR(req))
    return UCS_PTR_STATUS(req);
  ucs_status_t st;
  while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
    if (ucp_worker_progress(c->worker) == 0 && c->yield)
      sched_yield();
  ucp_request_free(req);
  return st;
}

/* Telling UCX the memory type saves it a lookup per call (and a wrong
 * guess with CUDA memory). */
static const ucp_request_param_t host_memory = {.op_attr_mask = UCP_OP_ATTR_FIELD_MEMORY_TYPE,
                                                .memory_type = UCS_MEMORY_TYPE_HOST};

static ucs_status_ptr_t tag_send(struct ucx_ctx *c, const void *buf, size_t bytes, ucp_tag_t tag,
                                 const ucp_request_param_t *param) {
  return ucp_tag_send_nbx(c->ep, buf, bytes, tag, param);
}

static ucs_status_ptr_t tag_recv(struct ucx_ctx *c, void *buf, size_t bytes, ucp_tag_t tag,
                                 const ucp_request_param_t *param) {
  return ucp_tag_recv_nbx(c->worker, buf, bytes, tag, TAG_MASK, param);
}

#define TRY(call, what)                                                                            \
  do {                                                                                             \
    ucs_status_t st_ = wait_request(c, (call));                                                    \
    if (st_ != UCS_OK)                                                                             \
      return ucx_failed(c, what, st_, err);                                                        \
  } while (0)

static size_t message_bytes(const struct cb_op_args *a) {
  return a->count * cb_dtypes[a->dtype].size;
}

static int run_p2p_lat(struct ucx_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  size_t n = message_bytes(a);
  if (c->cl->rank % 2 == 0) {
    TRY(tag_send(c, a->send, n, DATA_TAG, &c->data), "ucp_tag_send_nbx");
    TRY(tag_recv(c, a->recv, n, DATA_TAG, &c->data), "ucp_tag_recv_nbx");
  } else {
    TRY(tag_recv(c, a->recv, n, DATA_TAG, &c->data), "ucp_tag_recv_nbx");
    TRY(tag_send(c, a->send, n, DATA_TAG, &c->data), "ucp_tag_send_nbx");
  }
  return CB_OK;
}

static int reserve_requests(struct ucx_ctx *c, int n, struct cb_error *err) {
  if (n <= c->nrequests)
    return CB_OK;
  void **r = realloc(c->requests, (size_t)n * sizeof *r);
  if (!r)
    return cb_fail(err, CB_RUNTIME, "rank %d: ucx: out of memory for %d requests", c->cl->rank, n);
  c->requests = r;
  c->nrequests = n;
  return CB_OK;
}

static int wait_all(struct ucx_ctx *c, int n, struct cb_error *err) {
  ucs_status_t first = UCS_OK;
  for (int i = 0; i < n; i++) { /* wait for all even after a failure: no dangling request */
    ucs_status_t st = wait_request(c, c->requests[i]);
    if (first == UCS_OK)
      first = st;
  }
  return first == UCS_OK ? CB_OK : ucx_failed(c, "a windowed transfer", first, err);
}

/* One window: even ranks send, odd ranks receive then acknowledge. */
static int run_p2p_bw(struct ucx_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  size_t n = message_bytes(a);
  int w = a->window, sender = c->cl->rank % 2 == 0;
  uint32_t ack = 0;
  if (reserve_requests(c, w, err))
    return err->status;
  for (int i = 0; i < w; i++)
    c->requests[i] = sender ? tag_send(c, a->send, n, DATA_TAG, &c->data)
                            : tag_recv(c, a->recv, n, DATA_TAG, &c->data);
  if (wait_all(c, w, err))
    return err->status;
  if (sender)
    TRY(tag_recv(c, &ack, sizeof ack, ACK_TAG, &host_memory), "ucp_tag_recv_nbx (ack)");
  else
    TRY(tag_send(c, &ack, sizeof ack, ACK_TAG, &host_memory), "ucp_tag_send_nbx (ack)");
  return CB_OK;
}

static int run_p2p_bibw(struct ucx_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  size_t n = message_bytes(a);
  int w = a->window;
  if (reserve_requests(c, 2 * w, err))
    return err->status;
  for (int i = 0; i < w; i++)
    c->requests[i] = tag_recv(c, a->recv, n, DATA_TAG, &c->data);
  for (int i = 0; i < w; i++)
    c->requests[w + i] = tag_send(c, a->send, n, DATA_TAG, &c->data);
  return wait_all(c, 2 * w, err);
}

static struct region *region_of(struct ucx_ctx *c, const void *ptr) {
  for (int i = 0; i < c->nregions; i++)
    if (c->regions[i].ptr == ptr)
      return &c->regions[i];
  return NULL;
}

/* A window of puts into the partner's receive buffer, then a flush: the
 * window ends when the data is in remote memory. */
static int put_window(struct ucx_ctx *c, const struct cb_op_args *a, struct cb_error *err) {
  struct region *dst = region_of(c, a->recv);
  if (!dst)
    return cb_fail(err, CB_RUNTIME, "ucx: receive buffer not mapped for RMA");
  size_t n = message_bytes(a);
  int w = a->window;
  if (reserve_requests(c, w, err))
    return err->status;
  for (int i = 0; i < w; i++)
    c->requests[i] = ucp_put_nbx(c->ep, a->send, n, dst->remote_addr, dst->rkey, &c->data);
  if (wait_all(c, w, err))
    return err->status;
  ucp_request_param_t fp = {0};
  TRY(ucp_ep_flush_nbx(c->ep, &fp), "ucp_ep_flush_nbx");
  return CB_OK;
}

static int ucx_run(void *ctx, const struct cb_op_args *a, struct cb_error *err) {
  struct ucx_ctx *c = ctx;
  if (!c->ep)
    return CB_OK;                          /* the odd rank out */
  if (c->put && a->op->id == CB_OP_P2P_BW) /* even ranks put, odd ranks wait in sync() */
    return c->cl->rank % 2 == 0 ? put_window(c, a, err) : CB_OK;
  if (c->put && a->op->id == CB_OP_P2P_BIBW)
    return put_window(c, a, err);
  switch (a->op->id) {
  case CB_OP_P2P_LAT: return run_p2p_lat(c, a, err);
  case CB_OP_P2P_BW: return run_p2p_bw(c, a, err);
  case CB_OP_P2P_BIBW: return run_p2p_bibw(c, a, err);
  default: return cb_fail(err, CB_RUNTIME, "ucx: %s is not a point-to-point op", a->op->name);
  }
}

static const char *ucx_unsupported(void *ctx, const struct cb_op *op, int mem, int dtype, int redop,
                                   int inplace) {
  struct ucx_ctx *c = ctx;
  (void)redop, (void)inplace;
  if (cb_dtype_is_fp8(dtype))
    return CB_FP8_NCCL_ONLY;
  if (op->id != CB_OP_P2P_LAT && op->id != CB_OP_P2P_BW && op->id != CB_OP_P2P_BIBW)
    return "the ucx backend measures point-to-point ops only";
  if (c && mem != CB_MEM_HOST && c->no_gpu[0])
    return c->no_gpu;
  if (c && mem == CB_MEM_DEVICE && c->no_cuda[0])
    return c->no_cuda;
  return NULL;
}

/* ucp_ep_print_info lists the endpoint's lanes ("lane[0]: 2:posix/memory.0
 * ..."); the transport names before '/' say what UCX chose. */
static void chosen_transports(ucp_ep_h ep, char *label, size_t len) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  snprintf(label, len, "ucx");
  if (!f)
    return;
  ucp_ep_print_info(ep, f);
  fclose(f);
  size_t used = 0;
  for (char *p = text ? strstr(text, "lane[") : NULL; p; p = strstr(p + 1, "lane[")) {
    char *colon = strchr(p, ':'), *slash = colon ? strchr(colon, '/') : NULL;
    if (!colon || !slash || strchr(colon, '\n') < slash)
      continue;
    char *name = slash;
    while (name > colon && name[-1] != ':' && name[-1] != ' ')
      name--;
    int n = (int)(slash - name);
    char tl[32];
    snprintf(tl, sizeof tl, "%.*s", n, name);
    if (!*tl || strstr(label, tl))
      continue;
    used +=
        (size_t)snprintf(label + used, len > used ? len - used : 0, "%s%s", used ? "+" : "", tl);
  }
  free(text);
}

/* With pinned or device memory asked for: whether there is a GPU (else
 * unsupported() says why), and this rank's device selected before UCX
 * starts, so that its CUDA transports find the context they work in. */
static int gpu_memory_asked(struct ucx_ctx *c, struct cb_error *err) {
  int asked = 0, device;
  for (int m = 0; m < c->s->nmems; m++)
    asked |= c->s->mems[m] != CB_MEM_HOST;
  if (!asked)
    return CB_OK;
  if (cb_gpu_count(c->no_gpu, sizeof c->no_gpu) == 0)
    return CB_OK;
  c->no_gpu[0] = '\0';
  return cb_gpu_bind(c->cl, c->s, &device, err);
}

/* Exchanges worker addresses with the pair partner and connects. */
static int connect_peer(struct ucx_ctx *c, struct cb_error *err) {
  const struct cb_cluster *cl = c->cl;
  ucp_address_t *mine;
  size_t mine_len;
  ucs_status_t st = ucp_worker_get_address(c->worker, &mine, &mine_len);
  if (st != UCS_OK)
    return ucx_failed(c, "ucp_worker_get_address", st, err);
  uint64_t len = mine_len, theirs_len = 0;
  MPI_Sendrecv(&len, 1, MPI_UINT64_T, c->peer, 0, &theirs_len, 1, MPI_UINT64_T, c->peer, 0,
               cl->comm, MPI_STATUS_IGNORE);
  void *theirs = malloc(theirs_len ? theirs_len : 1);
  if (!theirs) {
    ucp_worker_release_address(c->worker, mine);
    return cb_fail(err, CB_RUNTIME, "rank %d: ucx: out of memory", cl->rank);
  }
  MPI_Sendrecv(mine, (int)mine_len, MPI_BYTE, c->peer, 1, theirs, (int)theirs_len, MPI_BYTE,
               c->peer, 1, cl->comm, MPI_STATUS_IGNORE);
  ucp_worker_release_address(c->worker, mine);
  ucp_ep_params_t ep_params = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = theirs};
  st = ucp_ep_create(c->worker, &ep_params, &c->ep);
  free(theirs);
  if (st != UCS_OK)
    return ucx_failed(c, "ucp_ep_create", st, err);
  /* A first round trip completes the wire-up, so the lanes are final. */
  uint32_t token = 0;
  struct cb_op_args probe = {.op = cb_ops[CB_OP_P2P_LAT],
                             .send = &token,
                             .recv = &token,
                             .count = 1,
                             .dtype = CB_INT32,
                             .peer = c->peer};
  if (run_p2p_lat(c, &probe, err))
    return err->status;
  chosen_transports(c->ep, c->label, sizeof c->label);
  return CB_OK;
}

static int ucx_init(const struct cb_cluster *cl, const struct cb_settings *s, const char *transport,
                    void **ctx, struct cb_error *err) {
  struct ucx_ctx *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "ucx: out of memory");
  c->cl = cl;
  c->s = s;
  c->data = host_memory;
  c->peer = cb_p2p_peer(cl->rank, cl->nranks);
  c->yield = cl->local_size > sysconf(_SC_NPROCESSORS_ONLN);
  c->put = s->ucx_put;
  *ctx = c;
  if (gpu_memory_asked(c, err))
    return err->status;
  ucp_config_t *config;
  ucs_status_t st = ucp_config_read(NULL, NULL, &config);
  if (st != UCS_OK)
    return ucx_failed(c, "ucp_config_read", st, err);
  if (strcmp(transport, "auto") != 0)
    st = ucp_config_modify(config, "TLS", strcmp(transport, "shm") == 0 ? "shm,self" : "tcp,self");
  ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES,
                         .features = UCP_FEATURE_TAG | (c->put ? UCP_FEATURE_RMA : 0)};
  if (st == UCS_OK)
    st = ucp_init(&params, config, &c->context);
  ucp_config_release(config);
  if (st != UCS_OK)
    return ucx_failed(c, "ucp_init", st, err);
  ucp_context_attr_t attr = {.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES};
  st = ucp_context_query(c->context, &attr);
  if (st != UCS_OK)
    return ucx_failed(c, "ucp_context_query", st, err);
  cb_ucx_cuda_capable(attr.memory_types, ucp_get_version_string(), c->no_cuda, sizeof c->no_cuda);
  ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                            .thread_mode = UCS_THREAD_MODE_SINGLE};
  st = ucp_worker_create(c->context, &wp, &c->worker);
  if (st != UCS_OK)
    return ucx_failed(c, "ucp_worker_create", st, err);
  snprintf(c->label, sizeof c->label, "none");
  if (c->peer >= 0 && connect_peer(c, err))
    return err->status;
  /* rank 0's pair stands for every row: give everyone its label */
  MPI_Bcast(c->label, sizeof c->label, MPI_CHAR, 0, cl->comm);
  return CB_OK;
}

/* With --ucx-api put, maps the buffer and swaps address and remote key
 * with the partner, which allocates its counterpart at the same step. */
static int map_region(struct ucx_ctx *c, void *ptr, size_t bytes, ucs_memory_type_t type,
                      struct cb_error *err) {
  if (c->nregions == MAX_REGIONS)
    return cb_fail(err, CB_RUNTIME, "ucx: more than %d buffers", MAX_REGIONS);
  struct region *r = &c->regions[c->nregions];
  memset(r, 0, sizeof *r);
  r->ptr = ptr;
  ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
                                           UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                                           UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE,
                             .address = ptr,
                             .length = bytes ? bytes : 1,
                             .memory_type = type};
  ucs_status_t st = ucp_mem_map(c->context, &mp, &r->memh);
  if (st != UCS_OK)
    return ucx_failed(c, "ucp_mem_map", st, err);
  void *packed;
  size_t packed_len;
  st = ucp_rkey_pack(c->context, r->memh, &packed, &packed_len);
  if (st != UCS_OK)
    return ucx_failed(c, "ucp_rkey_pack", st, err);
  uint64_t mine[2] = {(uint64_t)(uintptr_t)ptr, packed_len}, theirs[2];
  MPI_Sendrecv(mine, 2, MPI_UINT64_T, c->peer, 4, theirs, 2, MPI_UINT64_T, c->peer, 4, c->cl->comm,
               MPI_STATUS_IGNORE);
  void *their_key = malloc(theirs[1] ? theirs[1] : 1);
  if (!their_key) {
    ucp_rkey_buffer_release(packed);
    return cb_fail(err, CB_RUNTIME, "ucx: out of memory for a remote key");
  }
  MPI_Sendrecv(packed, (int)packed_len, MPI_BYTE, c->peer, 5, their_key, (int)theirs[1], MPI_BYTE,
               c->peer, 5, c->cl->comm, MPI_STATUS_IGNORE);
  ucp_rkey_buffer_release(packed);
  r->remote_addr = theirs[0];
  st = ucp_ep_rkey_unpack(c->ep, their_key, &r->rkey);
  free(their_key);
  if (st != UCS_OK)
    return ucx_failed(c, "ucp_ep_rkey_unpack", st, err);
  c->nregions++;
  return CB_OK;
}

static int ucx_alloc(void *ctx, int mem, size_t bytes, void **ptr, struct cb_error *err) {
  struct ucx_ctx *c = ctx;
  c->data.memory_type = cb_ucx_mem_type(mem);
  if (mem != CB_MEM_HOST) {
    if (cb_gpu_alloc(c->cl, "ucx", mem, bytes, ptr, err))
      return err->status;
  } else if (!(*ptr = cb_host_alloc(bytes))) {
    return cb_fail(err, CB_RUNTIME, "rank %d (%s): ucx: cannot allocate %zu bytes", c->cl->rank,
                   c->cl->hostname, bytes);
  }
  if (c->put && c->ep)
    return map_region(c, *ptr, bytes, c->data.memory_type, err);
  return CB_OK;
}

static void unmap_region(struct ucx_ctx *c, struct region *r) {
  if (r->rkey)
    ucp_rkey_destroy(r->rkey);
  if (r->memh)
    ucp_mem_unmap(c->context, r->memh);
}

static void ucx_free(void *ctx, int mem, void *ptr) {
  struct ucx_ctx *c = ctx;
  struct region *r = region_of(c, ptr);
  if (r) {
    unmap_region(c, r);
    *r = c->regions[--c->nregions];
  }
  if (mem == CB_MEM_HOST)
    free(ptr);
  else
    cb_gpu_free(mem, ptr);
}

static int ucx_copy(void *ctx, void *dst, const void *src, size_t bytes, struct cb_error *err) {
  return cb_gpu_copy(((struct ucx_ctx *)ctx)->cl, "ucx", dst, src, bytes, err);
}

static int ucx_sync(void *ctx, struct cb_error *err) {
  struct ucx_ctx *c = ctx;
  if (!c->ep)
    return CB_OK;
  uint32_t out = 0, in = 0;
  if (reserve_requests(c, 2, err))
    return err->status;
  c->requests[0] = tag_recv(c, &in, sizeof in, FENCE_TAG, &host_memory);
  c->requests[1] = tag_send(c, &out, sizeof out, FENCE_TAG, &host_memory);
  return wait_all(c, 2, err);
}

/* "posix+sysv/put/cuda": the lanes, RMA put, and the memory type UCX was
 * given when it was not host memory. */
static void ucx_transport_label(void *ctx, const struct cb_op *op, int mem, char *buf, size_t len) {
  struct ucx_ctx *c = ctx;
  int put = c->put && (op->id == CB_OP_P2P_BW || op->id == CB_OP_P2P_BIBW);
  ucs_memory_type_t type = cb_ucx_mem_type(mem);
  snprintf(buf, len, "%s%s%s%s", c->label, put ? "/put" : "",
           type == UCS_MEMORY_TYPE_HOST ? "" : "/",
           type == UCS_MEMORY_TYPE_HOST ? "" : ucs_memory_type_names[type]);
}

static void ucx_finalize(void *ctx) {
  struct ucx_ctx *c = ctx;
  if (!c)
    return;
  if (c->ep) { /* flush, then close */
    ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = 0};
    wait_request(c, ucp_ep_close_nbx(c->ep, &p));
  }
  /* Both sides keep progressing the worker until every rank has closed: a
   * close waits for the peer's UCX to answer, and a peer already in a plain
   * MPI_Barrier never did (rank 0 waited for its close over TCP for 10
   * minutes under load, found by scripts/flake-hunt.sh) */
  MPI_Request barrier;
  MPI_Ibarrier(c->cl->comm, &barrier);
  for (int done = 0; !done;) {
    if (c->worker && ucp_worker_progress(c->worker) == 0 && c->yield)
      sched_yield();
    MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
  }
  while (c->nregions > 0)
    unmap_region(c, &c->regions[--c->nregions]);
  if (c->worker)
    ucp_worker_destroy(c->worker);
  if (c->context)
    ucp_cleanup(c->context);
  free(c->requests);
  free(c);
}

static int ucx_probe(char *why, size_t len) {
  snprintf(why, len, "usable");
  return 1;
}

/* Device memory needs a UCX built with CUDA: a context of its own asks. */
static int ucx_mem_usable(int mem, char *why, size_t len) {
  if (cb_ucx_mem_type(mem) != UCS_MEMORY_TYPE_CUDA)
    return 1;
  ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_TAG};
  ucp_context_h context;
  ucp_context_attr_t attr = {.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES};
  ucs_status_t st = ucp_init(&params, NULL, &context);
  if (st == UCS_OK) {
    st = ucp_context_query(context, &attr);
    ucp_cleanup(context);
  }
  if (st != UCS_OK) {
    snprintf(why, len, "ucp_init/ucp_context_query: %s", ucs_status_string(st));
    return 0;
  }
  return cb_ucx_cuda_capable(attr.memory_types, ucp_get_version_string(), why, len);
}

static void ucx_version(char *buf, size_t len) {
  snprintf(buf, len, "UCX %s", ucp_get_version_string());
}

const struct cb_backend cb_backend_ucx = {
    .name = "ucx",
    .transports = transports,
    .max_count = SIZE_MAX,
    .probe = ucx_probe,
    .mem_usable = ucx_mem_usable,
    .version = ucx_version,
    .init = ucx_init,
    .unsupported = ucx_unsupported,
    .alloc = ucx_alloc,
    .free = ucx_free,
    .copy = ucx_copy,
    .run = ucx_run,
    .sync = ucx_sync,
    .transport_label = ucx_transport_label,
    .finalize = ucx_finalize,
};
