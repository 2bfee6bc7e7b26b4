/* Acceptance testing: a topology file's checks (--accept), the all-pairs
 * matrix with outlier finding (--matrix) and straggler finding. Each runs
 * measurements through the engine or the cluster's communicator, judges
 * them, and hands records and verdicts to the same sinks as a sweep. */
#ifndef CB_ACCEPT_H
#define CB_ACCEPT_H

#include "fleet/baseline.h"
#include "core/cluster.h"
#include "../output/sink.h"
#include "core/runinfo.h"
#include "core/settings.h"
#include "core/topology.h"

/* What acceptance found: verdict counts, and the reference figures that
 * relative thresholds were computed from. */
struct cb_accept_result {
  int pass, warn, fail, inconclusive;
  double reference_Bps[CB_NREFS]; /* membw and pairbw, when measured */
};

/* Memory copy bandwidth of this machine as the ranks see it: every rank
 * copies at once (the ranks share the memory system during the checks too),
 * best of several copies, median over ranks. The same value on every rank. */
int cb_membw_measure(const struct cb_cluster *cl, double *bytes_per_s, struct cb_error *err);

/* Refuses (CB_USAGE) a file whose checks this build, launch or memory
 * cannot run, before anything is measured. Collective. */
int cb_accept_validate(const struct cb_cluster *cl, const struct cb_topology *t,
                       const struct cb_settings *base, struct cb_error *err);

/* Runs every check of `t` with `base` as the template settings (timing
 * options from the command line); sinks get the run record once, each
 * check's series, then the verdicts. */
struct cb_fleet;
int cb_accept_run(const struct cb_cluster *cl, const struct cb_topology *t,
                  const struct cb_fleet *fleet, const struct cb_settings *base,
                  const struct cb_run_info *ri, struct cb_sink *sinks, int nsinks,
                  struct cb_accept_result *res, struct cb_error *err);

/* Judging against a fleet baseline (bench/accept/fleet_verdict.c): a figure
 * whose robust z-score (measured - median) / (1.4826 MAD), signed so that
 * slower is negative, lies under -k FAILs; fewer than min_runs figures in
 * the baseline cannot judge (WARN, saying so). */
struct cb_fleet {
  const struct cb_baseline *b; /* NULL: no fleet judging */
  double k;
  long min_runs, repeat;
};

/* One figure against a distribution: status, the fail level (where z = -k)
 * and margin in v, the reasons appended to v->what. Pure. */
void cb_fleet_verdict(const struct cb_fleet *f, const struct cb_dist *d, int metric,
                      double measured, struct cb_verdict *v);

/* A check's record (NULL: not measured) against its baseline entry; name
 * is storage for the verdict's name ("fleet NAME"). */
void cb_fleet_judge_check(const struct cb_fleet *f, const struct cb_check *c,
                          const struct cb_record *rec, char *name, size_t name_size,
                          struct cb_verdict *v);

/* Whether a check's record is slower than the rule allows (to re-measure). */
int cb_fleet_suspect(const struct cb_fleet *f, const struct cb_check *c,
                     const struct cb_record *rec);

/* The matrix's pairs (rank 0 captured them) and the nodes' median pair
 * bandwidth against the fleet's pooled pair and node entries: a verdict per
 * node, one per slow link, or one PASS for all links. */
int cb_fleet_judge_pairs(const struct cb_cluster *cl, const struct cb_fleet *f,
                         const struct cb_pair *pairs, int npairs, struct cb_sink *sinks, int nsinks,
                         struct cb_accept_result *res, struct cb_error *err);

/* The figure a check judges in a record: its metric, in us or GB/s. */
double cb_check_figure(const struct cb_check *c, const struct cb_record *rec);

/* A check with a `ceiling` (its tier's bandwidth) judged against it: FAIL
 * under its ceiling_fraction, WARN over the ceiling, else PASS; the verdict
 * says the share of the ceiling measured. rec NULL: not measured. Pure. */
void cb_ceiling_judge(const struct cb_topology *t, const struct cb_check *c,
                      const struct cb_record *rec, char *name, size_t name_size,
                      struct cb_verdict *v);

/* --matrix on its own: run record, the matrix and its verdicts, summary. */
int cb_matrix_run(const struct cb_cluster *cl, const struct cb_settings *s,
                  const struct cb_matrix_rules *rules, const struct cb_run_info *ri,
                  struct cb_sink *sinks, int nsinks, struct cb_accept_result *res,
                  struct cb_error *err);

/* What can refuse a matrix run (rank count, message size): asked before
 * any output is opened, so a refused run leaves earlier files as they were. */
int cb_matrix_validate(const struct cb_cluster *cl, const struct cb_matrix_rules *rules,
                       struct cb_error *err);

/* The matrix inside another run (acceptance): measurements and verdicts
 * only. Verdicts are counted in `res` on rank 0; the median pair bandwidth
 * goes to res->reference_Bps[CB_REF_PAIRBW] on every rank. */
int cb_matrix_measure(const struct cb_cluster *cl, const struct cb_settings *s,
                      const struct cb_matrix_rules *rules, struct cb_sink *sinks, int nsinks,
                      struct cb_accept_result *res, struct cb_error *err);

/* The matrix's retest rule, exposed for tests: how many paired retests
 * confirm a suspect among `nranks` ranks (npairs * 2^-K <= 1%), and which
 * pair is the reference of the suspect src -> dst given how many suspect
 * pairs each rank sends (sus_out) and receives (sus_in) in. */
int cb_matrix_retests(int nranks);
void cb_matrix_reference(int nranks, int src, int dst, const int *sus_out, const int *sus_in,
                         int *ref_src, int *ref_dst);

/* Round d (1..N-1) of the matrix: this rank receives from src = rank-d and
 * sends to dst = rank+d, mod N, so the N-1 rounds cover every ordered pair
 * once. */
void cb_matrix_peers(int rank, int d, int nranks, int *src, int *dst);

/* A pair's end: "HOST", or "HOST:GPU3" where the rank drives a GPU (gpu >= 0;
 * the nccl matrix). A rank at fault: "node HOST" or "gpu HOST:GPU3"; a pair
 * at fault: "link A->B". Each returns buf. */
#define CB_MATRIX_END_MAX (CB_HOSTNAME_MAX + 16)
const char *cb_matrix_end(char *buf, size_t len, const char *host, int gpu);
const char *cb_matrix_fault_name(char *buf, size_t len, const char *host, int gpu);
const char *cb_matrix_link_name(char *buf, size_t len, const char *src_host, int src_gpu,
                                const char *dst_host, int dst_gpu);

/* Names ranks that reach collectives consistently late (WARN verdicts),
 * or gives one PASS verdict; nothing with a single rank. */
int cb_stragglers_measure(const struct cb_cluster *cl, struct cb_sink *sinks, int nsinks,
                          struct cb_accept_result *res, struct cb_error *err);

/* [step] checks (step.c): refused before anything runs when this launch
 * cannot run them; measured and judged, one verdict each (not emitted). */
int cb_accept_steps_validate(const struct cb_cluster *cl, const struct cb_topology *t,
                             struct cb_error *err);
int cb_accept_steps_run(const struct cb_cluster *cl, const struct cb_topology *t,
                        const struct cb_settings *base, struct cb_verdict *verdicts,
                        struct cb_error *err);

/* Ends a run of verdicts: the sinks' summaries (rank 0), then the verdict
 * counts, judged on rank 0, shared with every rank for the exit status. */
int cb_accept_finish(const struct cb_cluster *cl, struct cb_sink *sinks, int nsinks,
                     const struct cb_summary *sum, struct cb_accept_result *res,
                     struct cb_error *err);

/* The run's outcome from its verdict counts: CB_OK, or CB_FAILED (exit 1)
 * with "FAILED: ..." when a verdict failed, or "INCONCLUSIVE: ..." when
 * none failed but one could not be settled: acceptance asks whether the
 * cluster was shown good enough, and that was not shown. Pure. */
int cb_accept_status(const struct cb_accept_result *res, struct cb_error *err);

/* Hands a verdict to every sink and counts it (rank 0). */
int cb_accept_emit(const struct cb_cluster *cl, struct cb_sink *sinks, int nsinks,
                   const struct cb_verdict *v, struct cb_accept_result *res, struct cb_error *err);

#endif
