/* The self-check that admits the GPU check kernels (pattern_io.c), run on
 * stand-in "devices" in host memory: a faithful one passes, and each kind
 * of wrong kernel (fill off by one, a count that always says 0, a count
 * that ignores the reduced values, wrong poison, a failing call) is
 * refused with a reason. Also: the cb_io_* helpers the ops call. */
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "ops/op.h"
#include "runtime/gpu.h"
#include "runtime/pattern_io.h"
#include "tap.h"

/* A faithful io: pattern.c on host memory. */
static int good_fill(const struct cb_pattern *p, void *buf, int rank, uint64_t first, size_t n,
                     char *why, size_t len) {
  (void)why, (void)len;
  cb_pattern_fill(p, buf, rank, first, n);
  return 0;
}
static int good_count(const struct cb_pattern *p, const void *buf, int rank, uint64_t first,
                      size_t n, size_t *wrong, char *why, size_t len) {
  (void)why, (void)len;
  *wrong = rank < 0 ? cb_pattern_count_wrong_reduced(p, buf, first, n)
                    : cb_pattern_count_wrong(p, buf, rank, first, n);
  return 0;
}
static int good_poison(int dtype, void *buf, size_t n, char *why, size_t len) {
  (void)why, (void)len;
  cb_pattern_poison(dtype, buf, n);
  return 0;
}
static int host_alloc(size_t bytes, void **buf, char *why, size_t len) {
  *buf = malloc(bytes);
  return *buf ? 0 : (snprintf(why, len, "malloc"), -1);
}
static int host_copy(void *dst, const void *src, size_t bytes, int to_buf, char *why, size_t len) {
  (void)to_buf, (void)why, (void)len;
  memcpy(dst, src, bytes);
  return 0;
}

/* Wrong kernels, each a plausible bug. */
static int fill_off_by_one(const struct cb_pattern *p, void *buf, int rank, uint64_t first,
                           size_t n, char *why, size_t len) {
  (void)why, (void)len;
  cb_pattern_fill(p, buf, rank, first + 1, n);
  return 0;
}
static int fill_wrong_half_of_last(const struct cb_pattern *p, void *buf, int rank, uint64_t first,
                                   size_t n, char *why, size_t len) {
  (void)why, (void)len;
  cb_pattern_fill(p, buf, rank, first, n);
  if (p->dtype == CB_HALF) /* only one dtype, only the last element */
    ((unsigned char *)buf)[2 * n - 1] ^= 0x40;
  return 0;
}
static int count_always_zero(const struct cb_pattern *p, const void *buf, int rank, uint64_t first,
                             size_t n, size_t *wrong, char *why, size_t len) {
  (void)p, (void)buf, (void)rank, (void)first, (void)n, (void)why, (void)len;
  *wrong = 0;
  return 0;
}
static int count_ignores_reduced(const struct cb_pattern *p, const void *buf, int rank,
                                 uint64_t first, size_t n, size_t *wrong, char *why, size_t len) {
  return good_count(p, buf, rank < 0 ? 0 : rank, first, n, wrong, why, len);
}
static int count_misses_last(const struct cb_pattern *p, const void *buf, int rank, uint64_t first,
                             size_t n, size_t *wrong, char *why, size_t len) {
  return good_count(p, buf, rank, first, n - 1, wrong, why, len);
}
static int poison_zero(int dtype, void *buf, size_t n, char *why, size_t len) {
  (void)why, (void)len;
  memset(buf, 0, n * cb_dtypes[dtype].size);
  return 0;
}
static int fill_fails(const struct cb_pattern *p, void *buf, int rank, uint64_t first, size_t n,
                      char *why, size_t len) {
  (void)p, (void)buf, (void)rank, (void)first, (void)n;
  snprintf(why, len, "fill_kernel: no kernel image is available (209)");
  return -1;
}

static void host_free(void *buf) {
  free(buf);
}

#define IO(label, f, c, z)                                                                         \
  { label, f, c, z, host_alloc, host_free, host_copy }

int main(void) {
  plan(19);
  char why[256] = "";
  const struct cb_pattern_io good = IO("faithful", good_fill, good_count, good_poison);
  ok(cb_pattern_io_selfcheck(&good, why, sizeof why), "a faithful io passes the self-check%s%s",
     why[0] ? ": " : "", why);

  const struct {
    struct cb_pattern_io io;
    const char *says;
  } bad[] = {
      {IO("fill off by one", fill_off_by_one, good_count, good_poison), "filled buffer differs"},
      {IO("half's last element", fill_wrong_half_of_last, good_count, good_poison),
       "half sum: the filled buffer differs"},
      {IO("count always 0", good_fill, count_always_zero, good_poison), "counted 0 wrong"},
      {IO("count ignores reduced", good_fill, count_ignores_reduced, good_poison), "reduced"},
      {IO("count misses the last element", good_fill, count_misses_last, good_poison),
       "3 planted errors"},
      {IO("poison writes zeros", good_fill, good_count, poison_zero), "poisoned buffer differs"},
      {IO("fill fails", fill_fails, good_count, good_poison), "no kernel image"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    why[0] = '\0';
    int passed = cb_pattern_io_selfcheck(&bad[i].io, why, sizeof why);
    ok(!passed, "%s: refused by the self-check", bad[i].io.name);
    ok(strstr(why, bad[i].says) != NULL, "%s: the reason says '%s' (%s)", bad[i].io.name,
       bad[i].says, why);
  }

  /* The helpers: no access (host memory) is pattern.c; a failing io
   * sticks its first reason and names the io. */
  struct cb_pattern p;
  struct cb_error err = {0};
  cb_pattern_init(&p, CB_FLOAT, CB_SUM, 4, 3, &err);
  float a[64], b[64];
  cb_io_fill(NULL, &p, a, 1, 7, 64);
  cb_pattern_fill(&p, b, 1, 7, 64);
  a[5] = -3;
  ok(memcmp(a + 6, b + 6, sizeof a - 6 * sizeof *a) == 0 &&
         cb_io_count_wrong(NULL, &p, a, 1, 7, 64) == 1,
     "host access: fill is pattern.c's, count finds the one changed element");
  struct cb_pattern_io failing = IO("GPU kernels", fill_fails, good_count, good_poison);
  struct cb_pattern_access acc = {&failing, 0, ""};
  cb_io_fill(&acc, &p, a, 1, 7, 64);
  ok(acc.failed && strstr(acc.why, "GPU kernels: fill_kernel: no kernel image") == acc.why,
     "a failing io marks the access failed with its name and reason (%s)", acc.why);
  cb_pattern_free(&p);

  /* The real kernels: admitted on a GPU only by passing the same check. */
  char gpu[256] = "";
  const struct cb_pattern_io *io = cb_gpu_pattern_io(why, sizeof why);
  if (cb_gpu_count(gpu, sizeof gpu) > 0) {
    ok(io != NULL, "the GPU check kernels pass the self-check on this GPU%s%s", io ? "" : ": ",
       io ? "" : why);
    ok(cb_gpu_pattern_io(why, sizeof why) == io, "decided once per process");
  } else {
    printf("ok 18 # SKIP the GPU check kernels' self-check needs a GPU: %s\n", gpu);
    tap_run++;
    ok(io == NULL && why[0], "no GPU: the engine gets no GPU kernels, and why (%s)", why);
  }
  return exit_status();
}
