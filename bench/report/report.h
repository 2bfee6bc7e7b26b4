/* --report: charts and an HTML page from collbench's JSON Lines, without
 * MPI. input.c reads the files, series.c orders them, plot.c writes the
 * gnuplot data and scripts and runs gnuplot, html.c writes index.html. */
#ifndef CB_REPORT_H
#define CB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "../model/model.h"
#include "base/readbound.h"
#include "core/record.h"
#include "core/topology.h"

/* The run record of one input file (strings empty when it had none). */
struct cb_rep_run {
  const char *path;
  char *start_time, *command_line, *hostnames, *mpi_library, *version, *git_commit;
  long nranks, nnodes;
};

/* Results sharing everything but size, from one file. */
struct cb_rep_series {
  int file;
  char *op, *backend, *mem, *transport, *dtype, *redop;
  int inplace;
  struct cb_record *pts; /* the measurement records, by size */
  int npts, cap;
};

/* One measured cell of an all-pairs matrix (--matrix): src sends, dst
 * receives; NAN where the line carried no bandwidth or no latency. Only
 * round lines are kept: round 0 is a suspect's retest alone. `matrix` is
 * "" for the MPI all-pairs matrix, else a copy matrix's name (a plain
 * word, e.g. copy_ce), where -1 stands for the host (h2d, d2h). */
struct cb_rep_pair {
  int file;
  long src, dst, round;
  uint64_t bytes;
  double bw_GBps, lat_us;
  char *src_host, *dst_host, *matrix, *link;
};

/* One --tune --trials file: its trial lines and, when the run finished,
 * the summary's closing re-measure of the default and tuned settings. */
struct cb_rep_tune_cfg {
  int algorithm; /* -1: the library's own */
  long segsize;
  int protocol; /* nccl: 1 + NCCL_PROTO index, 0 NCCL's */
  uint64_t bucket_bytes;
  double t_compute_us, t_comm_us, t_step_us, t_step_ci95_us, rho, rho_ci95;
  double t_compute_ci95_us;  /* 0 when the summary predates the field */
  double overlap_efficiency; /* 1 - (T_step - T_compute) / T_comm; NAN when absent */
};
struct cb_rep_trial {
  int algorithm;
  long segsize;
  int protocol;
  uint64_t bucket_bytes;
  double t_step_us, ci95_us;
};
struct cb_rep_tune {
  int present, has_summary;
  int nccl; /* the setup's library: algorithm and protocol are NCCL's */
  long nranks;
  uint64_t grad_bytes; /* 0 when the summary predates the field */
  double max_overhead; /* the run's --max-overhead, else the default 20% */
  uint64_t buckets[32];
  int nbuckets; /* the search space's bucket sizes (the setup's) */
  struct cb_rep_trial *trials;
  int ntrials, cap;
  struct cb_rep_tune_cfg def, tuned;
};

/* An acceptance verdict line (--accept, --matrix). */
struct cb_rep_verdict {
  int file;
  char *check, *status, *unit, *what;
  double measured; /* NAN when null */
};

struct cb_rep_data {
  struct cb_rep_run *runs;
  int nruns;
  struct cb_rep_series *series;
  int nseries, cap;
  struct cb_rep_pair *pairs;
  int npairs, pairs_cap;
  struct cb_rep_verdict *verdicts;
  int nverdicts, verdicts_cap;
  struct cb_rep_tune *tunes;       /* [nruns], present where a file is a trials file */
  const struct cb_topology *topo;  /* --topology: tiers the fit lacks; NULL */
  const struct cb_baseline *fleet; /* --baseline: the fleet to draw against; NULL */
};

/* Largest rank number a pair line may name: the heatmap holds N x N cells. */
#define CB_REP_MAX_MATRIX_RANKS 4096

/* Reads one file into d->runs[file] and d->series; bad lines are named on
 * stderr and skipped. Fails (CB_USAGE) only when the file cannot be read
 * or holds a line longer than CB_REP_MAX_LINE. */
int cb_rep_read(const char *path, int file, struct cb_rep_data *d, struct cb_error *err);
/* The same, with messages naming option opt ("--fit", "--validate"). */
int cb_rep_read_opt(const char *opt, const char *path, int file, struct cb_rep_data *d,
                    struct cb_error *err);
/* Longest line read: collbench's own lines are a few KiB. */
#define CB_REP_MAX_LINE CB_MAX_LINE /* readbound.h */
/* Series by op, then file and labels; points by size. */
void cb_rep_sort(struct cb_rep_data *d);
/* The series of op `op` are d->series[first .. first+n-1] after sorting. */
int cb_rep_op_span(const struct cb_rep_data *d, int first);
/* The series of the first file that series i (of a later file) is compared
 * with: same op, backend, mem, transport, dtype, redop and in-place; -1
 * when there is none. */
int cb_rep_ratio_base(const struct cb_rep_data *d, int first, int n, int i);
/* Whether the op's series [first, first+n) get a ratio chart. */
int cb_rep_has_ratio(const struct cb_rep_data *d, int first, int n);
/* Whether op gets a latency chart besides busbw. */
int cb_rep_has_latency(const char *op);
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
/* OP_capacity.png/.svg for every model op with a fit. */
int cb_rep_has_capacity(const struct cb_rep_data *d, int op);
int cb_rep_plot_capacity(const struct cb_rep_data *d, const char *dir, struct cb_error *err);

/* --tune --trials files (bench/report/tuning.c): per file, TRIALSn.png
 * (rho against bucket size per algorithm, the chosen setting marked, the
 * closing re-measure) and, with a fit for allreduce, STEPn.png (predicted
 * rho against cluster size per bucket size); their section of index.html. */
int cb_rep_plot_tuning(const struct cb_rep_data *d, const char *dir, struct cb_error *err);
void cb_rep_tuning_html(FILE *f, const struct cb_rep_data *d);
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
/* The whole of --report; returns the exit status. */
struct cb_report_cli;
int cb_report(const struct cb_report_cli *rep);
void cb_rep_free(struct cb_rep_data *d);

/* Which labels tell an op's series apart (for chart titles). */
struct cb_rep_varies {
  int file, backend, mem, transport, dtype, redop, inplace;
};
void cb_rep_varies(const struct cb_rep_data *d, int first, int n, struct cb_rep_varies *v);

#endif
