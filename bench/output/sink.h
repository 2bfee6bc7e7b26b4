/* Outputs are sinks the engine feeds, on rank 0 only. Each reads the run
 * record and the measurement records; none measures anything. */
#ifndef CB_SINK_H
#define CB_SINK_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "results/record.h"
#include "results/verdict.h"
#include "runinfo.h"

struct cb_summary {
  long rows, records;
  long wrong;     /* over every checked record */
  long unchecked; /* records not checked */
  long skipped;   /* sizes or series skipped */
  int stopped;    /* a burn-in's pass ended early: the signal that asked (cb_interrupt_soft) */
};

/* One cell of the all-pairs matrix (--matrix): src sends, dst receives. */
struct cb_pair {
  int src, dst;
  const char *src_host, *dst_host;
  uint64_t bytes;
  double bw_GBps; /* src -> dst, messages of `bytes`, all pairs of the round at once */
  double lat_us;  /* half the src <-> dst round trip of 8 B */
  int round;      /* shift distance dst - src (mod N); 0 for a retest alone */
  /* NULL: the MPI all-pairs matrix above (src, dst are ranks). Else the
   * copy matrix (--op copy) this cell belongs to: "copy_ce", "copy_ce_bidir",
   * "copy_sm", "copy_sm_bidir", "copy_h2d", "copy_d2h"; src and dst are GPU
   * indices on src_host, -1 for pinned host memory; lat_us is NaN. */
  const char *matrix;
  const char *link; /* "NVLink", "PCIe", "host", "local" (one GPU); NULL for MPI */
  /* the all-pairs matrix over nccl: the GPU each end drives; -1 over MPI
   * (unused for the copy matrix, whose src and dst are GPUs already) */
  int src_gpu, dst_gpu;
};

struct cb_sink {
  void *state;
  /* Every output opened: the run goes ahead (a streamed file is emptied
   * now, not when opened). May be NULL. */
  int (*start)(void *state, struct cb_error *err);
  int (*run)(void *state, const struct cb_run_info *ri, struct cb_error *err);
  int (*series_begin)(void *state, const struct cb_series *s, struct cb_error *err);
  int (*row)(void *state, const struct cb_row *row, struct cb_error *err);
  int (*series_end)(void *state, const struct cb_series *s, struct cb_error *err);
  /* A remark such as why a series was skipped. */
  int (*note)(void *state, const char *text, struct cb_error *err);
  /* Acceptance: one judged check, link or node (may be NULL). */
  int (*verdict)(void *state, const struct cb_verdict *v, struct cb_error *err);
  /* The all-pairs matrix: one measured pair (may be NULL). */
  int (*pair)(void *state, const struct cb_pair *p, struct cb_error *err);
  int (*finish)(void *state, const struct cb_summary *sum, struct cb_error *err);
  /* A burn-in's interval ended (may be NULL): --prom rewrites its file so a
   * dashboard sees the run as it goes. */
  int (*interval)(void *state, const struct cb_summary *sum, struct cb_error *err);
  /* Frees the sink; a file's close is checked. */
  int (*close)(void *state, struct cb_error *err);
};

/* Each sink's run or finish method, for modes that call the engine several
 * times but report one run (acceptance): stops at the first error. */
int cb_sinks_run(struct cb_sink *sinks, int nsinks, const struct cb_run_info *ri,
                 struct cb_error *err);
int cb_sinks_finish(struct cb_sink *sinks, int nsinks, const struct cb_summary *sum,
                    struct cb_error *err);
int cb_sinks_note(struct cb_sink *sinks, int nsinks, const char *text, struct cb_error *err);
/* A burn-in's interval ended: each sink's interval method (may be NULL). */
int cb_sinks_interval(struct cb_sink *sinks, int nsinks, const struct cb_summary *sum,
                      struct cb_error *err);

/* A sink that keeps each row's time in *time_us (the out-of-place
 * record's, else the in-place one's; NAN without either): for callers
 * that judge the rows they asked for themselves. */
struct cb_sink cb_sink_row_time(double *time_us);

/* One output file of the run; `open` is its sink's constructor. */
struct cb_output {
  const char *path, *option;
  int replace; /* written whole at the end (cb_replace_write), else streamed */
  int (*open)(const char *path, struct cb_sink *sink, struct cb_error *err);
};

/* Checks every output's path, then opens each (truncating none), then
 * starts them all: a bad or unwritable path leaves every earlier file as
 * it was. sinks[*n] onwards are filled; *n counts the opened ones. */
int cb_sinks_open(const struct cb_output *outs, int nouts, struct cb_sink *sinks, int *n,
                  struct cb_error *err);
/* Closes every sink; returns the first error. */
int cb_sinks_close(struct cb_sink *sinks, int nsinks, struct cb_error *err);

/* Every constructor returns CB_OK or an error naming the file. */
int cb_sink_table(FILE *out, struct cb_sink *sink, struct cb_error *err);
int cb_sink_jsonl(const char *path, struct cb_sink *sink, struct cb_error *err);
/* The same, going on after the file's last line, without a run record of
 * its own (a burn-in's --resume). */
int cb_sink_jsonl_append(const char *path, struct cb_sink *sink, struct cb_error *err);
/* What a burn-in's cases are made of (ops, backends, memory, dtypes,
 * sizes, timing), as the run record's "burnin" object carries it and
 * --resume compares it; NULL without a JSON library. */
struct cb_settings;
struct json_t *cb_burnin_config_json(const struct cb_settings *s);
int cb_sink_csv(const char *path, struct cb_sink *sink, struct cb_error *err);
int cb_sink_prom(const char *path, struct cb_sink *sink, struct cb_error *err);
int cb_sink_junit(const char *path, struct cb_sink *sink, struct cb_error *err);
/* --junit for a run that ends in a configuration or runtime error before
 * its verdicts were written: one <error> test case naming the problem, so
 * a CI job sees the error, not a missing file. Replaces the file whole (a
 * temporary and a rename); nothing when this process already wrote
 * verdicts. Returns CB_OK or the write's failure (which is not reported:
 * the run's error is). */
int cb_junit_write_error(const char *path, const struct cb_error *error);

/* Prometheus label value escaping (backslash, quote, newline). */
void cb_prom_escape(FILE *f, const char *s);

#endif
