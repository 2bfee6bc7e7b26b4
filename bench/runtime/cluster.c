/* Where this process sits: rank, node, hostnames, the launch checked (cluster.h says more). */
#include "cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"

void cb_mpi_library(char *buf, size_t len) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int n;
  MPI_Get_library_version(lib, &n);
  lib[strcspn(lib, "\n,")] = '\0';
  for (char *p = lib; *p; p++)
    if (*p == '\t')
      *p = ' ';
  snprintf(buf, len, "%s", lib);
}

int cb_cluster_check_launch(int nranks, struct cb_error *err) {
  if (nranks != 1)
    return CB_OK;
  /* Each launcher announces the job size to its processes. */
  static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                          "MPI_LOCALNRANKS", "SLURM_STEP_NUM_TASKS"};
  for (size_t i = 0; i < sizeof size_vars / sizeof size_vars[0]; i++) {
    const char *v = getenv(size_vars[i]);
    if (v && atoi(v) > 1) {
      char lib[256];
      cb_mpi_library(lib, sizeof lib);
      return cb_fail(err, CB_USAGE,
                     "mis-launch: the launcher started %s processes (%s=%s) but MPI here "
                     "sees a single rank, so every process would run alone as rank 0 of 1. "
                     "collbench is built against %s: launch it with that library's "
                     "mpirun/mpiexec (or srun with its PMI plugin), or rebuild with the "
                     "MPI whose launcher you use (./configure --with-mpicc=...)",
                     v, size_vars[i], v, lib);
    }
  }
  return CB_OK;
}

int cb_cluster_init(struct cb_cluster *cl, struct cb_error *err) {
  return cb_cluster_init_comm(cl, MPI_COMM_WORLD, err);
}

int cb_cluster_init_comm(struct cb_cluster *cl, MPI_Comm parent, struct cb_error *err) {
  memset(cl, 0, sizeof *cl);
  MPI_Comm_dup(parent, &cl->comm);
  MPI_Comm_set_errhandler(cl->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(cl->comm, &cl->rank);
  MPI_Comm_size(cl->comm, &cl->nranks);
  int len;
  MPI_Get_processor_name(cl->hostname, &len);
  /* the one text every output carries that no file checked: shown escaped
   * from here on (a name holding a newline or ESC would split the table's
   * header or drive the terminal) */
  cb_text_terminal_inplace(cl->hostname, sizeof cl->hostname);

  MPI_Comm local;
  MPI_Comm_split_type(cl->comm, MPI_COMM_TYPE_SHARED, cl->rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &cl->local_rank);
  MPI_Comm_size(local, &cl->local_size);
  int leader = cl->rank; /* a node is named by its lowest world rank */
  MPI_Bcast(&leader, 1, MPI_INT, 0, local);
  MPI_Comm_free(&local);

  int *leaders = malloc((size_t)cl->nranks * sizeof *leaders);
  cl->node_of_rank = malloc((size_t)cl->nranks * sizeof *cl->node_of_rank);
  char(*names)[CB_HOSTNAME_MAX] = malloc((size_t)cl->nranks * CB_HOSTNAME_MAX);
  if (!leaders || !cl->node_of_rank || !names) {
    free(leaders);
    free(names);
    return cb_fail(err, CB_RUNTIME, "out of memory for %d ranks' node table", cl->nranks);
  }
  MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, cl->comm);
  MPI_Allgather(cl->hostname, CB_HOSTNAME_MAX, MPI_CHAR, names, CB_HOSTNAME_MAX, MPI_CHAR,
                cl->comm);

  /* Leaders are the ranks that lead themselves; nodes are numbered in
   * their rank order. First number the leaders, then everyone. */
  cl->nnodes = 0;
  for (int r = 0; r < cl->nranks; r++)
    cl->node_of_rank[r] = leaders[r] == r ? cl->nnodes++ : -1;
  for (int r = 0; r < cl->nranks; r++)
    cl->node_of_rank[r] = cl->node_of_rank[leaders[r]]; /* leaders[r] <= r: already set */
  cl->node_names = malloc((size_t)cl->nnodes * CB_HOSTNAME_MAX);
  cl->ranks_on_node = calloc((size_t)cl->nnodes, sizeof *cl->ranks_on_node);
  if (!cl->node_names || !cl->ranks_on_node) {
    free(leaders);
    free(names);
    return cb_fail(err, CB_RUNTIME, "out of memory for %d nodes' table", cl->nnodes);
  }
  for (int r = 0; r < cl->nranks; r++) {
    int node = cl->node_of_rank[r];
    if (leaders[r] == r)
      memcpy(cl->node_names[node], names[r], CB_HOSTNAME_MAX);
    cl->ranks_on_node[node]++;
  }
  cl->node = cl->node_of_rank[cl->rank];
  free(leaders);
  free(names);
  return CB_OK;
}

void cb_cluster_free(struct cb_cluster *cl) {
  free(cl->node_of_rank);
  free(cl->node_names);
  free(cl->ranks_on_node);
  if (cl->comm != MPI_COMM_NULL)
    MPI_Comm_free(&cl->comm);
  memset(cl, 0, sizeof *cl);
}

int cb_cluster_agree(const struct cb_cluster *cl, int status) {
  int worst = status;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, cl->comm);
  return worst;
}

int cb_launcher_rank(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                     "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv(vars[i]))
      return atoi(getenv(vars[i]));
  return 0;
}

void cb_cluster_gather_nodes(const struct cb_cluster *cl, const void *mine, void *all, size_t size,
                             int tag) {
  if (cl->rank != 0) {
    if (cl->local_rank == 0)
      MPI_Send(mine, (int)size, MPI_BYTE, 0, tag, cl->comm);
    return;
  }
  memcpy(all, mine, size);
  for (int node = 1, r = 1; r < cl->nranks; r++)
    if (cl->node_of_rank[r] == node)
      MPI_Recv((char *)all + (size_t)node++ * size, (int)size, MPI_BYTE, r, tag, cl->comm,
               MPI_STATUS_IGNORE);
}
