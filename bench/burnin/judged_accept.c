/* --duration with --accept or --matrix (judged_accept.h). */
#include "judged_accept.h"

#include <stdio.h>

#include "accept/accept.h"
#include "accept/excluded.h"
#include "accept/hang.h"
#include "judged.h"

/* One pass of the mode, and the hosts it laid a FAIL to added to those of
 * the passes before it. */
struct pass_state {
  const struct cb_cluster *cl;
  const struct cb_judged_accept *j;
  struct cb_excluded excluded; /* names: the probe's, which outlive the passes */
};

static int one_pass(void *state, const struct cb_settings *pass, struct cb_sink *sinks, int nsinks,
                    struct cb_error *err) {
  struct pass_state *p = state;
  const struct cb_judged_accept *j = p->j;
  struct cb_accept_result res;
  cb_hang_watch(p->cl, j->exclude_path, sinks, nsinks, &res, &p->excluded);
  int rc = j->spec ? cb_accept_run(p->cl, j->spec, &j->fleet, pass, j->ri, sinks, nsinks, &res, err)
                   : cb_matrix_run(p->cl, pass, j->rules, j->ri, sinks, nsinks, &res, err);
  cb_hang_unwatch();
  if (rc == CB_OK && p->cl->rank == 0 && cb_excluded_from(&p->excluded, &res))
    rc = cb_fail(err, CB_RUNTIME, "--exclude-out: out of memory");
  if (rc == CB_OK && p->cl->rank == 0) /* a hang between passes keeps them too */
    cb_hang_keep(&p->excluded);
  cb_accept_result_free(&res);
  return rc;
}

int cb_burnin_accept(const struct cb_cluster *cl, const struct cb_settings *s,
                     const struct cb_judged_accept *j, struct cb_sink *sinks, int nsinks,
                     struct cb_error *err) {
  struct pass_state p = {cl, j, {0}};
  struct cb_burnin_answer a;
  int rc = cb_burnin_judged_run(cl, s, sinks, nsinks, one_pass, &p, &a, err);
  if (cl->rank == 0 && (rc == CB_OK || rc == CB_FAILED)) { /* one answer, over the whole run */
    char list[1024], over[64];
    if (p.excluded.n)
      printf("# exclude (Slurm hostlist), a FAIL laid to them in any interval: %s\n",
             cb_excluded_hostlist(&p.excluded, list, sizeof list));
    snprintf(over, sizeof over, " over %d intervals", a.intervals);
    cb_accept_print_answer(a.total, a.not_passed, a.warn, a.unjudged, a.names, over);
  }
  if (cl->rank == 0 && j->exclude_path && (rc == CB_OK || rc == CB_FAILED) &&
      cb_excluded_write(&p.excluded, j->exclude_path, err))
    rc = err->status;
  cb_excluded_free(&p.excluded);
  return rc;
}
