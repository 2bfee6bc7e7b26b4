/* --probe: what a node is made of (CPUs, NUMA, GPUs, NICs, which NIC sits
 * nearest which GPU, driver and library versions), probed by local rank 0
 * of every node and gathered to rank 0. Each node is one fixed-size struct
 * so it travels over MPI as bytes. Every run record carries it. */
#ifndef CB_PROBE_H
#define CB_PROBE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "node.h"
#include "runtime/cluster.h"

/* Collective over the cluster: local rank 0 of each node probes. */
int cb_probe_collect(const struct cb_cluster *cl, struct cb_probe *p, struct cb_error *err);
void cb_probe_free(struct cb_probe *p);

/* {"nodes": [...]} for the run line of --json (a jansson object). */
struct json_t;
struct json_t *cb_probe_json(const struct cb_probe *p);

/* The readable summary of one node. */
void cb_probe_print(FILE *f, const struct cb_probe_node *n);

#endif
