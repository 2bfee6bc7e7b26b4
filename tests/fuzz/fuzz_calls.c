/* libFuzzer harness for --calls and --tune --calls (bench/import/
 * inspector.c's cb_calls_read): a calls file (seeds: tests/fuzz/corpus/
 * calls, as --import-inspector --out writes them). Whatever it takes is in
 * range: a call on 1 to CB_CALLS_MAX_RANKS ranks, nodes at most ranks, 1
 * byte or more (issue 73: a 0-byte call vanished without a word). */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "import/inspector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct cb_calls c;
  struct cb_error err = {0};
  if (cb_calls_read(fuzz_file(data, size), &c, &err) != CB_OK) {
    if (c.n || c.v) /* a refusal frees what it read */
      abort();
    return 0;
  }
  for (int i = 0; i < c.n; i++) {
    const struct cb_call *r = &c.v[i];
    if (r->nranks < 1 || r->nranks > CB_CALLS_MAX_RANKS || r->nnodes < 1 || r->nnodes > r->nranks ||
        r->bytes < 1 || r->calls < 1 || r->share < 0 || r->share > 1 ||
        (!isnan(r->time_us) && r->time_us < 0))
      abort();
  }
  if (c.n < 1)
    abort();
  cb_calls_free(&c);
  return 0;
}
