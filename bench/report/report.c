/* --report from start to end: read every input, order, draw, write HTML. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fleet/baseline.h"
#include "parts.h"
#include "report.h"

static int has_tuning(const struct cb_rep_data *d) {
  if (d->nlayouts)
    return 1;
  for (int i = 0; d->tunes && i < d->nruns; i++)
    if (d->tunes[i].ntrials || d->tunes[i].has_summary)
      return 1;
  return 0;
}

int cb_report(const struct cb_report_cli *rep) {
  struct cb_error err = {0};
  struct cb_rep_data d = {0};
  struct cb_topology topo;
  struct cb_baseline fleet = {0};
  const char *dir = rep->out;
  d.runs = calloc(rep->ninputs, sizeof *d.runs);
  d.nruns = rep->ninputs;
  int rc = CB_OK;
  if (rep->topology && !(rc = cb_topology_load(rep->topology, &topo, rep->topology_part, &err)))
    d.topo = &topo;
  if (!rc && rep->baseline && !(rc = cb_baseline_load("--baseline", rep->baseline, &fleet, &err)))
    d.fleet = &fleet;
  for (int i = 0; i < rep->ninputs && !rc; i++)
    rc = cb_rep_read(rep->inputs[i], i, &d, &err);
  if (!rc && d.nseries == 0 && d.npairs == 0 && d.nverdicts == 0 && !has_tuning(&d))
    rc = cb_fail(&err, CB_USAGE,
                 "--report: no usable result, pair, verdict or trial lines in the input");
  if (!rc && mkdir(dir, 0777) != 0 && errno != EEXIST)
    rc = cb_fail(&err, CB_USAGE, "--out: cannot create '%s': %s", dir, strerror(errno));
  if (!rc)
    rc = cb_rep_check_out(dir, &err);
  if (!rc) {
    cb_rep_sort(&d);
    rc = cb_rep_plot(&d, dir, &err);
  }
  if (!rc)
    rc = cb_rep_plot_fleet(&d, dir, &err);
  if (!rc)
    rc = cb_rep_plot_burnin(&d, dir, &err);
  if (!rc)
    rc = cb_rep_html(&d, dir, &err);
  if (rc)
    cb_error_print(&err);
  else { /* --out report/ is report/index.html, not report//index.html */
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
      len--;
    printf("collbench: report in %.*s/index.html\n", (int)len, dir);
  }
  cb_rep_free(&d);
  cb_baseline_free(&fleet);
  return rc;
}
