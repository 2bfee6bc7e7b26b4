/* The measuring engine: expands settings into series (op x backend x
 * memory x transport x dtype x redop) and sizes, measures each out of place
 * and in place, checks results, and hands records to the sinks. The CLI,
 * the tuner and acceptance mode all drive it through this header. */
#ifndef CB_ENGINE_H
#define CB_ENGINE_H

#include "backends/backend.h"
#include "output/runinfo.h"
#include "output/sink.h"
#include "runtime/cluster.h"
#include "runtime/settings.h"

/* Checks what can only be checked with the cluster known (memory per
 * node); a usage error (2) on every rank when a size cannot fit. */
int cb_engine_validate(const struct cb_cluster *cl, const struct cb_settings *s,
                       struct cb_error *err);

/* Runs everything; sinks are fed on rank 0 only. Returns CB_OK, or the
 * error that stopped the run. Wrong results are counted in `sum`. */
int cb_engine_run(const struct cb_cluster *cl, const struct cb_settings *s,
                  const struct cb_run_info *ri, struct cb_sink *sinks, int nsinks,
                  struct cb_summary *sum, struct cb_error *err);

/* The same with the backends given rather than s->backends: tests drive
 * the engine through a stand-in backend (device memory without a GPU). */
int cb_engine_run_on(const struct cb_cluster *cl, const struct cb_settings *s,
                     const struct cb_run_info *ri, const struct cb_backend *const *backends,
                     int nbackends, struct cb_sink *sinks, int nsinks, struct cb_summary *sum,
                     struct cb_error *err);

/* The measuring alone, for a caller that makes one run of several passes
 * (the burn-in): no run record, no finish; sum is added to, not cleared;
 * the notes said once per run are said when s->interval <= 1. */
int cb_engine_measure(const struct cb_cluster *cl, const struct cb_settings *s,
                      const struct cb_run_info *ri, const struct cb_backend *const *backends,
                      int nbackends, struct cb_sink *sinks, int nsinks, struct cb_summary *sum,
                      struct cb_error *err);

#endif
