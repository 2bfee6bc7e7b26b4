/* libFuzzer harness for --resume (tuner/trials.c): an earlier --trials
 * file is loaded for the setup of a real run (tests/fuzz/corpus/trials)
 * and written back; what was kept must load again, with the same trials,
 * as a second --resume would. */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <stdint.h>
#include <stdlib.h>

#include "tuner/trials.h"

static const char setup[] =
    "{\"library\":\"mpi\",\"model\":[128,4,4,64,1,0],\"nranks\":2,\"reps\":2,\"exhaustive\":0,"
    "\"algorithms\":[0,1],\"segments\":[16384,65536,262144,1048576],\"protocols\":[],\"ctas\":[],"
    "\"buckets\":[1048576,2097152]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct cb_trials t;
  struct cb_error err = {0};
  const char *path = fuzz_file(data, size);
  if (cb_trials_open(&t, path, 1, setup, &err) != CB_OK) {
    cb_trials_close(&t, &err);
    return 0;
  }
  int n = t.ncache;
  struct cb_trial *kept = malloc((n ? n : 1) * sizeof *kept);
  for (int i = 0; i < n; i++)
    kept[i] = t.cache[i];
  if (cb_trials_close(&t, &err) != CB_OK) { /* a write error, not the reader's */
    free(kept);
    return 0;
  }
  if (cb_trials_open(&t, path, 1, setup, &err) != CB_OK || t.ncache != n)
    abort(); /* the file --resume wrote back is not one it resumes from */
  for (int i = 0; i < n; i++) {
    struct cb_score s;
    if (!cb_trials_find(&t, kept[i].batch, &kept[i].cfg, &s))
      abort();
  }
  cb_trials_close(&t, &err);
  free(kept);
  return 0;
}
