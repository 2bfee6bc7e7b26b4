/* collbench's JSON Lines read back (read.c): run records, series of
 * measurement records, matrix pairs, verdicts and --tune trials, sorted
 * and grouped by op (series.c). --report, --fit and fleet baselines all
 * read runs through this. */
#ifndef CB_READBACK_H
#define CB_READBACK_H

#include <stdint.h>

#include "base/error.h"
#include "base/readbound.h"
#include "drift.h"
#include "results/record.h"

struct cb_topology;
struct cb_baseline;

/* The run record of one input file (strings empty when it had none). */
struct cb_rep_run {
  const char *path;
  char *start_time, *command_line, *hostnames, *mpi_library, *version, *git_commit;
  long nranks, nnodes;
  int share_gpu; /* --share-gpu: every rank its own NCCL host on one GPU (NCCL's network) */
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
  char *causes;    /* the likely causes, "HOST DEVICE: text [rule]; ...", or "" (issue 41) */
  double measured; /* NAN when null */
  int partial;     /* a stopped burn-in's, over the intervals done then */
  char *expected;  /* a model level's figure, "0.84 GB/s (pick ring)"; "" none (issue 58) */
  char *cost;      /* "at 1024 GPUs gpt2-124m step +18% (overhead 12% -> 27%)"; "" none */
};

/* A burn-in's file (--duration): its cases as series over the intervals,
 * t in seconds from the first interval's start. Only interval 1's records
 * join d->series (the sweep's charts); every interval's are here. */
struct cb_rep_burnin {
  struct cb_burnin_store store;
  double t0;         /* the first interval's start read (Unix seconds) */
  int last_interval; /* the highest interval read */
};

/* A retest of a suspect pair of the MPI matrix (a "round": 0 pair line):
 * the pair measured again alone. The heatmap colours the cell by its
 * retests and circles it, so a pair its retests cleared is not painted as
 * slow by its round figure alone. */
struct cb_rep_retest {
  int file;
  long src, dst;
  uint64_t bytes;
  double bw_GBps, lat_us;
};

/* A --tune --parallel line (tuner/TUNING.md, "Parallel layouts"): the
 * launch settings' step and, when the search changed anything, the tuned
 * one's, each with its exposure per dimension as [median, lo, hi]. */
#define CB_REP_LAYOUT_DIMS 4
struct cb_rep_layout_res {
  double t_step_ms[3], overhead[3];
  char verdict[16];
  int ndims;
  char dim[CB_REP_LAYOUT_DIMS][8];
  double share[CB_REP_LAYOUT_DIMS][3];
};
struct cb_rep_layout {
  int file;
  char label[200];      /* "tp=2,dp=2 full, tiny" */
  char algorithms[400]; /* the tuned ones, "tp allreduce=ring"; "" */
  int has_tuned;
  struct cb_rep_layout_res def, tuned;
};
#define CB_REP_MAX_LAYOUTS 64

struct cb_rep_data {
  struct cb_rep_run *runs;
  int nruns;
  struct cb_rep_series *series;
  int nseries, cap, nops;
  struct cb_rep_pair *pairs;
  int npairs, pairs_cap;
  struct cb_rep_retest *retests;
  int nretests, retests_cap;
  struct cb_rep_verdict *verdicts;
  int nverdicts, verdicts_cap;
  struct cb_rep_tune *tunes;     /* [nruns], present where a file is a trials file */
  struct cb_rep_layout *layouts; /* --tune --parallel lines, every file's */
  int nlayouts;
  struct cb_rep_burnin *burnin;    /* [nruns] once a file has burn-in lines; else NULL */
  const struct cb_topology *topo;  /* --topology: tiers the fit lacks; NULL */
  const struct cb_baseline *fleet; /* --baseline: the fleet to draw against; NULL */
};

/* Bounds on what a result line may carry, so no input makes a report
 * allocate or draw without end: sizes to 1 PiB, 2^24 ranks, and the ops
 * and series (collbench has 16 ops; a sweep of every backend, memory
 * kind, dtype and variant of one op across a few files stays far under). */
#define CB_REP_MAX_BYTES (1ull << 50)
#define CB_REP_MAX_RANKS (1 << 24)
#define CB_REP_MAX_OPS 64
#define CB_REP_MAX_OPS_TEXT "64"
#define CB_REP_MAX_SERIES 2048
#define CB_REP_MAX_SERIES_TEXT "2048"

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

/* How many of a series' points are noisy (the table's ~). */
int cb_rep_noisy(const struct cb_rep_series *s);

/* A run's file name without its folders, for titles. */
const char *cb_rep_base_name(const char *path);

/* Frees what the reads allocated. */
void cb_rep_free(struct cb_rep_data *d);

/* Which labels tell an op's series apart (for chart titles). */
struct cb_rep_varies {
  int file, backend, mem, transport, dtype, redop, inplace;
};
void cb_rep_varies(const struct cb_rep_data *d, int first, int n, struct cb_rep_varies *v);

#endif
