/* --duration with --accept or --matrix: each pass the mode's whole run
 * (judged.h runs them), watched for a hang as a single run is, and the
 * hosts any pass laid a FAIL to, kept over the passes for the one answer
 * and --exclude-out at the end. Collective. */
#ifndef CB_BURNIN_JUDGED_ACCEPT_H
#define CB_BURNIN_JUDGED_ACCEPT_H

#include "accept/matrix.h"
#include "accept/spec.h"
#include "accept/verdicts.h"
#include "output/runinfo.h"

struct cb_judged_accept {
  const struct cb_accept_spec *spec;   /* --accept's checks; NULL: --matrix */
  const struct cb_matrix_rules *rules; /* --matrix's rules */
  struct cb_fleet fleet;               /* the baseline --accept judges against too */
  const struct cb_run_info *ri;
  const char *exclude_path; /* --exclude-out, or NULL */
};

/* CB_OK when every verdict over the run passed (or warned), CB_FAILED
 * when one did not; a runtime error stops it (judged.h). */
int cb_burnin_accept(const struct cb_cluster *cl, const struct cb_settings *s,
                     const struct cb_judged_accept *j, struct cb_sink *sinks, int nsinks,
                     struct cb_error *err);

#endif
