/* The run record: what ran, where, with what. Collected once by the engine
 * and read by every output. */
#ifndef CB_RUNINFO_H
#define CB_RUNINFO_H

#include "runtime/cluster.h"
#include "runtime/settings.h"

#define CB_MAX_ENV 128

struct cb_probe;

struct cb_backend_info {
  const char *name;
  char version[160];
  int usable;
  char why[160];
};

struct cb_run_info {
  const char *version, *git_commit;
  char start_time[40];
  char command_line[2048];
  const struct cb_cluster *cluster;
  char mpi_library[256];
  char cpu_model[160];
  struct cb_backend_info backends[CB_MAX_LIST];
  int nbackends;
  /* variables that change results: NCCL_*, UCX_*, OMPI_MCA_*, MPICH_* */
  char *env[CB_MAX_ENV];
  int nenv;
  double timer_overhead_ns;
  const struct cb_settings *settings;
  /* what every node is made of (rank 0; NULL when not probed) */
  const struct cb_probe *probe;
};

void cb_run_info_collect(struct cb_run_info *ri, int argc, char **argv, const struct cb_cluster *cl,
                         const struct cb_settings *s);
void cb_run_info_free(struct cb_run_info *ri);

/* Probes every built-in backend (for --list and the run record). */
void cb_backend_infos(struct cb_backend_info *out, int *n);

#endif
