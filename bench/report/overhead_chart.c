/* The 20% rule in --report: a trials file's step, predicted on larger
 * clusters, as communication overhead (exposed / step) per bucket size,
 * with the run's target as a line and its measured default and tuned
 * overhead as points with their 95% CI. */
#include <stdio.h>

#include "core/overhead.h"
#include "base/units.h"
#include "report.h"

static double overhead_percent(double rho) {
  return 100 * cb_overhead_from_rho(rho);
}

static void measured_point(FILE *f, double x, const struct cb_rep_tune_cfg *c) {
  /* from the paired rho, as --tune judged it (overhead.h) */
  struct cb_overhead o = cb_overhead_from_rho_ci(c->rho, c->rho_ci95);
  fprintf(f, "%g %.6g %.6g\n", x, 100 * o.value, 100 * o.ci95);
}

/* the tuned point a little to the right, so both error bars show */
static void measured(FILE *f, FILE *gp, const struct cb_rep_tune *t) {
  measured_point(f, (double)t->nranks, &t->def);
  fputs("\n\n", f);
  measured_point(f, t->nranks * 1.1, &t->tuned);
  fprintf(gp, "target = %g\n", 100 * t->max_overhead);
  fprintf(gp, "target_title = 'target: %g%% of the step'\n", 100 * t->max_overhead);
}

int cb_rep_plot_overhead(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int file,
                         const char *dir, struct cb_error *err) {
  const struct cb_rep_tune *t = &d->tunes[file];
  double compute_s = t->tuned.t_compute_us * 1e-6;
  char gb[32], title[256];
  snprintf(title, sizeof title,
           "run %d: step communication overhead, T_compute %.2f ms, %s of gradients, predicted",
           file + 1, compute_s * 1e3, cb_format_size(t->grad_bytes, gb, sizeof gb));
  const struct cb_rep_step_chart c = {"overhead", compute_s, overhead_percent, measured, title};
  return cb_rep_plot_step_chart(d, gs, file, dir, &c, err);
}
