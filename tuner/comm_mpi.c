/* The host communication backend: blocking MPI_Allreduce per bucket, run
 * by one communication thread per rank (as Horovod does), so the all-reduce
 * advances while the compute thread runs GEMMs.
 *
 * Why a thread and not MPI_Iallreduce with MPI_Test between GEMMs: in Open
 * MPI 4.1 MPI_Iallreduce is served by coll/libnbc, which ignores
 * coll_tuned_allreduce_algorithm (it has its own
 * coll_libnbc_iallreduce_algorithm), so tuning coll/tuned would change
 * nothing the step runs. The blocking call is coll/tuned's. Needs
 * MPI_THREAD_SERIALIZED: the compute thread makes no MPI call while the
 * communication thread works (wait_all() hands MPI back).
 *
 * Settings change at run time (Open MPI 4.1, coll/tuned's
 * MCA parameters and ompi/mca/coll/tuned/coll_tuned_component.c): with
 * coll_tuned_use_dynamic_rules=1 set before MPI_Init, write the algorithm
 * and segment size through MPI_T, then MPI_Comm_dup: the new communicator
 * uses them. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "kernels/transformer.h"
#include "runtime/mpit.h"

#define QUEUE_MAX 4096

struct job {
  MPI_Comm comm;
  void *buf;
  int count;
};

struct mpi_comm {
  const struct cb_cluster *cl;
  int have_cvars, dynamic;
  MPI_T_cvar_handle alg, seg;
  struct cb_tune_config launch;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t work, done;
  struct job queue[QUEUE_MAX];
  int head, tail, quit, started;
  int rc; /* first MPI error of the thread */
  char where[300];
};

static void *comm_thread(void *arg) {
  struct mpi_comm *c = arg;
  pthread_mutex_lock(&c->lock);
  for (;;) {
    while (c->head == c->tail && !c->quit)
      pthread_cond_wait(&c->work, &c->lock);
    if (c->head == c->tail && c->quit)
      break;
    struct job j = c->queue[c->head];
    pthread_mutex_unlock(&c->lock);
    int rc = MPI_Allreduce(MPI_IN_PLACE, j.buf, j.count, MPI_FLOAT, MPI_SUM, j.comm);
    pthread_mutex_lock(&c->lock);
    if (rc != MPI_SUCCESS && c->rc == MPI_SUCCESS)
      c->rc = rc;
    c->head++;
    pthread_cond_broadcast(&c->done);
  }
  pthread_mutex_unlock(&c->lock);
  return NULL;
}

static int read_int(MPI_T_cvar_handle h) {
  int v = 0; /* a bool fills its first byte only */
  MPI_T_cvar_read(h, &v);
  return v;
}

static void mpi_finalize(void *ctx);

static int mpi_init(const struct cb_cluster *cl, const struct cb_comm_setup *setup, void **ctx,
                    struct cb_error *err) {
  if (setup->dtype != CB_MODEL_FLOAT || setup->stream)
    return cb_fail(err, CB_USAGE,
                   "--tune: the MPI all-reduce takes float gradients in host memory");
  int provided;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_SERIALIZED)
    return cb_fail(err, CB_RUNTIME,
                   "--tune: the MPI library gave thread level %d, the communication thread "
                   "needs MPI_THREAD_SERIALIZED",
                   provided);
  struct mpi_comm *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "mpi comm: out of memory");
  c->cl = cl;
  snprintf(c->where, sizeof c->where, "rank %d (%s)", cl->rank, cl->hostname);
  MPI_T_init_thread(MPI_THREAD_SERIALIZED, &provided);
  MPI_T_cvar_handle dyn;
  if (cb_mpit_find_cvar("coll_tuned_use_dynamic_rules", MPI_C_BOOL, &dyn)) {
    c->dynamic = read_int(dyn);
    MPI_T_cvar_handle_free(&dyn);
  }
  c->have_cvars = cb_mpit_find_cvar("coll_tuned_allreduce_algorithm", MPI_INT, &c->alg);
  if (c->have_cvars &&
      !cb_mpit_find_cvar("coll_tuned_allreduce_algorithm_segmentsize", MPI_INT, &c->seg)) {
    MPI_T_cvar_handle_free(&c->alg);
    c->have_cvars = 0;
  }
  c->launch.algorithm = c->have_cvars ? read_int(c->alg) : -1;
  c->launch.segsize = c->have_cvars ? read_int(c->seg) : 0;
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->work, NULL);
  pthread_cond_init(&c->done, NULL);
  if (pthread_create(&c->thread, NULL, comm_thread, c) != 0) {
    mpi_finalize(c);
    return cb_fail(err, CB_RUNTIME, "rank %d: cannot start the communication thread", cl->rank);
  }
  c->started = 1;
  *ctx = c;
  return CB_OK;
}

static void mpi_tunable(void *ctx, int *yes, char *why, size_t len) {
  struct mpi_comm *c = ctx;
  *yes = c->have_cvars && c->dynamic;
  if (!c->have_cvars)
    snprintf(why, len,
             "this MPI has no coll/tuned allreduce algorithm variables (e.g. MPICH): "
             "only the bucket size is searched");
  else if (!c->dynamic)
    snprintf(why, len,
             "coll_tuned_use_dynamic_rules is 0 at MPI_Init: only the bucket size is "
             "searched");
  else
    snprintf(why, len, "coll/tuned allreduce algorithm and segment size, through MPI_T");
}

static void mpi_launch(void *ctx, struct cb_tune_config *cfg) {
  *cfg = ((struct mpi_comm *)ctx)->launch;
}

static void mpi_version(void *ctx, char *buf, size_t len) {
  (void)ctx;
  cb_mpi_library(buf, len);
}

static int mpi_open(void *ctx, const struct cb_tune_config *cfg, void **setting,
                    struct cb_error *err) {
  struct mpi_comm *c = ctx;
  MPI_Comm *comm = malloc(sizeof *comm);
  if (!comm)
    return cb_fail(err, CB_RUNTIME, "%s: out of memory", c->where);
  if (c->have_cvars && c->dynamic && cfg->algorithm >= 0) {
    int alg = cfg->algorithm, seg = (int)cfg->segsize;
    /* read back: a library that accepts the write but keeps its value
     * would make the whole search measure one setting */
    if (MPI_T_cvar_write(c->alg, &alg) != MPI_SUCCESS ||
        MPI_T_cvar_write(c->seg, &seg) != MPI_SUCCESS || read_int(c->alg) != alg ||
        read_int(c->seg) != seg) {
      free(comm);
      return cb_fail(err, CB_RUNTIME,
                     "%s: MPI_T did not take allreduce algorithm %d, segment size %d", c->where,
                     alg, seg);
    }
  }
  MPI_Comm_dup(c->cl->comm, comm);
  MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN);
  *setting = comm;
  return CB_OK;
}

static int mpi_start(void *ctx, void *setting, void *buf, size_t count, struct cb_error *err) {
  struct mpi_comm *c = ctx;
  pthread_mutex_lock(&c->lock);
  if (c->tail == QUEUE_MAX) {
    pthread_mutex_unlock(&c->lock);
    return cb_fail(err, CB_RUNTIME, "%s: more than %d buckets in one step", c->where, QUEUE_MAX);
  }
  c->queue[c->tail++] = (struct job){*(MPI_Comm *)setting, buf, (int)count};
  pthread_cond_signal(&c->work);
  pthread_mutex_unlock(&c->lock);
  return CB_OK;
}

static void mpi_poll(void *ctx) {
  (void)ctx; /* the communication thread progresses on its own */
}

static int mpi_wait_all(void *ctx, struct cb_error *err) {
  struct mpi_comm *c = ctx;
  pthread_mutex_lock(&c->lock);
  while (c->head != c->tail)
    pthread_cond_wait(&c->done, &c->lock);
  c->head = c->tail = 0;
  int rc = c->rc;
  pthread_mutex_unlock(&c->lock);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = "";
    int len;
    MPI_Error_string(rc, text, &len);
    return cb_fail(err, CB_RUNTIME, "%s: MPI_Allreduce of a gradient bucket failed: %s", c->where,
                   text);
  }
  return CB_OK;
}

static void mpi_close(void *ctx, void *setting) {
  (void)ctx;
  MPI_Comm_free(setting);
  free(setting);
}

static void mpi_finalize(void *ctx) {
  struct mpi_comm *c = ctx;
  if (!c)
    return;
  if (c->started) {
    pthread_mutex_lock(&c->lock);
    c->quit = 1;
    pthread_cond_signal(&c->work);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
  }
  if (c->have_cvars) {
    MPI_T_cvar_handle_free(&c->alg);
    MPI_T_cvar_handle_free(&c->seg);
  }
  MPI_T_finalize();
  free(c);
}

const struct cb_comm cb_comm_mpi = {
    .name = "mpi",
    .kind = CB_SPACE_MPI,
    .progress = "blocking MPI_Allreduce per bucket on a communication thread per rank",
    .init = mpi_init,
    .tunable = mpi_tunable,
    .launch = mpi_launch,
    .version = mpi_version,
    .open = mpi_open,
    .start = mpi_start,
    .poll = mpi_poll,
    .wait_all = mpi_wait_all,
    .close = mpi_close,
    .finalize = mpi_finalize,
};
