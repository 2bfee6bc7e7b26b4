/* Each defect priced (issue 58): a bandwidth check that FAILs or WARNs
 * carries what its shortfall costs the reference training step at the
 * file's scale, the model's step (bench/model/defect.h) with the figure the
 * model expects and with the one measured. The workload is the file's
 * first [step]; its compute time its `compute_time`, else the step's
 * T_compute measured in this run. */
#ifndef CB_ACCEPT_COST_H
#define CB_ACCEPT_COST_H

#include "results/verdict.h"
#include "spec.h"

struct cb_pricing {
  int gpus, per_node; /* the scale, and GPUs a node there */
  const struct cb_step_check *step;
  double compute_s, grad_bytes, bucket_bytes;
  int dtype; /* the gradients', enum cb_dtype_id */
  char compute_from[96];
};

/* The scale: the file's `scale`, else its nodes times ranks_per_node, else
 * the run's `ranks`. */
int cb_pricing_scale(const struct cb_accept_spec *t, int ranks);
/* 0 when defects can be priced (a [step] and a compute time: its
 * compute_time, else measured_compute_s[0] > 0, the first step's T_compute
 * in this run; NULL: none measured), else -1. */
int cb_pricing_of(const struct cb_accept_spec *t, const double *measured_compute_s, int ranks,
                  struct cb_pricing *p);
/* Check c's verdict v (FAIL or WARN, a busbw or algbw figure) priced into
 * *out, measured at `ranks` on `nodes` nodes; e: the model's figure where
 * the check's level has one (else it is asked for here). Returns 0 when v
 * is one to price (out filled, priced or with why), -1 when not (a PASS,
 * a time). */
int cb_cost_price(const struct cb_pricing *p, const struct cb_accept_spec *t,
                  const struct cb_check *c, const struct cb_verdict *v, const struct cb_expected *e,
                  int ranks, int nodes, struct cb_cost *out);

#endif
