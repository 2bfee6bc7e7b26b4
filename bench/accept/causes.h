/* From evidence to likely causes (issue 41): one table of rules, each with
 * its source, most likely first, run over the nodes a verdict concerns
 * ("node HOST": that host; "link A->B": both ends; any other check: every
 * node), each fired rule naming the host, the device and the evidence. */
#ifndef CB_ACCEPT_CAUSES_H
#define CB_ACCEPT_CAUSES_H

#include "probe/counters.h"
#include "probe/node.h"
#include "results/record.h"
#include "results/verdict.h"

/* The rules, in order, for the documentation and tests: id and source;
 * NULL past the last. */
struct cb_rule_info {
  const char *id, *source;
};
const struct cb_rule_info *cb_rule(int i);

/* The error counters that rose on each node while a check was measured. */
#define CB_MAX_ROSE 256
struct cb_window {
  int n;
  struct {
    int node;            /* index in the probe's nodes */
    struct cb_counter c; /* value: how much it rose */
  } r[CB_MAX_ROSE];
  int more; /* counters that rose beyond CB_MAX_ROSE: counted, said, not listed */
};

/* The causes found on the hosts the check named `check` concerns, by the
 * rules whose cause can touch what its record crossed (the network: more
 * than one node; GPU memory: device memory or NCCL; without a record,
 * a matrix verdict, the network when there are several nodes). Pure. */
void cb_causes_find(const struct cb_probe_node *nodes, int nnodes, const char *check,
                    const struct cb_record *rec, const struct cb_window *w, struct cb_causes *c);

#endif
