/* The model fitted to the report's runs: which runs it fits, the fit,
 * and its name in captions; the capacity and model-table parts read it. */
#include <stdio.h>
#include <string.h>

#include "model/groups.h"
#include "parts.h"

int cb_rep_nfit(const struct cb_rep_data *d) {
  return d->nruns >= 3 ? d->nruns - 1 : 1;
}

void cb_rep_fit(const struct cb_rep_data *d, struct cb_fit_groups *gs) {
  *gs = (struct cb_fit_groups){0};
  for (int file = 0; file < cb_rep_nfit(d); file++)
    cb_fit_groups_add(gs, d, NULL, file);
  cb_fit_groups_fit(gs);
}

const char *cb_rep_fit_names(const struct cb_rep_data *d, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (int file = 0; file < cb_rep_nfit(d) && at < len; file++)
    at += snprintf(buf + at, len - at, "%s%s", file ? " + " : "", cb_rep_base_name(d->runs[file].path));
  return buf;
}
