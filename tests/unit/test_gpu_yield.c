/* Whether host waits on the GPU yield the CPU (bench/runtime/gpu.c): cb_gpu_bind
 * asks for cudaDeviceScheduleYield and reads the flags back, and the engine
 * says what is in effect, once a run, as a note ("GPU waits: ..."). No GPU
 * here: the CUDA calls on that path are stand-ins defined below (the test's
 * own definitions come before libcudart's). A bind happens once a process,
 * so each case binds in a child of its own and reports through a pipe; the
 * engine's note is checked in this process, under an MPI singleton. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/backend.h"
#include "config.h"
#include "engine/defaults.h"
#include "engine/engine.h"
#include "runtime/gpu.h"
#include "runtime/settings.h"
#include "tap.h"

#if CB_HAVE_CUDA
#include <cuda_runtime_api.h>

/* SET_OK: cudaSetDeviceFlags takes the flags; SET_REFUSED: it refuses
 * (cudaErrorSetOnActiveProcess, what older CUDA returned once the device's
 * context was active) and the device keeps auto; GET_FAILS: the flags
 * cannot be read */
enum { SET_OK, SET_REFUSED, GET_FAILS };
static int mode;
static unsigned int device_flags = cudaDeviceScheduleAuto;

cudaError_t cudaGetDeviceCount(int *n) {
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) {
  (void)d;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d) {
  (void)d;
  *v = a == cudaDevAttrComputeCapabilityMajor ? 9 : 0;
  return cudaSuccess;
}
cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  if (mode == SET_REFUSED)
    return cudaErrorSetOnActiveProcess;
  device_flags = flags;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
  if (mode == GET_FAILS)
    return cudaErrorNoDevice;
  *flags = device_flags | cudaDeviceMapHost; /* CUDA reports other flags beside */
  return cudaSuccess;
}

static int bind_gpu(void) {
  struct cb_cluster cl = {.rank = 0, .nranks = 1, .local_rank = 0, .local_size = 1, .nnodes = 1};
  snprintf(cl.hostname, sizeof cl.hostname, "node0");
  struct cb_settings s;
  cb_settings_defaults(&s);
  struct cb_error err = {0};
  int device = -1;
  return cb_gpu_bind(&cl, &s, &device, &err);
}

/* One bind in a child with mode m: "RC YIELD NOTE-RETURN NOTE" in out. */
static void bind_in_child(int m, char *out, size_t len) {
  int fd[2];
  out[0] = '\0';
  if (pipe(fd))
    return;
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    mode = m;
    int rc = bind_gpu();
    char note[400] = "";
    int said = cb_gpu_wait_note(note, sizeof note);
    dprintf(fd[1], "%d %d %d %s", rc, cb_gpu_waits_by_yield(), said, note);
    _exit(0);
  }
  close(fd[1]);
  ssize_t n, got = 0;
  while (got < (ssize_t)len - 1 && (n = read(fd[0], out + got, len - 1 - (size_t)got)) > 0)
    got += n;
  out[got < 0 ? 0 : got] = '\0';
  close(fd[0]);
  waitpid(pid, NULL, 0);
}

/* the engine with a stand-in backend that binds the GPU and measures
 * nothing (every op unsupported); a sink keeps the notes */
static char notes[8][512];
static int nnotes;
static int keep_note(void *state, const char *text, struct cb_error *err) {
  (void)state, (void)err;
  if (nnotes < 8)
    snprintf(notes[nnotes++], sizeof notes[0], "%s", text);
  return CB_OK;
}
static int fake_init(const struct cb_cluster *cl, const struct cb_settings *s,
                     const char *transport, void **ctx, struct cb_error *err) {
  (void)transport;
  *ctx = NULL;
  int device;
  return cb_gpu_bind(cl, s, &device, err);
}
static const char *fake_unsupported(void *ctx, const struct cb_op *op, int mem, int dtype,
                                    int redop, int inplace) {
  (void)ctx, (void)op, (void)mem, (void)dtype, (void)redop, (void)inplace;
  return "the stand-in measures nothing";
}
static void fake_label(void *ctx, const struct cb_op *op, int mem, char *buf, size_t len) {
  (void)ctx, (void)op, (void)mem;
  snprintf(buf, len, "none");
}
static void fake_finalize(void *ctx) {
  (void)ctx;
}
static const struct cb_backend fake = {
    .name = "stand-in",
    .max_count = 1 << 30,
    .init = fake_init,
    .unsupported = fake_unsupported,
    .transport_label = fake_label,
    .finalize = fake_finalize,
};

static int waits_notes(void) {
  int n = 0;
  for (int i = 0; i < nnotes; i++)
    n += !strncmp(notes[i], "GPU waits: ", 11);
  return n;
}

int main(int argc, char **argv) {
  char out[600], note[400];
  ok(cb_gpu_waits_by_yield() == -1 && cb_gpu_wait_note(note, sizeof note) == 0,
     "before a bind: unknown, and no note");

  bind_in_child(SET_OK, out, sizeof out);
  ok(!strncmp(out, "0 1 1 GPU waits: host waits on GPU 0 yield the CPU", 50),
     "the flags took: 1, and the note says the waits yield (%s)", out);
  bind_in_child(SET_REFUSED, out, sizeof out);
  ok(!strncmp(out, "0 0 1 GPU waits: cudaDeviceScheduleYield did not take effect on GPU 0", 69) &&
         strstr(out, "cudaSetDeviceFlags: ") && strstr(out, "its schedule is auto"),
     "refused: 0, and the note names the refusal and the schedule in effect (%s)", out);
  bind_in_child(GET_FAILS, out, sizeof out);
  ok(!strncmp(out,
              "0 -1 1 GPU waits: whether cudaDeviceScheduleYield took effect on GPU 0 is "
              "unknown (cudaGetDeviceFlags: ",
              99),
     "the flags unreadable: -1, and the note says so (%s)", out);

  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  MPI_Init(&argc, &argv);
  struct cb_error err = {0};
  struct cb_cluster cl;
  if (cb_cluster_init(&cl, &err)) {
    diag("cb_cluster_init: %s", err.msg);
    return 1;
  }
  struct cb_settings s;
  cb_settings_defaults(&s);
  s.transports[0] = "default", s.ntransports = 1;
  struct cb_run_info ri = {.cluster = &cl, .settings = &s};
  struct cb_summary sum;
  struct cb_sink sink = {.note = keep_note};
  const struct cb_backend *backends[] = {&fake, &fake};
  mode = SET_OK;
  int rc = cb_engine_run_on(&cl, &s, &ri, backends, 2, &sink, 1, &sum, &err);
  int good = rc == CB_OK && waits_notes() == 1 && cb_gpu_waits_by_yield() == 1;
  ok(good, "a run that binds the GPU (two backends): one 'GPU waits' note (%d of %d notes; %s)",
     waits_notes(), nnotes, rc ? err.msg : "ok");
  for (int i = 0; i < nnotes && !good; i++)
    diag("note: %s", notes[i]);
  nnotes = 0;
  rc = cb_engine_run_on(&cl, &s, &ri, backends, 1, &sink, 1, &sum, &err);
  ok(rc == CB_OK && waits_notes() == 1, "the next run says it again (%d)", waits_notes());
  cb_cluster_free(&cl);
  MPI_Finalize();
  done_testing();
  return exit_status();
}
#else
int main(void) {
  plan(1);
  printf("ok 1 # SKIP built without CUDA (no device flags to read back)\n");
  return 0;
}
#endif
