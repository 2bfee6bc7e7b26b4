/* What every acceptance check ends in: its figure, its verdict handed to
 * the sinks and counted, and the run's outcome from the counts. The
 * checks' files (matrix, stragglers, ceiling, fleet) call these; nothing
 * here calls them back. */
#ifndef CB_ACCEPT_VERDICTS_H
#define CB_ACCEPT_VERDICTS_H

#include "causes.h"
#include "fleet/baseline.h"
#include "output/sink.h"
#include "probe/contention.h"
#include "probe/probe.h"
#include "results/record.h"
#include "results/verdict.h"
#include "runtime/cluster.h"
#include "spec.h"

/* What acceptance found: verdict counts, and the reference figures that
 * relative thresholds were computed from. */
struct cb_accept_result {
  int pass, warn, fail, inconclusive;
  int unjudged;         /* rank 0: WARNs that judged nothing (cb_verdict's unjudged) */
  char not_passed[256]; /* rank 0: the names of the FAIL and INCONCLUSIVE verdicts */
  int unlaid;           /* rank 0: FAIL and INCONCLUSIVE verdicts laid to no host (none cleared) */
  double reference_Bps[CB_NREFS]; /* membw and pairbw, when measured */
  /* rank 0: every node's evidence (the run's probe), and per node what
   * FAILed on it and the likeliest cause found (issue 41) */
  const struct cb_probe *probe;
  struct cb_host_outcome *hosts;
  struct cb_window *windows; /* per check, the counters that rose while it was measured */
  int nwindows;
  struct cb_window *matrix_window; /* over the matrix's rounds and retests */
  /* rank 0: verdicts judged but not yet handed to the sinks (acceptance
   * hands them over together at the end); a hang hands them over first */
  const struct cb_verdict *pending;
  int npending;
  const struct cb_summary *measured; /* rank 0: the rows and records so far; NULL none */
  /* rank 0: other processes' share of each node's CPUs around each check
   * (issue 74: host contention named as a FAIL's cause, as the burn-in does) */
  struct cb_contention load;
};
/* cb_verdict.window of the matrix's verdicts */
#define CB_MATRIX_WINDOW (-1)

struct cb_host_outcome {
  int failed;       /* a FAIL named this host, or a cause found on it */
  char checks[160]; /* the FAILed checks */
  char cause[320];  /* "DEVICE: text", the first found */
  double cost;      /* the largest step growth a FAIL or WARN laid here was priced at; NaN none */
  int cost_gpus;
};

/* The hosts to exclude (rank 0): those a FAIL was laid to; returns how
 * many, their names in names[] (pointing into res's probe). */
int cb_accept_excluded(const struct cb_accept_result *res, const char **names, int max);
/* After a measurement: every node's counters again (collective), and on
 * rank 0 what rose since `before` (each node's, from cb_counters_gather)
 * into *w (rank 0; NULL elsewhere); before[] then holds the counters just
 * read, the start of the next window. */
int cb_accept_window(const struct cb_cluster *cl, struct cb_counters *before, struct cb_window *w,
                     struct cb_error *err);
/* Frees what emit and finish allocated. */
void cb_accept_result_free(struct cb_accept_result *res);

/* Judging against a fleet baseline (bench/accept/fleet_verdict.c): a figure
 * whose robust z-score (measured - median) / (1.4826 MAD), signed so that
 * slower is negative, lies under -k FAILs; fewer than min_runs figures in
 * the baseline cannot judge (WARN, saying so). */
struct cb_fleet {
  const struct cb_baseline *b; /* NULL: no fleet judging */
  double k;
  long min_runs, repeat;
};

/* The check's settings: the command line's timing options, the check's
 * op, backend, memory, transport, type, size and variant. */
void cb_check_settings(const struct cb_check *c, const struct cb_settings *base,
                       struct cb_settings *s);

/* The figure a check judges in a record: its metric, in us or GB/s. */
double cb_check_figure(const struct cb_check *c, const struct cb_record *rec);

/* The line that answers the question an acceptance is for: ACCEPTED, or
 * NOT ACCEPTED naming what did not pass; `over` follows "verdicts"
 * (" over 12 intervals"). */
void cb_accept_print_answer(int total, int not_passed, int warn, int unjudged, const char *names,
                            const char *over);

/* Ends a run of verdicts: the sinks' summaries (rank 0), the hosts and the
 * ACCEPTED line (not for a burn-in's pass, `s->interval` > 0: the burn-in
 * answers once, over all of them), then the verdict counts, judged on
 * rank 0, shared with every rank for the exit status. */
int cb_accept_finish(const struct cb_cluster *cl, const struct cb_settings *s,
                     struct cb_sink *sinks, int nsinks, const struct cb_summary *sum,
                     struct cb_accept_result *res, struct cb_error *err);

/* The hosts' lines (rank 0): healthy, or what FAILed on it and the likeliest
 * cause. */
void cb_accept_print_hosts(const struct cb_accept_result *res);

/* Rank 0's part of cb_accept_finish, which a hang (bench/modes/hang.c)
 * calls alone: the sinks' summaries, then, unless over is NULL, the hosts
 * and the ACCEPTED line (`over` follows "verdicts"). No MPI. */
int cb_accept_conclude(struct cb_sink *sinks, int nsinks, const struct cb_summary *sum,
                       const struct cb_accept_result *res, const char *over, struct cb_error *err);

/* The run's outcome from its verdict counts: CB_OK, or CB_FAILED (exit 1)
 * with "FAILED: ..." when a verdict failed, or "INCONCLUSIVE: ..." when
 * none failed but one could not be settled: acceptance asks whether the
 * cluster was shown good enough, and that was not shown. Pure. */
int cb_accept_status(const struct cb_accept_result *res, struct cb_error *err);

/* Hands a verdict to every sink and counts it (rank 0). */
int cb_accept_emit(const struct cb_cluster *cl, struct cb_sink *sinks, int nsinks,
                   const struct cb_verdict *v, struct cb_accept_result *res, struct cb_error *err);

#endif
