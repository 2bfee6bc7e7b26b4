/* What the parts of --report share (report.c is their hub and calls
 * them; nothing here is defined in report.c): plot.c writes the gnuplot
 * data and scripts, gnuplot.c runs gnuplot, create.c makes files without
 * following links, html.c writes index.html, and a file per chart family.
 * The inputs are read by bench/readback/. */
#ifndef CB_REPORT_PARTS_H
#define CB_REPORT_PARTS_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "model/model.h"
#include "readback/readback.h"

/* Every chart's size, PNG and SVG alike. */
#define CB_REP_CHART_SIZE "size 960,600"
#include "topology/topology.h"

/* Whether op gets a latency chart besides busbw. */
int cb_rep_has_latency(const char *op);
/* Whether the op is a latency test only (p2p_lat): no bandwidth charts. */
int cb_rep_latency_only(const char *op);
/* Writes DIR/<op>.dat and DIR/<op>.gp and runs gnuplot in DIR. */
int cb_rep_plot(const struct cb_rep_data *d, const char *dir, struct cb_error *err);
/* Helpers plot.c shares with matrix.c: the PNG terminal line every script
 * starts with; one chart STEM.png and STEM.svg from reports/TEMPLATE; and
 * gnuplot run on SCRIPT in DIR without a shell. */
void cb_rep_put_png_term(FILE *f);
int cb_rep_put_chart(FILE *f, const char *stem, const char *template_name, const char *title,
                     struct cb_error *err);
int cb_rep_run_gnuplot(const char *dir, const char *script, struct cb_error *err);
/* create.c: the report's files made without following links. cb_rep_fopen
 * writes a fresh temporary beside PATH; cb_rep_fclose renames it over PATH
 * (EOF on failure, the temporary removed). cb_rep_check_out refuses an
 * --out folder another user owns or every user may write without the
 * sticky bit. cb_rep_gnuplot_private runs SCRIPT with its charts going to a
 * private folder, then renames them into DIR; cb_rep_run_gnuplot_in is the
 * plain run (plot.c). */
FILE *cb_rep_fopen(const char *path);
int cb_rep_fclose(FILE *f);
int cb_rep_check_out(const char *dir, struct cb_error *err);
int cb_rep_gnuplot_private(const char *dir, const char *script, struct cb_error *err);
int cb_rep_run_gnuplot_in(const char *dir, const char *outdir, const char *script,
                          struct cb_error *err);
/* The all-pairs matrices (bench/report/heatmaps.c): per file with pair lines,
 * DIR/matrixN.dat, matrixN.gp and the bandwidth and latency heatmaps
 * matrixN_bw and matrixN_lat (N counts input files from 1). */
int cb_rep_has_matrix(const struct cb_rep_data *d, int file);
int cb_rep_plot_matrices(const struct cb_rep_data *d, const char *dir, struct cb_error *err);
/* index.html's matrix section: heatmaps and hosts per rank. */
void cb_rep_matrix_html(FILE *f, const struct cb_rep_data *d);
/* index.html's verdicts, the page's first section when there are any: the
 * count, and the FAIL and WARN verdicts of every file in full. */
void cb_rep_verdicts_html(FILE *f, const struct cb_rep_data *d);
/* The model section of index.html: alpha-beta fits of the first file and
 * the other files' measurements predicted from them (bench/report/model_tables.c). */
void cb_rep_model_html(FILE *f, const struct cb_rep_data *d);
int cb_rep_html(const struct cb_rep_data *d, const char *dir, struct cb_error *err);
/* --baseline (bench/report/fleet.c): fleetN.png/.svg, series N+1 against
 * the fleet band per size, and index.html's section, outliers first. */
int cb_rep_plot_fleet(const struct cb_rep_data *d, const char *dir, struct cb_error *err);
void cb_rep_fleet_html(FILE *f, const struct cb_rep_data *d);

/* A burn-in's cases against the clock (bench/report/timeseries.c): per
 * file with burn-in lines, burninF_K.png/.svg and index.html's section. */
int cb_rep_plot_burnin(const struct cb_rep_data *d, const char *dir, struct cb_error *err);
void cb_rep_burnin_html(FILE *f, const struct cb_rep_data *d);

/* The model drawn with the measurements (bench/report/capacity.c). The fit
 * uses the first file, or every file but the last when there are three or
 * more (one node, two nodes, then the held-out run: each tier needs its own
 * file); the files after those are held out. */
int cb_rep_nfit(const struct cb_rep_data *d);
struct cb_fit_groups;
void cb_rep_fit(const struct cb_rep_data *d, struct cb_fit_groups *gs);
/* "a.jsonl" or "a.jsonl + b.jsonl": the fitted files' names, for titles. */
const char *cb_rep_fit_names(const struct cb_rep_data *d, char *buf, size_t len);
/* Median and max |predicted / measured - 1| of op over the held-out files
 * (the points the fit did not see); returns their count. */
int cb_rep_held_out(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int op,
                    double *median, double *max);
/* Writes DIR/OP_model.dat (the series' predicted points, one block per
 * series with a matching fit) and the script variables modelfile, nmodel,
 * model_of[] (which series' colour) and model_title. */
int cb_rep_model_lines(FILE *gp, const struct cb_rep_data *d, int first, int n, const char *dir,
                       struct cb_error *err);
/* The system op is predicted on: fitted tiers, else the topology's
 * (d->topo); ranks per node from the topology, else 8. */
void cb_rep_system(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int op,
                   struct cb_system *s, char from[CB_NTIERS][200]);
/* chart_note: the tiers' sources, or that predictions stop at one node. */
void cb_rep_put_tiers_note(FILE *gp, const struct cb_system *s, char from[CB_NTIERS][200],
                           const char *unit);
/* What a cluster is counted in: "GPUs", or "ranks" for host runs. */
const char *cb_rep_unit(const struct cb_rep_data *d);
/* OP_capacity.png/.svg for every model op with a fit and something to
 * draw: 1 drawn, -1 fitted but nothing to draw past one cluster size (one
 * node and no inter-node tier), 0 no fit. */
int cb_rep_capacity(const struct cb_rep_data *d, int op);
int cb_rep_plot_capacity(const struct cb_rep_data *d, const char *dir, struct cb_error *err);

/* --tune --trials files (bench/report/tuning.c): per file, TRIALSn.png
 * (rho against bucket size per algorithm, the chosen setting marked, the
 * closing re-measure) and, with a fit for allreduce, STEPn.png (predicted
 * rho against cluster size per bucket size); their section of index.html. */
int cb_rep_plot_tuning(const struct cb_rep_data *d, const char *dir, struct cb_error *err);
void cb_rep_tuning_html(FILE *f, const struct cb_rep_data *d);
/* --tune --parallel lines (bench/report/layouts.c): layouts.png/.svg and
 * index.html's section. */
int cb_rep_plot_layouts(const struct cb_rep_data *d, const char *dir, struct cb_error *err);
void cb_rep_layouts_html(FILE *f, const struct cb_rep_data *d);
/* tuning.c's helpers for a chart of a trials file: STEM.dat and STEM.gp
 * opened with the header written, then closed and drawn with a template. */
int cb_rep_open_pair(const char *dir, const char *stem, FILE **dat, FILE **gp,
                     struct cb_error *err);
int cb_rep_close_pair(const char *dir, const char *stem, const char *template_name,
                      const char *title, FILE *dat, FILE *gp, struct cb_error *err);
/* A step chart of a trials file, tuneN_NAME.dat/.gp drawn by NAME.gp: per
 * bucket size (the search's and the two compared), value(rho) of the
 * model's step on 2 to 16384 GPUs, a titled line each; then the file's
 * measured default and tuned points. tuning.c draws rho, overhead.c the
 * overhead. */
struct cb_fit_groups;
struct cb_rep_step_chart {
  const char *name;            /* "step" or "overhead" */
  double compute_s;            /* the T_compute the model's step computes for */
  double (*value)(double rho); /* what the chart shows of the model's rho */
  /* the measured points after the model's lines, and gp's own variables */
  void (*measured)(FILE *dat, FILE *gp, const struct cb_rep_tune *t);
  const char *title;
};
int cb_rep_plot_step_chart(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int file,
                           const char *dir, const struct cb_rep_step_chart *c,
                           struct cb_error *err);
/* overhead.c: predicted overhead against cluster size per bucket size, the
 * target line and the file's measured points (tuneN_overhead). */
int cb_rep_plot_overhead(const struct cb_rep_data *d, const struct cb_fit_groups *gs, int file,
                         const char *dir, struct cb_error *err);

#endif
