/* --tune --parallel lines in --report: each layout's exposed share of the
 * step per dimension, with its 95% interval, for the launch settings and
 * the tuned ones (layouts.png), and a table of the step, the overhead's
 * verdict and what the search chose. */
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "parts.h"

int cb_rep_plot_layouts(const struct cb_rep_data *d, const char *dir, struct cb_error *err) {
  if (!d->nlayouts)
    return CB_OK;
  FILE *f, *gp;
  if (cb_rep_open_pair(dir, "layouts", &f, &gp, err))
    return err->status;
  /* one bar per (line, dimension); the tuned bar beside it */
  int x = 0, tuned = 0;
  fputs("set xtics (", gp);
  for (int i = 0; i < d->nlayouts; i++)
    for (int j = 0; j < d->layouts[i].def.ndims; j++, x++) {
      char label[256];
      snprintf(label, sizeof label, "%s: %s", d->layouts[i].label, d->layouts[i].def.dim[j]);
      for (char *c = label; *c; c++) /* a quote would end gnuplot's string */
        if (*c == '\'' || *c == '"' || *c == '\\')
          *c = '_';
      fprintf(gp, "%s'%s' %d", x ? ", " : "", label, x);
    }
  fputs(")\n", gp);
  x = 0;
  for (int i = 0; i < d->nlayouts; i++)
    for (int j = 0; j < d->layouts[i].def.ndims; j++, x++) {
      const double *s = d->layouts[i].def.share[j];
      fprintf(f, "%d %.6g %.6g %.6g\n", x, 100 * s[0], 100 * s[1], 100 * s[2]);
    }
  fputs("\n\n", f);
  x = 0;
  for (int i = 0; i < d->nlayouts; i++) {
    const struct cb_rep_layout *l = &d->layouts[i];
    for (int j = 0; j < l->def.ndims; j++, x++)
      for (int k = 0; l->has_tuned && k < l->tuned.ndims; k++)
        if (!strcmp(l->tuned.dim[k], l->def.dim[j])) {
          const double *s = l->tuned.share[k];
          fprintf(f, "%g %.6g %.6g %.6g\n", x + 0.35, 100 * s[0], 100 * s[1], 100 * s[2]);
          tuned = 1;
        }
  }
  fprintf(gp, "has_tuned = %d\nnbars = %d\n", tuned, x);
  return cb_rep_close_pair(dir, "layouts", "layouts.gp",
                           "parallel layouts: each dimension's exposed share of the step", f, gp,
                           err);
}

static void result_cells(FILE *f, const struct cb_rep_layout_res *r) {
  fprintf(f, "<td class=n>%.3f [%.3f, %.3f]</td><td class=n>%.1f%% [%.1f, %.1f] ", r->t_step_ms[0],
          r->t_step_ms[1], r->t_step_ms[2], 100 * r->overhead[0], 100 * r->overhead[1],
          100 * r->overhead[2]);
  cb_html_put(f, r->verdict);
  fputs("</td><td>", f);
  for (int j = 0; j < r->ndims; j++) {
    fprintf(f, "%s", j ? ", " : "");
    cb_html_put(f, r->dim[j]);
    fprintf(f, " %.1f%% [%.1f, %.1f]", 100 * r->share[j][0], 100 * r->share[j][1],
            100 * r->share[j][2]);
  }
  fputs("</td>", f);
}

void cb_rep_layouts_html(FILE *f, const struct cb_rep_data *d) {
  if (!d->nlayouts)
    return;
  fputs("<h2>Parallel layouts</h2>\n<p>The reference step as each layout issues it "
        "(<code>--tune --parallel</code>): the share of T_step the slowest rank waited on each "
        "dimension's communicator, median and 95% interval over the rounds; the overhead is "
        "(T_step &minus; T_compute) / T_step with its verdict against the run's target "
        "(tuner/TUNING.md, &ldquo;Parallel layouts&rdquo;).</p>\n"
        "<p><a href=\"layouts.svg\"><img src=\"layouts.png\" alt=\"exposed share of the step "
        "per dimension and layout\"></a></p>\n<table>\n<tr><th>run</th><th>layout</th>"
        "<th>settings</th><th>T_step (ms)</th><th>overhead</th><th>exposed</th></tr>\n",
        f);
  for (int i = 0; i < d->nlayouts; i++) {
    const struct cb_rep_layout *l = &d->layouts[i];
    for (int t = 0; t < 1 + l->has_tuned; t++) {
      fprintf(f, "<tr><td>");
      cb_html_put(f, d->runs[l->file].path);
      fputs("</td><td>", f);
      cb_html_put(f, l->label);
      fputs("</td><td>", f);
      cb_html_put(f, t ? l->algorithms : "launch");
      fputs("</td>", f);
      result_cells(f, t ? &l->tuned : &l->def);
      fputs("</tr>\n", f);
    }
  }
  fputs("</table>\n", f);
}
