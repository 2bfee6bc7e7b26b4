/* libFuzzer harness for --report's reader (bench/readback/read.c) and what
 * reads its result: the ordering and the HTML sections built from pairs,
 * verdicts, fits and trials (the heatmap grid among them). Charts and
 * gnuplot are left out: they write files and run a program. */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <stdint.h>
#include <stdlib.h>

#include "bench/report/parts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *paths[FUZZ_MAX_FILES];
  int n = fuzz_files(data, size, paths);
  struct cb_rep_data d = {0};
  struct cb_error err = {0};
  d.runs = calloc(n, sizeof *d.runs);
  d.nruns = n;
  int rc = CB_OK;
  for (int i = 0; i < n && !rc; i++)
    rc = cb_rep_read(paths[i], i, &d, &err);
  if (!rc) {
    cb_rep_sort(&d);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = fuzz_sink(&buf, &len);
    cb_rep_matrix_html(f, &d);
    cb_rep_model_html(f, &d);
    cb_rep_tuning_html(f, &d);
    cb_rep_burnin_html(f, &d); /* the series over time, their drift */
    fclose(f);
    free(buf);
  }
  cb_rep_free(&d);
  return 0;
}
