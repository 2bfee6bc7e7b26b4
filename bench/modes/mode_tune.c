/* --tune: the all-reduce settings and bucket size that lose least of a
 * training step to communication (tuner/), on the measuring modes'
 * options and error conventions; its options are read by cli.c through
 * cli_tune.c. */
#include <mpi.h>

#include "mode.h"
#include "run_modes.h"
#include "runtime/cluster.h"
#include "tuner/tune.h"

/* --tune: its own mode on the same cluster and error conventions. */
static int run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  const struct cb_cli *cli = &o->run;
  struct cb_cluster cl;
  if (cb_cluster_init(&cl, err))
    return err->status;
  struct cb_tune_options opt = cli->tune;
  opt.timeout = cli->settings.timeout; /* -T applies to each timed phase */
  int rc = cb_tune_run(&cl, &opt, &cli->settings, argc, argv, err);
  if (rc == CB_RUNTIME) { /* other ranks may be blocked in a call */
    cb_error_print(err);
    MPI_Abort(MPI_COMM_WORLD, rc);
  }
  cb_cluster_free(&cl);
  return rc;
}

static int chosen(const struct cb_cli *cli) {
  return cli->tune.enabled;
}

static int pre_mpi(const union cb_mode_options *o, int rank, struct cb_error *err) {
  cb_tune_pre_mpi_init(); /* first: the backends' pre-init reads Open MPI's variables */
  return cb_run_pre_mpi(&o->run, rank, err);
}

static enum cb_mode_mpi mpi(const union cb_mode_options *o) {
  (void)o;
  /* the tuner's all-reduces run on a communication thread */
  return CB_MPI_SERIALIZED;
}

const char cb_help_tune[] =
    "Tuning (mpirun; GPU: cuBLAS step, NCCL all-reduce on a stream of its own;\n"
    "host: OpenBLAS step, MPI all-reduce on a thread per rank):\n"
    "      --tune               find the all-reduce settings and gradient bucket size\n"
    "                           that lose least of a training step to communication;\n"
    "                           on GPU where nccl is usable, else host (--backend\n"
    "                           nccl or mpi chooses)\n"
    "      --workload NAME      tiny gpt2-124m gpt-1.3b llama-7b (default gpt2-124m;\n"
    "                           transformer layers only; float on host)\n"
    "      --workload-config LIST\n"
    "                           override the shape: hidden=,layers=,heads=,seq=,\n"
    "                           batch=,dtype= (e.g. seq=128,batch=2)\n"
    "      --exhaustive         measure the whole grid instead of coordinate descent\n"
    "      --no-search          only measure the launch settings (rho, T_*)\n"
    "      --tune-algorithms L  host: coll/tuned allreduce algorithms, 0 = Open MPI's\n"
    "                           own decision (default 0,1,2,3,4,5,6); GPU: NCCL_ALGO\n"
    "                           names and default (default: all NCCL runs here)\n"
    "      --tune-segments L    host: segment sizes for algorithm 5 (default\n"
    "                           16K,64K,256K,1M)\n"
    "      --tune-protocols L   GPU: NCCL_PROTO names and default (default all)\n"
    "      --tune-ctas L        GPU: CTA counts to try (ncclConfig_t; default none)\n"
    "      --tune-buckets L     bucket sizes, capped at the gradient bytes (default\n"
    "                           1M,2M,...,256M)\n"
    "      --tune-reps N        steps per configuration and measurement (default 10)\n"
    "      --env-out FILE       the tuned settings as a shell file to source\n"
    "      --plugin-out FILE    GPU: per-size rules for collbench's NCCL tuner plugin\n"
    "                           (or NCCL's example), from a sweep of each collective\n"
    "                           over algorithm x protocol (sizes from -b/-e/-f)\n"
    "      --trials FILE        JSON Lines, one line per measured configuration\n"
    "      --resume             continue the search recorded in --trials FILE\n"
    "      --max-overhead P     target for the step's communication overhead,\n"
    "                           (T_step - T_compute) / T_step: 20% or 0.2\n"
    "                           (default 20%); the summary says PASS or FAIL\n";

static const char *const help[] = {cb_help_tune, NULL};
const struct cb_mode_def cb_mode_tune = {
    .name = "tune",
    .option = "--tune",
    .synopsis = "mpirun -np N collbench --tune [--env-out FILE] [--trials FILE] [options]",
    .help = help,
    .chosen = chosen,
    .mpi = mpi,
    /* No argv to MPI_Init: Open MPI 4 would read our --tune as its own (a tune file). */
    .mpi_without_argv = 1,
    .pre_mpi = pre_mpi,
    .run = run,
    .on_error = cb_run_on_error,
};
