/* The engine's host staging path for memory the host cannot touch (issue 15
 * item 1), driven through a stand-in backend: its "device" memory is mapped
 * PROT_NONE, so a host fill, check or free() of it crashes, as a host
 * access to cudaMalloc memory does. Only the backend's copy() reaches it.
 * One process, MPI singleton. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backends/backend.h"
#include "engine/defaults.h"
#include "engine/engine.h"
#include "runtime/pattern_io.h"
#include "runtime/settings.h"
#include "tap.h"

#define MAX_DEV 16
static struct {
  void *ptr;
  size_t len;
} dev[MAX_DEV];
static int dev_allocs, dev_frees, bad_frees, host_allocs;

static int dev_index(const void *p) {
  for (int i = 0; i < MAX_DEV; i++)
    if (dev[i].ptr && (const char *)p >= (char *)dev[i].ptr &&
        (const char *)p < (char *)dev[i].ptr + dev[i].len)
      return i;
  return -1;
}

/* Opens a device region to the host for the stand-in's own copy or op. */
static void expose(const void *p, int on) {
  int i = dev_index(p);
  if (i >= 0)
    mprotect(dev[i].ptr, dev[i].len, on ? PROT_READ | PROT_WRITE : PROT_NONE);
}

static int fake_init(const struct cb_cluster *cl, const struct cb_settings *s,
                     const char *transport, void **ctx, struct cb_error *err) {
  (void)cl, (void)s, (void)transport, (void)err;
  *ctx = NULL;
  return CB_OK;
}

static const char *fake_unsupported(void *ctx, const struct cb_op *op, int mem, int dtype,
                                    int redop, int inplace) {
  (void)ctx, (void)mem, (void)dtype, (void)redop, (void)inplace;
  return op == cb_ops[CB_OP_ALLREDUCE] ? NULL : "stand-in runs allreduce only";
}

static int fake_alloc(void *ctx, int mem, size_t bytes, void **ptr, struct cb_error *err) {
  (void)ctx;
  if (mem != CB_MEM_DEVICE) {
    host_allocs++;
    *ptr = cb_host_alloc(bytes);
    return *ptr ? CB_OK : cb_fail(err, CB_RUNTIME, "host alloc");
  }
  size_t len = (bytes + 4095) / 4096 * 4096;
  void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return cb_fail(err, CB_RUNTIME, "mmap");
  for (int i = 0; i < MAX_DEV; i++)
    if (!dev[i].ptr) {
      dev[i].ptr = p, dev[i].len = len;
      dev_allocs++;
      *ptr = p;
      return CB_OK;
    }
  return cb_fail(err, CB_RUNTIME, "stand-in: too many device buffers");
}

static void fake_free(void *ctx, int mem, void *ptr) {
  (void)ctx;
  if (mem != CB_MEM_DEVICE) {
    free(ptr);
    return;
  }
  int i = dev_index(ptr);
  if (i < 0 || dev[i].ptr != ptr) {
    bad_frees++;
    return;
  }
  munmap(dev[i].ptr, dev[i].len);
  dev[i].ptr = NULL;
  dev_frees++;
}

static int fake_copy(void *ctx, void *dst, const void *src, size_t bytes, struct cb_error *err) {
  (void)ctx, (void)err;
  expose(dst, 1), expose(src, 1);
  memcpy(dst, src, bytes);
  expose(dst, 0), expose(src, 0);
  return CB_OK;
}

/* One rank: the sum of one contribution is the input itself. */
static int fake_run(void *ctx, const struct cb_op_args *a, struct cb_error *err) {
  (void)ctx, (void)err;
  if (!a->send)
    return CB_OK;
  expose(a->send, 1), expose(a->recv, 1);
  memcpy(a->recv, a->send, a->count * cb_dtypes[a->dtype].size);
  expose(a->send, 0), expose(a->recv, 0);
  return CB_OK;
}

static int fake_sync(void *ctx, struct cb_error *err) {
  (void)ctx, (void)err;
  return CB_OK;
}

static void fake_label(void *ctx, const struct cb_op *op, int mem, char *buf, size_t len) {
  (void)ctx, (void)op, (void)mem;
  snprintf(buf, len, "stand-in");
}

static void fake_finalize(void *ctx) {
  (void)ctx;
}

static const struct cb_backend fake = {
    .name = "stand-in",
    .max_count = 1 << 30,
    .init = fake_init,
    .unsupported = fake_unsupported,
    .alloc = fake_alloc,
    .free = fake_free,
    .copy = fake_copy,
    .run = fake_run,
    .sync = fake_sync,
    .transport_label = fake_label,
    .finalize = fake_finalize,
};

int main(int argc, char **argv) {
  /* a singleton Open MPI run as root (CI's containers) needs these too */
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  MPI_Init(&argc, &argv);
  plan(6);
  struct cb_error err = {0};
  struct cb_cluster cl;
  if (cb_cluster_init(&cl, &err)) {
    diag("cb_cluster_init: %s", err.msg);
    return 1;
  }
  char why[256];
  if (cb_gpu_pattern_io(why, sizeof why)) {
    /* a GPU here: device buffers are filled by its kernels, not staged */
    for (int i = 1; i <= 6; i++)
      printf("ok %d # SKIP a GPU is present: the engine fills device buffers on it\n", i);
    MPI_Finalize();
    return 0;
  }

  struct cb_settings s;
  cb_settings_defaults(&s);
  s.mems[0] = CB_MEM_DEVICE, s.nmems = 1;
  s.min_bytes = 8, s.max_bytes = 64 << 10;
  s.iters = 5, s.warmup = 1, s.check = 2;
  s.transports[0] = "default", s.ntransports = 1;
  struct cb_run_info ri = {.cluster = &cl, .settings = &s};
  struct cb_summary sum;
  const struct cb_backend *backends[] = {&fake};
  int rc = cb_engine_run_on(&cl, &s, &ri, backends, 1, NULL, 0, &sum, &err);
  is_long(rc, CB_OK, "the staged device run completes (%s)", rc ? err.msg : "ok");
  ok(sum.records > 0, "it measured %ld records", sum.records);
  is_long(sum.wrong, 0, "results are checked through the staging copy and are right");
  is_long(sum.unchecked, 0, "every record was checked");
  is_long(bad_frees, 0, "the backend frees only device buffers it allocated");
  ok(dev_allocs > 0 && dev_frees == dev_allocs && host_allocs == 0,
     "device buffers come from the backend (%d allocated, %d freed), staging does not (%d)",
     dev_allocs, dev_frees, host_allocs);
  cb_cluster_free(&cl);
  MPI_Finalize();
  return exit_status();
}
