/* The run record: what ran, where, with what; collected once, read by every output (runinfo.h
 * says more). */
#include "runinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/backend.h"
#include "base/timer.h"
#include "config.h"
#include "gitversion.h"

extern char **environ;

static void cpu_model(char *buf, size_t len) {
  snprintf(buf, len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      char *v = strchr(line, ':');
      if (v) {
        v += 1 + (v[1] == ' ');
        v[strcspn(v, "\n")] = '\0';
        snprintf(buf, len, "%s", v);
      }
      break;
    }
  }
  fclose(f);
}

static int has_prefix(const char *var, const char *const *prefixes, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strncmp(var, prefixes[i], strlen(prefixes[i])) == 0)
      return 1;
  return 0;
}

static int result_changing(const char *var) {
  static const char *const wanted[] = {"NCCL_", "UCX_", "OMPI_MCA_", "MPICH_", "CUDA_VISIBLE_"};
  /* mpirun's own wiring (job ids, URIs, session dirs) changes every run
   * and no result */
  static const char *const launcher[] = {"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix",
                                         "OMPI_MCA_initial_wdir", "OMPI_MCA_shmem_RUNTIME"};
  return has_prefix(var, wanted, sizeof wanted / sizeof wanted[0]) &&
         !has_prefix(var, launcher, sizeof launcher / sizeof launcher[0]);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

void cb_backend_infos(struct cb_backend_info *out, int *n) {
  *n = 0;
  for (int i = 0; i < cb_nbackends && i < CB_MAX_LIST; i++) {
    const struct cb_backend *b = cb_backends[i];
    struct cb_backend_info *bi = &out[(*n)++];
    bi->name = b->name;
    b->version(bi->version, sizeof bi->version);
    bi->usable = b->probe(bi->why, sizeof bi->why);
  }
}

void cb_run_info_collect(struct cb_run_info *ri, int argc, char **argv, const struct cb_cluster *cl,
                         const struct cb_settings *s) {
  memset(ri, 0, sizeof *ri);
  ri->version = CB_VERSION;
  ri->git_commit = CB_GIT_COMMIT;
  ri->cluster = cl;
  ri->settings = s;
  cb_utc_text((double)time(NULL), ri->start_time, sizeof ri->start_time);

  size_t used = 0;
  for (int i = 0; i < argc && used < sizeof ri->command_line; i++)
    used += (size_t)snprintf(ri->command_line + used, sizeof ri->command_line - used, "%s%s",
                             i ? " " : "", argv[i]);

  cb_mpi_library(ri->mpi_library, sizeof ri->mpi_library);
  cpu_model(ri->cpu_model, sizeof ri->cpu_model);
  cb_backend_infos(ri->backends, &ri->nbackends);

  for (char **e = environ; *e && ri->nenv < CB_MAX_ENV; e++)
    if (result_changing(*e))
      ri->env[ri->nenv++] = strdup(*e);
  qsort(ri->env, (size_t)ri->nenv, sizeof ri->env[0], cmp_str);
  ri->timer_overhead_ns = cb_timer_overhead() * 1e9;
}

void cb_run_info_free(struct cb_run_info *ri) {
  for (int i = 0; i < ri->nenv; i++)
    free(ri->env[i]);
  ri->nenv = 0;
}
