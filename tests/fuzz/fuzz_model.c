/* libFuzzer harness for --fit and --validate (bench/model/commands.c): the
 * input, split at "--" lines, is fitted and then validated against the
 * fit, every model op chosen, as `collbench --fit A --validate B` does. */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <stdint.h>
#include <string.h>

#include "bench/model/model.h"
#include "model/commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *paths[FUZZ_MAX_FILES];
  int n = fuzz_files(data, size, paths);
  struct cb_model_cli m;
  memset(&m, 0, sizeof m);
  /* the first file (or all but the last) fitted, the last validated */
  m.nfit = n > 1 ? n - 1 : 1;
  for (int i = 0; i < m.nfit; i++)
    m.fit[i] = paths[i];
  m.validate[0] = paths[n - 1];
  m.nvalidate = 1;
  for (; m.nops < CB_NMOPS; m.nops++)
    m.ops[m.nops] = m.nops;
  cb_model_run(&m);
  return 0;
}
