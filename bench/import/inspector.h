/* --import-inspector: what a real job called, from NCCL Inspector's output
 * (NVIDIA/nccl plugins/profiler/inspector, inspector_json.cc, format
 * "v4.0"): JSON Lines, one object per collective per rank, in one file per
 * process (DIR/HOST-pidN.log), each {"header": {"id", "comm_name", "rank",
 * "n_ranks", "nnodes"}, "metadata": {...}, "coll_perf": {"coll", "coll_sn",
 * "coll_msg_size_bytes", "coll_exec_time_us", "coll_timing_source",
 * "coll_algobw_gbs", "coll_busbw_gbs"}} or with "p2p_perf" instead.
 * A call is a communicator's coll_sn, counted once however many of its
 * ranks logged it; the calls group by (op, ranks, nodes, size). The result
 * is a calls file (JSON Lines) that --calls measures and --tune --calls
 * weighs by. */
#ifndef CB_INSPECTOR_H
#define CB_INSPECTOR_H

#include <stdint.h>

#include "base/error.h"

/* The most ranks a call's communicator may have (more than any job), and
 * the most Inspector output read in all: an endless input (/dev/zero, a
 * FIFO) stops at a bound with a refusal rather than growing memory. */
#define CB_CALLS_MAX_RANKS (1 << 24)
#define CB_INSPECTOR_MAX_BYTES (4LL << 30)
/* A calls file is collbench's own, one line per (op, ranks, nodes, size). */
#define CB_CALLS_MAX_BYTES (256LL << 20)

struct cb_call {
  char op[24]; /* collbench's op ("allreduce"), or NCCL's name where it has none ("Reduce") */
  int known;   /* op is one of collbench's */
  int nranks, nnodes;
  uint64_t bytes;    /* collbench's row size: NCCL's count x type size, times the ranks for
                        allgather, reducescatter and alltoall (nccl-tests' convention) */
  long calls;        /* distinct calls */
  int comms;         /* communicators they were made on */
  double share;      /* of all the job's collective calls */
  double time_us;    /* NCCL's: the median over the calls of each call's slowest rank */
  double busbw_GBps; /* the median of the busbw NCCL logged with them */
};

struct cb_calls {
  struct cb_call *v;
  int n;
  long lines, p2p, calls; /* lines read, p2p lines passed over, calls counted */
  int files;
};

/* Reads Inspector files (a folder: every regular file in it); CB_USAGE
 * naming file and line for anything that is not Inspector output. */
int cb_inspector_read(const char *const *paths, int npaths, struct cb_calls *c,
                      struct cb_error *err);

/* The calls file: a header line {"type": "calls", ...} and one line per
 * call {"type": "call", "op", "nranks", "nnodes", "bytes", "calls", "comms",
 * "share", "time_us_nccl", "busbw_GBps_nccl"}, replaced whole. */
int cb_calls_write(const char *path, const char *option, const struct cb_calls *c,
                   struct cb_error *err);
int cb_calls_read(const char *path, struct cb_calls *c, struct cb_error *err);
void cb_calls_free(struct cb_calls *c);

/* The mode: --import-inspector FILE|DIR... [--out CALLS]: the calls as a
 * table on stdout, and the calls file when asked; no MPI. Prints its own
 * errors, returns the exit status. */
#define CB_MAX_INSPECTOR_INPUTS 256
struct cb_inspector_cli {
  const char *inputs[CB_MAX_INSPECTOR_INPUTS];
  int ninputs;
  const char *out;
};
int cb_inspector_run(const struct cb_inspector_cli *c);

#endif
