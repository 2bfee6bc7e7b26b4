/* What a link measured short of the model costs a training step at scale
 * (issue 58's price of a defect): the reference step played out by the
 * model (cb_model_step) at `gpus`, once with every link as the model has
 * it, once with the link a check measured, within a node or between
 * nodes, at `factor` of it. On a GPU system NCCL picks as it would with
 * nominal links (it does not measure them) and its pick then runs on the
 * slow link; elsewhere the alpha-beta model on the file's tiers. */
#ifndef CB_MODEL_DEFECT_H
#define CB_MODEL_DEFECT_H

#include <stddef.h>

#include "topology/topology.h"

struct cb_defect_step {
  double step_s[2];   /* [0] as the model expects, [1] with the link at factor */
  double overhead[2]; /* exposed communication / step */
};

/* per_node: ranks a node; inter: the check measured between nodes;
 * dtype: the gradients' (enum cb_dtype_id). Returns 0, or -1 with why[]
 * when the model cannot play the step out on this system. */
int cb_defect_price(const struct cb_topology *t, int per_node, int inter, double factor, int gpus,
                    int dtype, double compute_s, double grad_bytes, double bucket_bytes,
                    struct cb_defect_step *out, char *why, size_t len);

#endif
