/* --report from start to end: read every input, order, draw, write HTML. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"

int cb_report(const char *const *inputs, int ninputs, const char *dir) {
  struct cb_error err = {0};
  struct cb_rep_data d = {0};
  d.runs = calloc(ninputs, sizeof *d.runs);
  d.nruns = ninputs;
  int rc = CB_OK;
  for (int i = 0; i < ninputs && !rc; i++)
    rc = cb_rep_read(inputs[i], i, &d, &err);
  if (!rc && d.nseries == 0 && d.npairs == 0 && d.nverdicts == 0)
    rc = cb_fail(&err, CB_USAGE, "--report: no usable result, pair or verdict lines in the input");
  if (!rc && mkdir(dir, 0777) != 0 && errno != EEXIST)
    rc = cb_fail(&err, CB_USAGE, "--out: cannot create '%s': %s", dir, strerror(errno));
  if (!rc) {
    cb_rep_sort(&d);
    rc = cb_rep_plot(&d, dir, &err);
  }
  if (!rc)
    rc = cb_rep_html(&d, dir, &err);
  if (rc)
    fprintf(stderr, "collbench: %s\n", err.msg);
  else
    printf("collbench: report in %s/index.html\n", dir);
  cb_rep_free(&d);
  return rc;
}
