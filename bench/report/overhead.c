/* The 20% rule in --report: a trials file's step, predicted on larger
 * clusters, as communication overhead (exposed / step) per bucket size,
 * with the run's target as a line and its measured default and tuned
 * overhead as points with their 95% CI. */
#include <math.h>
#include <stdio.h>

#include "../model/groups.h"
#include "../overhead.h"
#include "../units.h"
#include "report.h"

#define MAX_GPUS 16384

static void measured_point(FILE *f, double x, const struct cb_rep_tune_cfg *c) {
  struct cb_overhead o =
      cb_overhead_of(c->t_step_us, c->t_step_ci95_us, c->t_compute_us, c->t_compute_ci95_us);
  fprintf(f, "%g %.6g %.6g\n", x, 100 * o.value, 100 * o.ci95);
}

int cb_rep_plot_overhead(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int file,
                         const char *dir, struct cb_error *err) {
  const struct cb_rep_tune *t = &d->tunes[file];
  struct cb_system s;
  char from[CB_NTIERS][200], stem[64], sz[32], gb[32], title[256];
  cb_rep_system(d, gs, CB_MOP_ALLREDUCE, &s, from);
  snprintf(stem, sizeof stem, "tune%d_overhead", file + 1);
  FILE *f, *gp;
  if (cb_rep_open_pair(dir, stem, &f, &gp, err))
    return err->status;
  uint64_t b[34];
  int nb = cb_rep_step_buckets(t, b), nlines = 0;
  double compute_s = t->tuned.t_compute_us * 1e-6;
  fprintf(gp, "array step_titles[%d]\n", nb);
  for (int k = 0; k < nb; k++) {
    int rows = 0;
    for (int p = 2; p <= MAX_GPUS; p *= 2) {
      struct cb_step_result r;
      if (cb_model_step(&s, p, compute_s, (double)t->grad_bytes, (double)b[k], &r) == 0)
        fprintf(f, "%s%d %.6g\n", nlines && !rows ? "\n\n" : "", p,
                100 * cb_overhead_from_rho(r.rho)),
            rows++;
    }
    if (rows)
      fprintf(gp, "step_titles[%d] = 'model, bucket %s'\n", ++nlines,
              cb_format_size(b[k], sz, sizeof sz));
  }
  /* the tuned point a little to the right, so both error bars show */
  fputs(nlines ? "\n\n" : "", f);
  measured_point(f, (double)t->nranks, &t->def);
  fputs("\n\n", f);
  measured_point(f, t->nranks * 1.1, &t->tuned);
  fprintf(gp, "nlines = %d\ntarget = %g\n", nlines, 100 * t->max_overhead);
  fprintf(gp, "target_title = 'target: %g%% of the step'\n", 100 * t->max_overhead);
  fprintf(gp, "default_title = 'measured, default (bucket %s)'\n",
          cb_format_size(t->def.bucket_bytes, sz, sizeof sz));
  fprintf(gp, "tuned_title = 'measured, tuned (bucket %s)'\n",
          cb_format_size(t->tuned.bucket_bytes, sz, sizeof sz));
  cb_rep_put_tiers_note(gp, &s, from);
  snprintf(title, sizeof title,
           "run %d: step communication overhead, T_compute %.2f ms, %s of gradients, predicted",
           file + 1, compute_s * 1e3, cb_format_size(t->grad_bytes, gb, sizeof gb));
  return cb_rep_close_pair(dir, stem, "overhead.gp", title, f, gp, err);
}
