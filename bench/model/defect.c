/* The price of a defect in step time (defect.h). */
#include "defect.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/dtype.h"
#include "groups.h"
#include "model.h"
#include "nccl_predict.h"
#include "results/overhead.h"

/* NCCL's all-reduce with the measured shortfall on the path the check
 * crossed (issue 74): NCCL picks on the nominal graphs, and the picked
 * algorithm's bandwidth term (its time past its latency) is divided by the
 * factor that path sets the collective's speed to. Slowing a graph's
 * per-channel bandwidth instead was absorbed by the protocols' caps: a 20%
 * shortfall priced at +0.0%. A ring or tree runs at its slowest hop, so
 * across nodes an intra-node shortfall counts only where the slowed
 * intra-node speed falls under the network's; a network shortfall counts
 * only with more than one node. `used` is the factor last applied (1:
 * the shortfall is on a path the all-reduce does not wait on there). */
struct slowed {
  struct cb_nc_hw hw;
  int per_node, inter, dtype;
  double factor, used;
};

static double slowed_allreduce_s(const void *ctx, int ngpus, double bytes) {
  struct slowed *s = (struct slowed *)ctx; /* `used`: what it applied, for the words */
  if (ngpus < 2)
    return 0;
  int per = s->per_node < ngpus ? s->per_node : ngpus, nodes = (ngpus + per - 1) / per;
  struct cb_nc_hw hw = s->hw;
  hw.gpus_per_node = ngpus / nodes;
  struct cb_nc_graph g[CB_NC_NALGOS];
  cb_nc_graphs(&hw, nodes, g);
  struct cb_nc_comm nominal;
  struct cb_nc_cal own;
  struct cb_nc_choice ch;
  cb_nc_cal_identity(&own);
  cb_nc_tune_graphs(&hw, ngpus, nodes, g, &nominal);
  if (cb_nc_pick(&nominal, CB_MOP_ALLREDUCE, bytes, s->dtype, CB_SUM, -1, &own, &ch) < 0)
    return NAN;
  const struct cb_nc_graph *gr = &g[ch.algo];
  double f = 1;
  if (nodes == 1)
    f = s->inter ? 1 : s->factor;
  else if (s->inter)
    f = s->factor;
  else { /* the slowest hop: intra-node slowed, against the network */
    double before = fmin(gr->bw_intra, gr->bw_inter);
    f = before > 0 ? fmin(gr->bw_intra * s->factor, gr->bw_inter) / before : 1;
  }
  s->used = f;
  double t = cb_nc_time(&nominal, CB_MOP_ALLREDUCE, ch.algo, ch.proto, bytes, NULL);
  double t0 = cb_nc_time(&nominal, CB_MOP_ALLREDUCE, ch.algo, ch.proto, 0, NULL);
  if (!isfinite(t) || !isfinite(t0))
    return NAN;
  return t0 + (t - t0) / f;
}

/* The step at `gpus` with the link at factor; 0 or -1. */
static int play(const struct cb_system *sys, const struct cb_step_opts *opt, int gpus,
                double compute_s, double grad_bytes, double bucket_bytes, double *step_s,
                double *overhead) {
  struct cb_step_result r;
  if (cb_model_step(sys, gpus, compute_s, grad_bytes, bucket_bytes, opt, &r) ||
      !isfinite(r.exposed_s))
    return -1;
  *step_s = compute_s + r.exposed_s;
  *overhead = cb_overhead_from_rho(r.rho);
  return 0;
}

int cb_defect_price(const struct cb_topology *t, int per_node, int inter, double factor, int gpus,
                    int dtype, double compute_s, double grad_bytes, double bucket_bytes,
                    struct cb_defect_step *out, char *why, size_t len) {
  if (!(factor > 0) || !(compute_s > 0) || !(grad_bytes > 0) || gpus < 1) {
    snprintf(why, len, "nothing to price (factor %g, compute %g s, %g gradient bytes, %d GPUs)",
             factor, compute_s, grad_bytes, gpus);
    return -1;
  }
  if (factor >= 1) { /* words, not +0.0% */
    snprintf(why, len, "at or above the model's figure (x%.3f of it): no shortfall to price",
             factor);
    return -1;
  }
  per_node = per_node < 1 ? 1 : per_node;
  struct cb_system sys[2] = {{.ranks_per_node = per_node}, {.ranks_per_node = per_node}};
  struct cb_step_opts opt[2] = {CB_STEP_DEFAULTS, CB_STEP_DEFAULTS};
  struct slowed ctx[2];
  if (t->gpus_per_node > 0) {
    struct cb_nccl_expectation e; /* a route NCCL's estimate holds for, or why not */
    if (cb_nccl_expect(t, CB_MOP_ALLREDUCE, dtype, gpus, per_node, bucket_bytes, &e, why, len))
      return -1;
    ctx[0] = (struct slowed){
        .per_node = per_node, .inter = inter, .dtype = dtype, .factor = 1, .used = 1};
    cb_nccl_hw(t, per_node, &ctx[0].hw, why, len); /* it holds: cb_nccl_expect read it */
    ctx[1] = ctx[0];
    ctx[1].factor = factor;
    for (int k = 0; k < 2; k++)
      opt[k].allreduce_s = slowed_allreduce_s, opt[k].ctx = &ctx[k];
  } else {
    struct cb_fit_groups none = {0};
    char from[CB_NTIERS][200];
    cb_fit_system(&none, t, CB_MOP_ALLREDUCE, &sys[0], from);
    sys[1] = sys[0];
    struct cb_link *slow = &sys[1].tier[inter ? CB_TIER_INTER : CB_TIER_INTRA];
    if (slow->set)
      slow->beta /= factor;
  }
  for (int k = 0; k < 2; k++)
    if (play(&sys[k], &opt[k], gpus, compute_s, grad_bytes, bucket_bytes, &out->step_s[k],
             &out->overhead[k])) {
      snprintf(why, len, "the model cannot play the step out at %d GPUs on this system's tiers",
               gpus);
      return -1;
    }
  if (t->gpus_per_node > 0 && factor < 1 && ctx[1].used >= 1) { /* words, never +0.0% */
    snprintf(why, len,
             "at %d GPUs the step's all-reduce is bound by the %s, not the %s path this check "
             "measured: NCCL's model gives it no slower there",
             gpus, inter ? "NVLink/PCIe inside each node" : "network between nodes",
             inter ? "network" : "intra-node");
    return -1;
  }
  return 0;
}
