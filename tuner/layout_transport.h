/* What the layout's executor (layout_step.c) needs from a library: the
 * step's communicators and buffers, each op started and waited for, the
 * compute, and each round's time waited per communicator. One struct per
 * library: layout_mpi.c (host: MPI and OpenBLAS), layout_nccl.c (GPU:
 * NCCL and cuBLAS). The executor owns the plan and the timing; a
 * transport never sees a configuration beyond the algorithm of the op. */
#ifndef CB_LAYOUT_TRANSPORT_H
#define CB_LAYOUT_TRANSPORT_H

#include <stddef.h>

#include "base/error.h"
#include "config.h"
#include "layout.h"
#include "runtime/cluster.h"

enum { CB_A2A_SC, CB_A2A_SD, CB_A2A_RC, CB_A2A_RD, CB_A2A_N };

/* What every plan of the step needs, the largest of its variants. */
struct cb_layout_need {
  const struct cb_layout *l; /* par and shard: the communicators */
  const struct cb_model *m;
  int stage;         /* this rank's pp stage */
  int nslots;        /* ops in flight at once, at most */
  size_t slot_elems; /* floats a slot holds */
  /* ep's dispatch [0] and combine [1]: counts and displacements in
   * floats per ep peer; NULL without ep */
  int *a2a[2][CB_A2A_N];
  int threads;   /* BLAS threads a rank (host) */
  int share_gpu; /* --share-gpu: each rank is a node of its own to NCCL */
  int search;    /* the algorithms will be searched (not --no-search) */
  /* ops any variant's plan issues on each communicator (CB_SC_*) */
  unsigned char uses[CB_NSC][CB_NEV_OPS];
};

/* The most algorithms a transport offers for one op on one communicator. */
#define CB_LAYOUT_MAX_ALGS 24

struct cb_layout_transport {
  const char *name;     /* "mpi", "nccl": --backend's value */
  const char *what;     /* the header line's words */
  int gpu;              /* the step on a GPU: bound first, its memory holds the states */
  const char *where;    /* "the GPU", "the host": the header line's */
  const char *no_algos; /* why nothing is turned when nalgs is 0 everywhere */
  const char *env_note; /* what the env file says of the algorithms, or NULL */
  int (*open)(const struct cb_cluster *cl, const struct cb_layout_need *need, void **t,
              struct cb_error *err);
  /* The algorithms this transport can choose for op on communicator comm
   * (CB_SC_*): their numbers (never 0, the library's own) into alg[], at
   * most CB_LAYOUT_MAX_ALGS; returns how many (0: none). The same on every
   * rank of the communicator. */
  int (*algs)(void *t, int comm, int op, int *alg);
  /* a number's name (0: "library"), the same without an open transport */
  const char *(*algo_name)(int op, int alg);
  /* alg: the configuration's choice for the op's communicator, 0 the
   * library's own */
  int (*start)(void *t, const struct cb_step_event *e, int alg, struct cb_error *err);
  int (*wait)(void *t, const struct cb_step_event *e, struct cb_error *err);
  /* flops of GEMM; comm: ops may be in flight (the host gives the library
   * the CPU between GEMMs) */
  int (*compute)(void *t, double flops, int comm, struct cb_error *err);
  /* The round's end: everything it issued complete; the seconds the step
   * waited on each communicator's ops in the round. */
  int (*finish)(void *t, double wait[CB_NSC], struct cb_error *err);
  void (*close)(void *t);
  /* the library's version as its own call says it (NCCL: 22809), or NULL */
  int (*version)(void);
};

extern const struct cb_layout_transport cb_layout_mpi;
#if CB_HAVE_NCCL && CB_HAVE_CUBLAS
extern const struct cb_layout_transport cb_layout_nccl;
#endif

/* --backend's transport: "mpi", "nccl", or NULL for nccl where this build
 * has it and a GPU is usable, else mpi; CB_USAGE naming what is missing. */
int cb_layout_transport_choose(const char *backend, const struct cb_layout_transport **t,
                               struct cb_error *err);

#endif
