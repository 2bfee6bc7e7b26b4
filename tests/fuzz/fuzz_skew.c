/* libFuzzer harness for --skew FILE (bench/ops/skew.c): a matrix file
 * (seeds: tests/fuzz/corpus/skew) parsed, bound to as many ranks as it has
 * rows (at most 16), and each row's counts computed: a row's counts add up
 * to at most the busiest sender's total, and the file is square. */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <stdint.h>
#include <stdlib.h>

#include "ops/skew.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct cb_skew k;
  struct cb_error err = {0};
  if (cb_skew_parse(fuzz_file(data, size), &k, &err) != CB_OK)
    return 0;
  if (k.kind != CB_SKEW_FILE || k.dim < 1)
    abort();
  int n = k.dim < 16 ? k.dim : 16;
  if (cb_skew_bind(&k, n, &err) == CB_OK) {
    size_t counts[16], total = 1 << 20;
    for (int i = 0; i < n; i++) {
      if (cb_skew_row(&k, n, total, i, counts))
        abort();
      size_t sum = 0;
      for (int j = 0; j < n; j++)
        sum += counts[j];
      if (sum > total)
        abort();
    }
  }
  cb_skew_free(&k);
  return 0;
}
