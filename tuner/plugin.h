/* --plugin-out: per-size rules for collbench's NCCL tuner plugin
 * (tuner/plugin, format in tuner/plugin/RULES.md: "collbench-tuner-rules 1"),
 * from a collective sweep over NCCL_ALGO x NCCL_PROTO. Pure: unit-tested.
 * The columns are those of NCCL's example tuner plugin (ext-tuner/example,
 * NCCL_TUNER_CONFIG_FILE), but that example is no safe reader before NCCL
 * 2.30: up to 2.29 it indexes NCCL's cost table as an array of row pointers
 * and writes to the wrong memory (fixed in 2.30; RULES.md). Algorithm and
 * protocol numbers are NCCL's NCCL_ALGO_* and NCCL_PROTO_* (NCCL's
 * src/include/plugin/nccl_tuner.h).
 *
 * The header line, then one line per rule, NCCL's example's column order
 * with the measured margin last (the example reads ten columns at most and
 * ignores the rest):
 *   collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,
 *   numPipeOps,regBuff,margin
 * Sizes are NCCL's nBytes (the larger of send and receive buffer), which
 * is the record's `bytes` (nccl-tests' size) for every collective here. */
#ifndef CB_PLUGIN_H
#define CB_PLUGIN_H

#include <stdint.h>
#include <stdio.h>

#include "base/error.h"

/* NCCL's names in the plugin's CSV (its parseAlgorithm/parseProtocol). */
enum { CB_NCCL_NALGOS = 7, CB_NCCL_NPROTOS = 3 };
extern const char *const cb_nccl_algo_csv[CB_NCCL_NALGOS];   /* "tree", "ring", ... */
extern const char *const cb_nccl_algo_env[CB_NCCL_NALGOS];   /* NCCL_ALGO: "Tree" ... */
extern const char *const cb_nccl_proto_csv[CB_NCCL_NPROTOS]; /* "ll", "ll128", "simple" */
extern const char *const cb_nccl_proto_env[CB_NCCL_NPROTOS]; /* NCCL_PROTO: "LL" ... */

/* One measured (collective, size, algorithm, protocol). */
struct cb_plugin_point {
  const char *coll; /* allreduce, allgather, reducescatter, broadcast */
  uint64_t bytes;
  int algo, proto;
  double time_us, ci95_us; /* median and the half-width of its 95% CI */
  int channels;            /* what NCCL ran it on (its TUNING log); 0 unknown */
  int checked;             /* its results were checked on this run and none was wrong */
  /* NCCL ran another algorithm than the one forced (collbench's profiler
   * plugin said so: the record's nccl_ran_other): not a measurement of the
   * pair, so never a rule's winner */
  int not_applied;
};

struct cb_plugin_rule {
  const char *coll;
  uint64_t min_bytes, max_bytes;
  int algo, proto;
  int channels; /* forced at every size of the rule; 0: NCCL's own (what --tune measured) */
  /* the smallest, over the rule's measured sizes, of how much longer the
   * fastest other pair took, in % of the rule's pair's time (negative where
   * the rule's pair was kept within the noise); NaN: no other pair measured */
  double margin_pct;
  int nnodes, nranks; /* the communicators it holds for; 0: cb_plugin_write's */
};

/* The first line of a rules file; tuner/plugin/rules.h's CBT_RULES_HEADER. */
#define CB_PLUGIN_RULES_HEADER "# collbench-tuner-rules 1"

/* Whether the plugin knows the collective (alltoall and p2p it does not). */
int cb_plugin_coll_ok(const char *coll);

/* LL128 is a candidate only where this run checked its results: NCCL's
 * docs warn that forcing LL128 where NCCL does not enable it itself can
 * corrupt data, and a rule forces it (space.c's pruning knows only the
 * compute capability, not the paths NCCL checks). How many LL128 points
 * are left out for that: */
int cb_plugin_unproven_ll128(const struct cb_plugin_point *pts, int n);
/* Whether this run proved LL128 for `coll` with 0-based algorithm `algo`
 * (-1: every algorithm measured with it): measured, and every such point
 * checked. */
int cb_plugin_ll128_proven(const struct cb_plugin_point *pts, int n, const char *coll, int algo);

/* The fastest (algorithm, protocol) per collective and size; a neighbour
 * size's winner is kept when it is within the noise (the two medians'
 * CIs overlap), so rules do not flicker. Consecutive sizes with the same
 * winner merge into one rule covering [first size, next winner's size - 1];
 * the first rule of a collective starts at 0 and the last ends at
 * UINT64_MAX, because the example plugin gives collectives no rule matches
 * a single channel. Rules leave the channel count to NCCL (channels 0),
 * as it was while measuring. Returns the number of rules (at most max), or -1
 * when no point is usable. */
int cb_plugin_rules(const struct cb_plugin_point *pts, int n, struct cb_plugin_rule *out, int max);

/* Writes the header line, comments (each made one safe line), then the
 * rules. A rule's channels 0 (NCCL's own) is written -1, and a comment says
 * NCCL's example plugin (from NCCL 2.30; earlier ones mis-index the cost
 * table) then uses ONE channel (collbench's keeps NCCL's). */
int cb_plugin_write(FILE *f, const char *const *comments, int ncomments,
                    const struct cb_plugin_rule *rules, int nrules, int nnodes, int nranks,
                    struct cb_error *err);

/* The same for rules that each carry their node and rank counts (a
 * parallel layout's communicators); none is a file NCCL's choices hold in. */
void cb_plugin_write_each(FILE *f, const char *const *comments, int ncomments,
                          const struct cb_plugin_rule *rules, int nrules);

/* The rules file's scope comment: which communicators its rules match
 * (NCCL's node and rank counts, the ones its tuner init is given and the
 * choices were measured at) and the machine's own node count beside them;
 * under --share-gpu each rank is a node to NCCL (its own NCCL_HOSTID). */
void cb_plugin_scope(char *buf, size_t len, int nccl_nodes, int nranks, int machine_nodes,
                     int share_gpu);

#endif
