/* libFuzzer harness for --import-inspector (bench/import/inspector.c): up
 * to four NCCL Inspector files, split at "--" lines (seeds:
 * tests/fuzz/corpus/inspector, from tests/fixtures/inspector). Whatever it
 * imports is in range (issue 73: n_ranks 2^31 was cast to a negative int,
 * 0 and 1.5-byte calls were taken, a file of p2p lines sorted NULL), and
 * every op name is printable. */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import/inspector.h"

static int printable(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f)
      return 0;
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *paths[FUZZ_MAX_FILES];
  int n = fuzz_files(data, size, paths);
  struct cb_calls c;
  struct cb_error err = {0};
  if (cb_inspector_read(paths, n, &c, &err) != CB_OK)
    return 0;
  long calls = 0;
  for (int i = 0; i < c.n; i++) {
    const struct cb_call *r = &c.v[i];
    if (r->nranks < 1 || r->nranks > CB_CALLS_MAX_RANKS || r->nnodes < 1 || r->nnodes > r->nranks ||
        r->bytes < 1 || r->calls < 1 || !(r->share > 0) || r->share > 1 || !printable(r->op) ||
        (!isnan(r->time_us) && r->time_us < 0) || (!isnan(r->busbw_GBps) && r->busbw_GBps < 0))
      abort();
    calls += r->calls;
  }
  if (c.n < 1 || calls != c.calls)
    abort();
  cb_calls_free(&c);
  return 0;
}
