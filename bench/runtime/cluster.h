/* Where this process sits: rank, node, hostnames. MPI is the launcher and
 * control plane for every backend. */
#ifndef CB_CLUSTER_H
#define CB_CLUSTER_H

#include <mpi.h>
#include <stddef.h>

#include "base/error.h"

#define CB_HOSTNAME_MAX 256

struct cb_cluster {
  MPI_Comm comm; /* control communicator: barriers, agreement, timing */
  int rank, nranks;
  int local_rank, local_size;          /* within this node (MPI_COMM_TYPE_SHARED) */
  int node, nnodes;                    /* nodes numbered by their lowest rank */
  int *node_of_rank;                   /* [nranks] */
  char (*node_names)[CB_HOSTNAME_MAX]; /* [nnodes] */
  int *ranks_on_node;                  /* [nnodes] */
  char hostname[CB_HOSTNAME_MAX];
};

/* The MPI library's name and version on one line ("Open MPI v4.1.4",
 * "MPICH Version: 4.0.2"); callable before MPI_Init. */
void cb_mpi_library(char *buf, size_t len);

/* Explains the classic mis-launch (N copies each rank 0 of 1) from the
 * launcher's environment; call right after MPI_Init. */
int cb_cluster_check_launch(int nranks, struct cb_error *err);

int cb_cluster_init(struct cb_cluster *cl, struct cb_error *err);
/* The same over a part of the ranks (a communicator MPI_Comm_split made):
 * collective over parent, which it duplicates. */
int cb_cluster_init_comm(struct cb_cluster *cl, MPI_Comm parent, struct cb_error *err);
void cb_cluster_free(struct cb_cluster *cl);

/* All ranks agree on a status: the worst (highest) one wins. */
int cb_cluster_agree(const struct cb_cluster *cl, int status);
/* Local rank 0 of every node sends `size` bytes at `mine`; rank 0 receives
 * them into all[] in node order (all[0] is its own; a node's local rank 0 is
 * its lowest rank, and nodes are numbered by it). all[] holds nnodes x size
 * bytes on rank 0 and is not touched elsewhere. Collective. */
void cb_cluster_gather_nodes(const struct cb_cluster *cl, const void *mine, void *all, size_t size,
                             int tag);

/* This process's rank before MPI_Init, from the launcher's environment
 * (Open MPI, PMI, PMIx, Slurm); 0 when none says. */
int cb_launcher_rank(void);

#endif
