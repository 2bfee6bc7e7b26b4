/* --tune: the all-reduce settings and bucket size that lose least of a
 * training step to communication (tuner/), on the measuring modes'
 * options and error conventions; its options are read by cli.c through
 * cli_tune.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mode.h"
#include "run_modes.h"
#include "runtime/cluster.h"
#include "tuner/tune.h"

/* Open MPI 4's mpirun reads a --tune anywhere on its command line as its
 * own --tune FILE (open-mpi/ompi#6372) and prints "Unable to locate the
 * variable file" with the next argument once per process, which reads as
 * if that option were lost: said here, where the user sees it. The run
 * itself has every argument. */
static void say_mpirun_tune(int argc, char **argv, int rank) {
  if (rank != 0 || !getenv("OMPI_COMM_WORLD_SIZE") || argc < 2 ||
      strcmp(argv[argc - 1], "--tune") == 0)
    return;
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--tune") == 0) {
      fprintf(stderr,
              "collbench: note: any \"Unable to locate the variable file \"%s\"\" above is Open "
              "MPI's mpirun reading --tune as its own option; collbench has %s and every other "
              "argument. Put --tune last to avoid the message.\n",
              argv[i + 1], argv[i + 1]);
      return;
    }
}

/* --tune: its own mode on the same cluster and error conventions. */
static int run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  const struct cb_run_plan *plan = &o->run.plan;
  struct cb_cluster cl;
  if (cb_cluster_init(&cl, err))
    return err->status;
  say_mpirun_tune(argc, argv, cl.rank);
  struct cb_tune_options opt = plan->tune;
  opt.timeout = plan->settings.timeout; /* -T applies to each timed phase */
  int rc = cb_tune_run(&cl, &opt, &plan->settings, argc, argv, err);
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

static int pre_mpi(union cb_mode_options *o, int rank, struct cb_error *err) {
  cb_tune_pre_mpi_init(); /* first: the backends' pre-init reads Open MPI's variables */
  return cb_run_pre_mpi(&o->run, rank, err);
}

static enum cb_mode_mpi mpi(const union cb_mode_options *o) {
  (void)o;
  /* the tuner's all-reduces run on a communication thread */
  return CB_MPI_SERIALIZED;
}

static const enum cb_section help[] = {CB_SEC_TUNE, CB_SEC_NONE};
static const char *const yields[] = {"help", NULL};
const struct cb_mode_def cb_mode_tune = {
    .name = "tune",
    .option = OPT_TUNE,
    .synopsis = "mpirun -np N collbench --tune [--env-out FILE] [--trials FILE] [options]",
    .sections = help,
    .yields = yields,
    .chosen = chosen,
    .mpi = mpi,
    /* No argv to MPI_Init: Open MPI 4 would read our --tune as its own (a tune file). */
    .mpi_without_argv = 1,
    .pre_mpi = pre_mpi,
    .run = run,
    .on_error = cb_run_on_error,
};
