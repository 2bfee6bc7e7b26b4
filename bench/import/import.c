/* --import-nccl-tests FILE --json OUT: read the whole file first, so a
 * malformed one (exit 2) leaves OUT untouched, then hand its rows to the
 * same sinks a measured run feeds. */
#include <stdio.h>

#include "../output/sink.h"
#include "import.h"
#include "nccl_tests.h"

static int write_all(const struct cb_import_cli *c, const struct cb_import *im,
                     struct cb_error *err) {
  struct cb_output outs[2];
  int nouts = 0, n = 0;
  if (c->json_path)
    outs[nouts++] = (struct cb_output){c->json_path, "--json", 0, cb_sink_jsonl};
  if (c->csv_path)
    outs[nouts++] = (struct cb_output){c->csv_path, "--csv", 0, cb_sink_csv};
  struct cb_sink sinks[2];
  /* every path checked, then all opened, then emptied: as a measured run */
  int rc = cb_sinks_open(outs, nouts, sinks, &n, err);
  struct cb_summary sum = {0};
  for (int i = 0; i < im->nrows && rc == CB_OK; i++) {
    const struct cb_import_row *r = &im->rows[i];
    struct cb_row row = {r->has[0] ? &r->rec[0] : NULL, r->has[1] ? &r->rec[1] : NULL};
    sum.rows++;
    for (int v = 0; v < 2; v++) {
      sum.records += r->has[v];
      if (r->has[v] && r->rec[v].wrong > 0)
        sum.wrong += r->rec[v].wrong;
      if (r->has[v] && r->rec[v].wrong < 0)
        sum.unchecked++;
    }
    for (int s = 0; s < n && rc == CB_OK; s++)
      if (sinks[s].row)
        rc = sinks[s].row(sinks[s].state, &row, err);
  }
  for (int s = 0; s < n && rc == CB_OK; s++)
    if (sinks[s].finish)
      rc = sinks[s].finish(sinks[s].state, &sum, err);
  struct cb_error close_err = {0};
  if (cb_sinks_close(sinks, n, &close_err) && rc == CB_OK) {
    *err = close_err;
    rc = err->status;
  }
  return rc;
}

int cb_import_run(const struct cb_import_cli *c) {
  struct cb_error err = {0};
  struct cb_import im;
  int rc = cb_import_nccl_tests(c->input, c->op, &im, &err);
  if (rc == CB_OK)
    rc = write_all(c, &im, &err);
  if (rc == CB_OK) {
    printf("collbench: %s: %d rows of nccl-tests %s (%s, %d rank%s on %d host%s) as op %s\n",
           c->input, im.nrows, im.program[0] ? im.program : "output", im.json ? "JSON" : "table",
           im.nranks, im.nranks == 1 ? "" : "s", im.nnodes, im.nnodes == 1 ? "" : "s", im.op);
    if (im.nan)
      printf("collbench: %s: %d out-of-place or in-place figures were \"nan\": left out\n",
             c->input, im.nan);
  } else {
    cb_error_print(&err);
  }
  cb_import_free(&im);
  return rc;
}
