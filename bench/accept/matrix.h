/* The all-pairs matrix (--matrix, and inside --accept): shift rounds,
 * outliers confirmed by paired retests, verdicts per node and link. */
#ifndef CB_ACCEPT_MATRIX_H
#define CB_ACCEPT_MATRIX_H

#include "output/runinfo.h"
#include "runtime/settings.h"
#include "verdicts.h"

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

#endif
