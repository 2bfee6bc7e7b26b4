/* --op copy orchestration: local rank 0 of each node measures, rank 0
 * receives each node's cells in node order and hands them to the sinks. */
#include "copy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"

#define TAG_COPY 41

int cb_copy_validate(const struct cb_cluster *cl, const struct cb_settings *s,
                     struct cb_error *err) {
  int rc = CB_OK;
  if (cl->local_rank == 0) {
    uint64_t min_mem = 0;
    char why[256], a[32], b[32];
    if (cb_copy_gpus(&min_mem, why, sizeof why) == 0)
      rc = cb_fail(err, CB_USAGE, "--op copy needs a GPU: %s (on %s)", why, cl->hostname);
    else if (s->max_bytes > min_mem / 2)
      rc = cb_fail(err, CB_USAGE,
                   "--max-bytes %s: the copy matrix needs two buffers of it per GPU, and a GPU "
                   "on %s has %s",
                   cb_format_size(s->max_bytes, a, sizeof a), cl->hostname,
                   cb_format_size(min_mem, b, sizeof b));
  }
  int agreed = cb_cluster_agree(cl, rc);
  if (agreed != CB_OK && rc == CB_OK)
    return cb_fail(err, agreed,
                   "--op copy: another node cannot run it (its local rank 0 says why)");
  return agreed;
}

static int emit(const struct cb_cluster *cl, int node, const struct cb_copy_node *res,
                uint64_t bytes, struct cb_sink *sinks, int nsinks, struct cb_summary *sum,
                struct cb_error *err) {
  const char *host = cl->node_names[node];
  if (res->sm_why[0]) {
    char text[400];
    snprintf(text, sizeof text,
             "%s: copy_sm and copy_sm_bidir not measured: the SM copy kernel "
             "cannot run: %s",
             host, res->sm_why);
    if (cb_sinks_note(sinks, nsinks, text, err))
      return err->status;
  }
  for (int i = 0; i < res->ncells; i++) {
    const struct cb_copy_cell *c = &res->cells[i];
    struct cb_pair p = {.src = c->src,
                        .dst = c->dst,
                        .src_host = host,
                        .dst_host = host,
                        .bytes = bytes,
                        .bw_GBps = c->GBps,
                        .lat_us = NAN,
                        .round = 0,
                        .matrix = c->matrix,
                        .link = c->link};
    for (int k = 0; k < nsinks; k++)
      if (sinks[k].pair && sinks[k].pair(sinks[k].state, &p, err))
        return err->status;
    sum->records++;
    sum->wrong += c->wrong;
  }
  return CB_OK;
}

int cb_copy_run(const struct cb_cluster *cl, const struct cb_settings *s,
                const struct cb_run_info *ri, struct cb_sink *sinks, int nsinks,
                struct cb_summary *sum, struct cb_error *err) {
  memset(sum, 0, sizeof *sum);
  uint64_t bytes = s->max_bytes < 16 ? 16 : s->max_bytes / 16 * 16;
  int rc = cl->rank == 0 ? cb_sinks_run(sinks, nsinks, ri, err) : CB_OK;
  struct cb_copy_node *res = calloc(1, sizeof *res);
  if (!res)
    rc = cb_fail(err, CB_RUNTIME, "--op copy: out of memory");
  if (res && cl->local_rank == 0) {
    struct cb_error mine = {0};
    res->status = cb_copy_measure(bytes, res, &mine);
    snprintf(res->why, sizeof res->why, "%.400s (on %.100s)", mine.msg, cl->hostname);
    if (cl->rank != 0)
      MPI_Send(res, (int)sizeof *res, MPI_BYTE, 0, TAG_COPY, cl->comm);
    else if (res->status)
      rc = rc ? rc : cb_fail(err, res->status, "%s", res->why);
  }
  for (int node = 0, r = 0; cl->rank == 0 && res && r < cl->nranks; r++) {
    if (cl->node_of_rank[r] != node)
      continue;
    if (r != 0) /* node's lowest rank is its local rank 0 */
      MPI_Recv(res, (int)sizeof *res, MPI_BYTE, r, TAG_COPY, cl->comm, MPI_STATUS_IGNORE);
    if (res->status && !rc)
      rc = cb_fail(err, res->status, "%s", res->why);
    if (!rc && emit(cl, node, res, bytes, sinks, nsinks, sum, err))
      rc = err->status;
    node++;
  }
  free(res);
  if (cl->rank == 0 && rc == CB_OK) {
    sum->rows = sum->records;
    rc = cb_sinks_finish(sinks, nsinks, sum, err);
  }
  int agreed = cb_cluster_agree(cl, rc);
  if (agreed != CB_OK && rc == CB_OK)
    return cb_fail(err, agreed, "--op copy failed on another rank (rank 0 says why)");
  return agreed;
}
