/* libFuzzer harness for the baseline reader (bench/fleet/baseline_json.c:
 * --baseline, --compare, [baseline] file): a baseline file (seeds:
 * tests/fuzz/corpus/baseline, built from real runs). What loads must be
 * written back and load again with the same entries. */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <stdint.h>
#include <stdlib.h>

#include "fleet/baseline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct cb_baseline b, again;
  struct cb_error err = {0};
  if (cb_baseline_load("--baseline", fuzz_file(data, size), &b, &err) != CB_OK)
    return 0;
  static char copy[64]; /* a real file: the writer renames a temporary over it */
  if (!copy[0]) {
    char dir[] = "/tmp/fuzz-baseline.XXXXXX";
    if (!mkdtemp(dir))
      abort();
    snprintf(copy, sizeof copy, "%s/copy.json", dir);
  }
  if (cb_baseline_write(&b, copy, &err) != CB_OK) { /* a write error, not the reader's */
    cb_baseline_free(&b);
    return 0;
  }
  if (cb_baseline_load("--baseline", copy, &again, &err) != CB_OK || again.nentries != b.nentries ||
      again.nruns != b.nruns)
    abort(); /* a baseline it wrote is not one it reads */
  for (int i = 0; i < b.nentries; i++)
    if (!cb_bl_same_key(&b.entries[i], &again.entries[i]))
      abort();
  cb_baseline_free(&again);
  cb_baseline_free(&b);
  return 0;
}
