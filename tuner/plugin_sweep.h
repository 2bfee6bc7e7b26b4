/* --plugin-out: a collective sweep of the nccl backend over every
 * (NCCL_ALGO, NCCL_PROTO) pair that runs here, through the engine like any
 * other sweep, turned into per-size rules for collbench's NCCL tuner plugin
 * (plugin.h). Every rank calls it; rank 0 writes the file. */
#ifndef CB_PLUGIN_SWEEP_H
#define CB_PLUGIN_SWEEP_H

#include "base/error.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"
#include "space.h"

/* Sizes from s (-b/-e/-f), GPU binding from s; exit status 1 (and no file)
 * when any forced pair gave wrong results. On rank 0 ll128_proven[1 + a]
 * says whether all-reduce with algorithm a and LL128 was measured with
 * its results checked, [0] whether that holds for every algorithm swept
 * with LL128 (cb_plugin_ll128_proven), for --env-out. */
int cb_plugin_sweep(const struct cb_cluster *cl, const struct cb_settings *s, const char *path,
                    int argc, char **argv, unsigned char ll128_proven[CB_NCCL_ALGOS],
                    struct cb_error *err);

#endif
