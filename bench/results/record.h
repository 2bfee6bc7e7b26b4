/* The measurement record: the engine fills it; every output (table, CSV,
 * JSON Lines, and later reports, acceptance, tuner) reads it. */
#ifndef CB_RECORD_H
#define CB_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct cb_record {
  const char *op, *backend, *mem, *dtype, *redop, *mode;
  char transport[32];
  int inplace, root;
  uint64_t bytes;
  size_t count;
  int nranks, nnodes;
  long iters;                /* op executions timed */
  long samples;              /* timed batches (throughput) or iterations (latency); 0 unknown */
  long batch_min, batch_max; /* ops per timed sample, fewest and most; 0 unknown */
  /* time of one op, microseconds. time_us is the statistic `stat` names
   * ("median", "mean" or "min": --stat), which algbw and busbw follow.
   * The median, min, max and percentiles are over samples; the mean is the
   * anchors' (nccl-tests, OSU, IMB): total time over iterations. NAN:
   * unknown (imported records; written as null). */
  const char *stat;
  double time_us, time_us_median, time_us_mean, time_us_min, time_us_max;
  double time_us_p5, time_us_p95, time_us_p99;
  double ci95_us;        /* half-width of the 95% CI of the median */
  double time_us_stddev; /* of per-sample times; not written */
  /* which tool measured it: "collbench", or "nccl-tests" (--import-nccl-tests) */
  const char *source;
  /* median by the device's clock (CUDA events around the same batches);
   * 0 when the backend has none. Written to JSON only when there is one. */
  double time_us_gpu;
  double algbw_GBps, busbw_GBps; /* GB = 1e9 bytes, from time_us */
  long wrong;                    /* wrong elements over all ranks; -1: not checked */
  /* The link's data rate when the backend knows it (verbs: port speed x
   * width), and algbw as a percentage of it; 0: unknown. */
  double line_gbps, line_rate_pct;
  /* The algorithm and protocol NCCL chose at this size (nccl backend,
   * from its TUNING log: "Ring", "Simple"); "" when unknown, and then not
   * written to JSON. */
  char nccl_algo[32], nccl_proto[16];
  int nccl_channels; /* the channels it ran on (the most, if it varied); 0 unknown */
  /* What NCCL ran for the row's measured calls, per collbench's profiler
   * plugin ("Ring/Simple/4", or each combination with its calls); "" when
   * unknown. nccl_ran_other: 1 when that is not the NCCL_ALGO the run
   * asked for (NCCL fell back), 0 as asked or nothing asked. */
  char nccl_ran[96];
  int nccl_ran_other;
  int nccl_profiler; /* the plugin version NCCL picked (2..6); 0 with no nccl_ran */
  /* How NCCL used the network (issue 41): the devices its NET plugin
   * listed (0 unknown), GPUDirect RDMA 1 used, -1 not used, 0 unknown */
  int nccl_nics, nccl_gdr;
  /* The algorithm the library ran (mpi: Open MPI coll/tuned's name,
   * "ring") and how it was chosen: "forced" (the run set it) or "rules"
   * (the library's fixed decision rules, as collbench transcribed them);
   * "" when unknown, and then not written to JSON. */
  char algo[32], algo_by[8];
  /* 1: auto iterations ended (--max-time) with the median's 95% CI still
   * wider than --precision: the figure is less certain than asked. 0:
   * reached, or not judged (--iters N, imported records). */
  int noisy;
  /* 1: --rotate, each timed call on the next slice of a 256 MiB buffer
   * (cold caches, as nccl-tests times); written only then */
  int rotate;
  /* alltoallv: --skew's label ("uniform", "zipf:1.2", "file:NAME"); "" for
   * the other ops, and then not written */
  char skew[96];
  /* --register: "local" or "symmetric" (nccl's buffers registered); "" for
   * none, and then not written */
  char reg[12];
  /* --concurrent: the --parallel dimension whose communicator the op ran on
   * ("tp"; nranks is its group's size, nnodes rank 0's group's nodes), the
   * layout ("tp=2,dp=2") and the ops run together ("allreduce@tp,
   * allgather@dp"); the same op alone in the same rounds (its median time
   * and busbw), and the paired slowdown: the median over rounds of together
   * / alone, with its 95% CI's ends. "" and unwritten otherwise. */
  char comm[8], parallel[48], concurrent[96];
  double time_us_alone, busbw_GBps_alone, slowdown, slowdown_lo, slowdown_hi;
  /* --duration: the burn-in pass this was measured in and the pass's
   * wall-clock start (Unix seconds); 0 outside a burn-in, and then not
   * written. */
  int interval;
  double interval_start;
};

/* Makes time_us the statistic `stat` (enum cb_stat) names, and algbw and
 * busbw follow it: algbw = algbw_bytes / time_us, busbw = algbw x factor. */
void cb_record_choose(struct cb_record *r, int stat, uint64_t algbw_bytes, double busbw_factor);

/* One row of the table: the same op and size out of place and in place. */
struct cb_row {
  const struct cb_record *outofplace, *inplace; /* NULL when not run */
};

/* A series of rows sharing everything but size. */
struct cb_series {
  const char *op, *backend, *mem, *dtype, *redop, *mode;
  char transport[32];
  int root, nranks, nnodes;
  /* what the table shows: an in-place variant (else no in-place columns),
   * and whether the figure is a latency (then no bandwidth columns) */
  int has_inplace, latency;
  const char *skew;              /* alltoallv: --skew's label; NULL for the other ops */
  const char *comm, *concurrent; /* --concurrent: the dimension and the ops; NULL otherwise */
};

#endif
