/* Phase timestamps for COLLBENCH_PHASES=1 (phase.h). */
#include "phase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timer.h"

static int on = -1;
static double t0;

int cb_phase_on(void) {
  if (on < 0) {
    const char *v = getenv("COLLBENCH_PHASES");
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank)
      rank = getenv("PMIX_RANK");
    if (!rank)
      rank = getenv("SLURM_PROCID");
    on = v && strcmp(v, "1") == 0 && (!rank || atoi(rank) == 0);
    t0 = cb_now();
  }
  return on;
}

void cb_phase(const char *name) {
  if (cb_phase_on())
    fprintf(stderr, "collbench phase: +%.3f s %s\n", cb_now() - t0, name);
}
