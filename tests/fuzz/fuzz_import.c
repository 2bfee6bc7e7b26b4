/* libFuzzer harness for --import-nccl-tests (bench/import/nccl_tests.c):
 * nccl-tests' text table or -J JSON (seeds: tests/fuzz/corpus/import, from
 * tests/fixtures). Whatever it imports must be in range: bytes from 1,
 * count at most bytes, figures finite and not negative (issue 28: out-of-
 * range numbers were cast, bytes 0 imported). */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "import/nccl_tests.h"

static void check(const struct cb_record *r) {
  if (r->bytes < 1 || r->count > r->bytes || !isfinite(r->time_us) || r->time_us < 0 ||
      !isfinite(r->algbw_GBps) || r->algbw_GBps < 0 || !isfinite(r->busbw_GBps) ||
      r->busbw_GBps < 0 || r->wrong < -1 || r->root < -1)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file(data, size);
  for (int with_op = 0; with_op < 2; with_op++) {
    struct cb_import im;
    struct cb_error err = {0};
    if (cb_import_nccl_tests(path, with_op ? "allreduce" : NULL, &im, &err) != CB_OK)
      continue;
    for (int i = 0; i < im.nrows; i++)
      for (int v = 0; v < 2; v++)
        if (im.rows[i].has[v])
          check(&im.rows[i].rec[v]);
    cb_import_free(&im);
  }
  return 0;
}
