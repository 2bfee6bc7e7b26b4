/* What a tuned parallel layout's NCCL choices become outside collbench:
 * --env-out's NCCL_ALGO and NCCL_PROTO (one value a process, one pair a
 * collective) and --plugin-out's rules (collbench's tuner plugin keys each
 * rule on the communicator's node and rank counts and the call's size, so
 * it can say more per communicator); and a layout's communicator as NCCL
 * sees it. Pure but for that (the cluster and the GPU's capability):
 * unit-tested (test_layout_rules). */
#ifndef CB_LAYOUT_RULES_H
#define CB_LAYOUT_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "plugin.h"
#include "runtime/cluster.h"
#include "space.h"

/* NCCL's names of the step's collectives (NULL: not one NCCL_ALGO or a
 * rule can choose for: all-to-all-v, send, receive). */
extern const char *const cb_layout_nccl_colls[CB_NEV_OPS];

/* Communicator sc of this rank's group in layout l as NCCL sees it
 * (space.h: the world's view, cb_tune_nccl_view, over the group's
 * members, cb_nccl_group_view). -1 out of memory. */
int cb_layout_nccl_view(const struct cb_cluster *cl, int share_gpu, const struct cb_layout *l,
                        int sc, struct cb_nccl_view *v);

/* One (communicator, op) the tuned step issues, and its choice. */
struct cb_layout_choice {
  const char *comm;              /* "tp", "dp": for the notes */
  const char *coll;              /* NCCL's: "allreduce", "allgather", "reducescatter" */
  int code;                      /* space.h's pair code; 0: NCCL's own choice */
  uint64_t min_bytes, max_bytes; /* NCCL's nBytes of its calls there */
  int nnodes, nranks;            /* the communicator as NCCL sees it */
};

#define CB_LAYOUT_NOTES 12
struct cb_layout_notes {
  char text[CB_LAYOUT_NOTES][320];
  int n;
};

/* NCCL_ALGO and NCCL_PROTO in NCCL 2.24's per-collective form
 * ("allreduce:Tree;allgather:Ring"), a collective in them only where every
 * communicator that issues it chose the same named pair (NCCL's own on one
 * of them is a difference: the variable would force the pair there too) and that pair is
 * not LL128 (nothing in the step checks its results, and NCCL warns that
 * LL128 forced where it does not enable it can corrupt data). Empty
 * strings when nothing is set. version: ncclGetVersion's (an older NCCL
 * refuses the form: nothing set, a note says). Notes say what is left
 * out and why. */
void cb_layout_nccl_env(const struct cb_layout_choice *ch, int n, int version, char *algo,
                        size_t alen, char *proto, size_t plen, struct cb_layout_notes *notes);

/* The plugin's rules: one per choice with a named pair, not LL128, over
 * its sizes at its node and rank counts (cb_plugin_rule's nnodes and
 * nranks). Two that would match the same call (collective, nodes, ranks,
 * overlapping sizes) with different choices, NCCL's own among them:
 * neither is written, a note says so. Returns the number of rules (at most max). */
int cb_layout_plugin_rules(const struct cb_layout_choice *ch, int n, struct cb_plugin_rule *out,
                           int max, struct cb_layout_notes *notes);

#endif
