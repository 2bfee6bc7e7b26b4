/* --predict's NCCL section (bench/model/nccl_predict.c): for a GPU topology,
 * the algorithm and protocol NCCL 2.28 would pick per size and GPU count
 * (nccl_cost.h) and its time, calibrated by --fit's nccl records where
 * there are some. Called once from run.c's predict(); kept apart so the
 * alpha-beta tables stay as they were. */
#ifndef CB_NCCL_PREDICT_H
#define CB_NCCL_PREDICT_H

#include "config.h"
#include "groups.h"
#include "model_options.h"
#include "nccl_band.h"
#include "nccl_cost.h"
#include "topology/topology.h"

/* The node's figures from a topology (its [system] keys, defaults from the
 * tiers and the GPU generation). Returns 0, or -1 with why[] when NCCL's
 * model does not apply (no GPUs, no intra-node tier). */
int cb_nccl_hw(const struct cb_topology *t, int per_node, struct cb_nc_hw *hw, char *why,
               size_t len);
/* The calibration --fit's nccl records give (cb_nc_fit on the points of
 * the nccl groups that hold for dtype and redop, one placement, never
 * pooled: cb_nccl_calibrate says which); returns the number of points
 * used, and *inplace the placement they had. */
int cb_nccl_calibrate(const struct cb_fit_groups *gs, const struct cb_nc_hw *hw, int dtype,
                      int redop, struct cb_nc_cal *cal, int *inplace);

/* What a training step's buckets need to be costed with NCCL's model. */
struct cb_nccl_ctx {
  struct cb_nc_hw hw;
  struct cb_nc_cal cal;
  int per_node;
  int dtype, redop; /* the data, as cb_nc_pick takes them */
};
/* 0 when the topology is a GPU one (then ctx is ready), else -1. */
int cb_nccl_ctx_init(const struct cb_topology *t, int per_node, const struct cb_fit_groups *gs,
                     int dtype, int redop, struct cb_nccl_ctx *ctx);
/* cb_step_opts.allreduce_s: NCCL's pick's calibrated time, seconds (NaN: none). */
double cb_nccl_allreduce_s(const void *ctx, int ngpus, double bytes);
/* NCCL's pick's calibrated time for any op, seconds (NaN: none). */
double cb_nccl_op_s(const struct cb_nccl_ctx *ctx, int op, int ngpus, double bytes);
/* --report: 0 (ctx ready) when gs has records of the nccl backend for op and
 * the topology is a GPU one: the charts then use NCCL's own times, for the
 * first such record's dtype and redop. */
int cb_nccl_ctx_for_report(const struct cb_topology *t, int per_node,
                           const struct cb_fit_groups *gs, int op, struct cb_nccl_ctx *ctx);
/* What NCCL's own cost model (uncalibrated) expects of one op: its pick,
 * time and busbw, and the band of its class of system (measured /
 * predicted time, NaN when no published figure states it). */
struct cb_nccl_expectation {
  struct cb_nc_choice choice;
  struct cb_nc_band band;
  double ratio_lo, ratio_hi;
  int nodes;
  char beyond[160];  /* why the figures behind the band do not cover it; "" when they do */
  const char *newer; /* where NCCL after 2.28.9 estimates otherwise ("" nowhere known) */
};
/* For `bytes` of op (enum cb_mop) in dtype summed over ngpus GPUs, per_node
 * a node. Returns 0, or -1 with why[] where --predict says unknown (a route
 * its estimate does not hold for, an op outside its model, one GPU). */
int cb_nccl_expect(const struct cb_topology *t, int op, int dtype, int ngpus, int per_node,
                   double bytes, struct cb_nccl_expectation *e, char *why, size_t len);
/* "nccl:NVLS/Simple", NCCL's pick for one allreduce of `bytes` on ngpus. */
const char *cb_nccl_pick_label(const struct cb_nccl_ctx *ctx, int ngpus, double bytes, char *buf,
                               size_t len);

#if CB_HAVE_JANSSON
#include <jansson.h>
/* Prints the tables for the chosen ops and returns them as JSON (NULL when
 * the topology is not a GPU one: nothing printed). */
json_t *cb_nccl_predict(const struct cb_model_cli *m, const struct cb_topology *topo, int per_node,
                        const struct cb_fit_groups *gs);
/* --validate's NCCL part: each held-out nccl record (not of --share-gpu runs)
 * against NCCL's own estimate and against it calibrated by the --fit records
 * of the same data, the algorithm the record names (else NCCL's pick). NULL
 * when the topology is not a GPU one or no record applies (nothing printed). */
json_t *cb_nccl_validate(const struct cb_topology *topo, int per_node,
                         const struct cb_fit_groups *fit, const struct cb_fit_groups *held);
#endif

#endif
