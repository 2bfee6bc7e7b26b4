/* The communication ratio of a data-parallel training step: gradient
 * buckets allreduced while backward still runs (PyTorch DDP's scheme). */
#include <math.h>

#include "model.h"

int cb_model_step(const struct cb_system *allreduce, int ngpus, double compute_s, double grad_bytes,
                  double bucket_bytes, struct cb_step_result *r) {
  *r = (struct cb_step_result){.nbuckets = (int)ceil(grad_bytes / bucket_bytes)};
  double done = 0, filled = 0; /* when the link is free; gradient bytes produced */
  for (int i = 0; i < r->nbuckets; i++) {
    double size = fmin(bucket_bytes, grad_bytes - filled);
    filled += size;
    struct cb_prediction p;
    if (cb_model_best(CB_MOP_ALLREDUCE, allreduce, ngpus, size, &p) < 0)
      return -1;
    double ready = compute_s * filled / grad_bytes; /* gradients come at a steady rate */
    done = fmax(done, ready) + p.time_s;
    r->comm_s += p.time_s;
  }
  r->exposed_s = fmax(0, done - compute_s);
  r->rho = r->exposed_s / compute_s;
  return 0;
}
