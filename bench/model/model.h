/* The alpha-beta performance model behind --fit and --predict: pure
 * functions (no MPI, no files), unit-tested against closed forms.
 *
 * A link tier costs alpha seconds per algorithm step (latency) and beta
 * seconds per byte (inverse bandwidth). An op's cost is a sum of steps
 * and bytes moved: fit.c finds alpha and beta from measured times using
 * the op's flat (ring) cost shape, predict.c applies ring, tree and
 * hierarchical shapes to larger systems, step.c plays out a training
 * step's gradient buckets against its compute. The formulas and their
 * assumptions are written out in bench/model/PLANNING.md. */
#ifndef CB_MODEL_H
#define CB_MODEL_H

#include <stdint.h>

/* The collectives the model knows; bytes are those of the records (the
 * whole gathered buffer for allgather, reducescatter and alltoall). */
enum cb_mop {
  CB_MOP_ALLREDUCE,
  CB_MOP_ALLGATHER,
  CB_MOP_REDUCESCATTER,
  CB_MOP_BROADCAST,
  CB_MOP_ALLTOALL,
  CB_NMOPS
};
extern const char *const cb_mop_names[CB_NMOPS];
int cb_mop_find(const char *name); /* -1 when the model has no such op */

enum cb_tier_kind { CB_TIER_INTRA, CB_TIER_INTER, CB_NTIERS };
extern const char *const cb_tier_kind_names[CB_NTIERS];

struct cb_link {
  int set;      /* 0: nothing known about this tier */
  double alpha; /* seconds per step */
  double beta;  /* seconds per byte; for inter-node: through one node's NICs */
  /* The rendezvous wait (bench/model/PLANNING.md): a step whose
   * message is at least `rndv` bytes waits for the receiver's go-ahead,
   * which queues behind up to `queue` bytes of the receiver's own sending:
   * gamma * min(message, queue) more. gamma 0: no wait (the plain model). */
  double gamma, rndv, queue;
};

/* Flat algorithm: time = steps * alpha + share * bytes * beta, for p ranks
 * on `nodes` nodes (ring; pairwise exchange for alltoall). */
struct cb_terms {
  double steps, share;
};
struct cb_terms cb_model_flat_terms(int op, int p, int nodes);
double cb_model_flat_time(int op, int p, int nodes, double bytes, const struct cb_link *l);

/* The cost shape of the algorithm a result records, so that a fit and its
 * predictions follow what the library ran (bench/model/PLANNING.md).
 * L = ceil(log2 p):
 *   ring     the flat terms above (ring, segmented ring, neighbor
 *            exchange, pairwise, chain and pipeline broadcast);
 *   log      L steps moving the ring's volume: recursive halving /
 *            doubling of the data (rabenseifner: 2L steps), bruck,
 *            butterfly, two_proc, PAT;
 *   doubling allreduce by recursive doubling: L steps, the whole buffer
 *            each step;
 *   tree     a pipelined tree (NCCL Tree, binomial and binary trees):
 *            allreduce 2L steps and the buffer up and down (2x);
 *   linear   through one root: 2(p-1) steps, the root moving p-1 buffers
 *            (reducescatter: the library's reduce, the algorithm Open
 *            MPI 4.1.4's rules pick for p and the buffer, then a linear
 *            scatter: p-1 more steps, (p-1)/p of the buffer). */
enum cb_cost_shape {
  CB_SHAPE_RING,
  CB_SHAPE_LOG,
  CB_SHAPE_DOUBLING,
  CB_SHAPE_TREE,
  CB_SHAPE_LINEAR,
  CB_NSHAPES
};
extern const char *const cb_shape_names[CB_NSHAPES];
/* The shape of a recorded algorithm name (Open MPI's "rabenseifner",
 * NCCL's "Tree"); -1 for a name the model has no shape for (NVLS...),
 * which is fitted apart with the ring's shape. "" (none recorded): ring. */
int cb_model_shape_of(int op, const char *algo);
/* bytes: the record's; it matters where the algorithm runs another one
 * chosen by size (basic_linear reduce-scatter's reduce). */
struct cb_terms cb_model_terms(int op, int shape, int p, int nodes, double bytes);
/* The bytes the rendezvous waits of one run stand for: the sum over its
 * steps of min(message, queue) for the messages of at least rndv bytes
 * (time = gamma times this). */
double cb_model_wait_bytes(int op, int shape, int p, int nodes, double bytes, double rndv,
                           double queue);
double cb_model_time(int op, int shape, int p, int nodes, double bytes, const struct cb_link *l);
/* 1 where the model's time is uncertain by a race (bench/model/PLANNING.md):
 * the shape's steps are exchanges with one peer at p ranks,
 * the link has a rendezvous wait (gamma > 0) and a step's message is at
 * least rndv, so whether its go-ahead waits behind the peer's message
 * depends on who wins: 1.0-2.3 times the shaped time measured, where the
 * model fits an average wait. shape -1: ring's. */
int cb_model_races(int op, int shape, int p, int nodes, double bytes, const struct cb_link *l);
/* The note --validate and --predict print on such a row ("race: [the
 * algorithms] " before it), and JSON's "uncertain". */
#define CB_RACE_NOTE "up to ~2x (rendezvous; bench/model/PLANNING.md)"
#define CB_RACE_JSON "rendezvous race"

/* nccl-tests' bus bandwidth (bytes/s) for a time, and its factor. */
double cb_model_busbw_factor(int op, int p);
double cb_model_busbw(int op, int p, double bytes, double time_s);

/* --- fit.c --- */
struct cb_fit_point {
  int nranks, nnodes;
  double bytes, time_s;
  int shape; /* enum cb_cost_shape of the algorithm that ran; 0: ring */
};
struct cb_fit {
  struct cb_link link;
  int npoints;
  double r2;                  /* of the times, 1 - SS_res / SS_tot */
  double median_rel, max_rel; /* |predicted - measured| / measured */
};
/* Weighted least squares on relative residuals (small and large sizes
 * count alike), through each point's cost shape; alpha and beta kept >= 0.
 * With enough points it also tries the rendezvous wait (gamma over a grid
 * of rndv and queue) and keeps it only where it explains the data better
 * for its three more figures (Akaike's criterion). Returns 0, or -1 when
 * the points cannot separate alpha from beta (fewer than two distinct sizes). */
int cb_model_fit(int op, const struct cb_fit_point *pts, int n, struct cb_fit *fit);

/* --- predict.c --- */
enum cb_algo { CB_ALGO_RING, CB_ALGO_TREE, CB_ALGO_HIER, CB_NALGOS };
extern const char *const cb_algo_names[CB_NALGOS];

/* One op's view of a system: its tiers and how many ranks share a node. */
struct cb_system {
  int ranks_per_node;
  struct cb_link tier[CB_NTIERS];
};

struct cb_prediction {
  double time_s; /* NaN: the algorithm does not apply or a tier is unknown */
  double busbw_Bps;
  int inter_algo; /* hierarchical only: the inter-node phase's algorithm (ring or tree) */
  int race;       /* a step races for the rendezvous go-ahead (cb_model_races) */
};
struct cb_prediction cb_model_predict(int op, int algo, const struct cb_system *s, int ngpus,
                                      double bytes);
/* The fastest algorithm that applies, or -1 when none does. */
int cb_model_best(int op, const struct cb_system *s, int ngpus, double bytes,
                  struct cb_prediction *best);

/* --- step.c --- */
/* An allreduce the fit's results recorded: at `bytes` on `nranks` ranks
 * (tier: one node or more) the library ran `algo` (NCCL: with `proto`);
 * cost it through that algorithm's shape on `link`, the fit --validate
 * would use for such a result. */
struct cb_recorded {
  int tier, nranks;
  double bytes;
  int shape; /* enum cb_cost_shape (ring for a name without a shape) */
  struct cb_link link;
  char algo[32], proto[16];
};
/* How a step is played out. overlap F (0..1): while a bucket's allreduce
 * runs before compute has ended, compute advances at F times its own
 * speed (1: communication hides for free, the plain model; 0: compute
 * waits for every allreduce, T_step = compute + all communication). rec
 * (n entries, may be 0): each bucket's allreduce is costed with the
 * algorithm recorded at the nearest measured size (then rank count) on the
 * bucket's tier; with none at that tier, the fastest modelled one. */
struct cb_step_opts {
  double overlap;
  const struct cb_recorded *rec;
  int nrec;
  /* set: every bucket's allreduce costs allreduce_s(ctx, ngpus, bytes)
   * seconds (NaN: cannot predict), in place of rec and the alpha-beta
   * algorithms: NCCL's own model for a GPU topology (nccl_predict.h) */
  double (*allreduce_s)(const void *ctx, int ngpus, double bytes);
  const void *ctx;
};
#define CB_STEP_DEFAULTS ((struct cb_step_opts){1, NULL, 0, NULL, NULL})
struct cb_step_result {
  int nbuckets;
  double comm_s;    /* sum of the buckets' allreduce times */
  double exposed_s; /* step time past compute_s (the tail, and compute slowed by overlap < 1) */
  double rho;       /* exposed_s / compute_s */
  /* the first (full) bucket's algorithm: a recorded one, or best (enum cb_algo) */
  const struct cb_recorded *rec;
  int best;
  int nrecorded; /* buckets costed with a recorded algorithm */
};
/* Gradients appear at a steady rate of compute progress during compute_s
 * (backward) and are allreduced bucket by bucket, one at a time, each as
 * soon as it is full and the previous one is done; the last bucket is
 * full only at the end of compute, so its whole time is exposed. opt NULL:
 * CB_STEP_DEFAULTS. Returns -1 when allreduce cannot be predicted for this
 * system. */
int cb_model_step(const struct cb_system *allreduce, int ngpus, double compute_s, double grad_bytes,
                  double bucket_bytes, const struct cb_step_opts *opt, struct cb_step_result *r);
/* The recorded entry for a bucket of `bytes` on ngpus ranks at `tier`, or NULL. */
const struct cb_recorded *cb_model_recorded_for(const struct cb_recorded *rec, int n, int tier,
                                                int ngpus, double bytes);
/* The overlap F at which the step a --tune run measured (compute_s,
 * comm_s for all its buckets, split in proportion to their bytes) has the
 * measured overlap efficiency 1 - (T_step - T_compute) / T_comm. Returns
 * 0 (*f in [0,1]), 1 when the efficiency lies outside what F in 0..1 gives
 * (*f the nearer end: below 0, communication slowed compute by more than
 * its own time), or -1 when F does not change the step (one bucket:
 * nothing overlaps; *f left alone). */
int cb_model_overlap_from_efficiency(double compute_s, double comm_s, double grad_bytes,
                                     double bucket_bytes, double efficiency, double *f);

/* --- scale.c --- */
/* Where the search for the largest scale stops: the model has one switch
 * tier between nodes, and a two-level fat tree of 64-port switches, one per
 * NIC rail, reaches 2048 nodes (16384 GPUs at 8 per node); larger fabrics
 * add a switch level (more hops, oversubscription) the model does not
 * describe, so a count past this would be a guess. */
#define CB_MODEL_MAX_GPUS 16384L
#define CB_MODEL_MAX_GPUS_WHY                                                                      \
  "the model has one switch tier between nodes; a two-level fat tree of 64-port switches "         \
  "reaches 2048 nodes per NIC rail, and past that fabrics add a level it does not describe"
struct cb_scale {
  long gpus;   /* the largest GPU count whose predicted overhead is within the target */
  int capped;  /* 1: still within at CB_MODEL_MAX_GPUS, the search's end */
  double next; /* the overhead at gpus + 1 (NaN when capped) */
};
/* The largest GPU count n at which the step's predicted overhead,
 * exposed / (compute + exposed), stays within `target`, found by doubling
 * and bisection: it assumes the overhead does not fall as n grows (true of
 * every cost shape in predict.c, each non-decreasing in n). Returns -1 when
 * the step cannot be predicted on this system. */
int cb_model_max_gpus(const struct cb_system *allreduce, double compute_s, double grad_bytes,
                      double bucket_bytes, double target, const struct cb_step_opts *opt,
                      struct cb_scale *out);

#endif
