/* --report: charts and an HTML page from collbench's JSON Lines, without
 * MPI. input.c reads the files, series.c orders them, plot.c writes the
 * gnuplot data and scripts and runs gnuplot, html.c writes index.html. */
#ifndef CB_REPORT_H
#define CB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "../error.h"
#include "../record.h"

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
 * round lines are kept: round 0 is a suspect's retest alone. */
struct cb_rep_pair {
  int file;
  long src, dst, round;
  uint64_t bytes;
  double bw_GBps, lat_us;
  char *src_host, *dst_host;
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
};

/* Largest rank number a pair line may name: the heatmap holds N x N cells. */
#define CB_REP_MAX_MATRIX_RANKS 4096

/* Reads one file into d->runs[file] and d->series; bad lines are named on
 * stderr and skipped. Fails (CB_USAGE) only when the file cannot be read. */
int cb_rep_read(const char *path, int file, struct cb_rep_data *d, struct cb_error *err);
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
/* The all-pairs matrices (bench/report/matrix.c): per file with pair lines,
 * DIR/matrixN.dat, matrixN.gp and the bandwidth and latency heatmaps
 * matrixN_bw and matrixN_lat (N counts input files from 1). */
int cb_rep_has_matrix(const struct cb_rep_data *d, int file);
int cb_rep_plot_matrices(const struct cb_rep_data *d, const char *dir, struct cb_error *err);
/* index.html's matrix section: heatmaps, hosts per rank, and the FAIL and
 * WARN verdicts of every file. */
void cb_rep_matrix_html(FILE *f, const struct cb_rep_data *d);
/* The model section of index.html: alpha-beta fits of the first file and
 * the other files' measurements predicted from them (bench/report/model.c). */
void cb_rep_model_html(FILE *f, const struct cb_rep_data *d);
int cb_rep_html(const struct cb_rep_data *d, const char *dir, struct cb_error *err);
/* The whole of --report; returns the exit status. */
int cb_report(const char *const *inputs, int ninputs, const char *dir);
void cb_rep_free(struct cb_rep_data *d);

/* Which labels tell an op's series apart (for chart titles). */
struct cb_rep_varies {
  int file, backend, mem, transport, dtype, redop, inplace;
};
void cb_rep_varies(const struct cb_rep_data *d, int first, int n, struct cb_rep_varies *v);

#endif
