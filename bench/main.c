/* collbench's entry point: parse, start MPI, run the engine, report.
 * Every error arrives here as a return value and is reported once. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept/accept.h"
#include "accept/matrix.h"
#include "backends/nccl_env.h"
#include "base/blas_threads.h"
#include "modes/cli.h"
#include "fleet/compare.h"
#include "config.h"
#include "copy/copy.h"
#include "core/engine.h"
#include "gitversion.h"
#include "import/import.h"
#include "base/interrupt.h"
#include "model/commands.h"
#include "output/replace.h"
#include "core/plan_check.h"
#include "probe/probe.h"
#include "report/report.h"
#include "tuner/tune.h"

/* Before MPI_Init only the launcher's environment knows our rank. */
static int launcher_rank(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                     "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv(vars[i]))
      return atoi(getenv(vars[i]));
  return 0;
}

static void report(const struct cb_error *err) {
  fprintf(stderr, "collbench: %s%s\n", err->status == CB_USAGE ? "" : "error: ", err->msg);
}

/* --junit FILE on an --accept or --matrix run that ends in an error: the
 * file says so (one error case), so CI sees the error, not a missing file. */
static void junit_error(const struct cb_cli *cli, const struct cb_error *err) {
  if (cli->junit_path && (cli->accept_path || cli->matrix) &&
      (err->status == CB_USAGE || err->status == CB_RUNTIME))
    cb_junit_write_error(cli->junit_path, err);
}

static void print_version(void) {
  printf("collbench %s (git %s)\nconfigured: %s\n", CB_VERSION, CB_GIT_COMMIT, CB_CONFIG_SUMMARY);
}

/* The outputs the command line names (rank 0 writes them). */
static int cli_outputs(const struct cb_cli *cli, struct cb_output outs[4]) {
  const struct cb_output all[] = {
      {cli->json_path, "--json", 0, cb_sink_jsonl},
      {cli->csv_path, "--csv", 0, cb_sink_csv},
      {cli->prom_path, "--prom", 1, cb_sink_prom},
      {cli->junit_path, "--junit", 1, cb_sink_junit},
  };
  int nouts = 0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (all[i].path)
      outs[nouts++] = all[i];
  return nouts;
}

/* Rank 0: whether every output path can be written, said before the run's
 * other checks (a path is the first thing a user fixes) and before any
 * file is opened. */
static int check_outputs(const struct cb_cli *cli, int rank, struct cb_error *err) {
  struct cb_output outs[4];
  int nouts = rank == 0 ? cli_outputs(cli, outs) : 0;
  for (int i = 0; i < nouts; i++)
    if (cb_output_check(outs[i].path, outs[i].option,
                        outs[i].replace ? CB_OUT_REPLACE : CB_OUT_STREAM, err))
      return err->status;
  return CB_OK;
}

/* Opens the outputs on rank 0 only, after everything was validated; every
 * path is checked before any file is opened and none is emptied before all
 * opened, so a bad command line never truncates an earlier result file. */
static int open_sinks(const struct cb_cli *cli, int rank, struct cb_sink *sinks, int *n,
                      struct cb_error *err) {
  *n = 0;
  if (rank != 0)
    return CB_OK;
  struct cb_output outs[4];
  int nouts = cli_outputs(cli, outs);
  if (cb_sink_table(stdout, &sinks[*n], err))
    return err->status;
  (*n)++;
  return cb_sinks_open(outs, nouts, sinks, n, err);
}

static void close_sinks(struct cb_sink *sinks, int n) {
  struct cb_error ignored = {0}; /* the run failed already */
  cb_sinks_close(sinks, n, &ignored);
}

/* --probe: the summary on stdout (rank 0), the run record (which carries
 * the probe) in the other outputs. */
static int run_probe(const struct cb_probe *probe, const struct cb_run_info *ri,
                     struct cb_sink *sinks, int nsinks, struct cb_error *err) {
  for (int n = 0; n < probe->nnodes; n++)
    cb_probe_print(stdout, &probe->nodes[n]);
  fflush(stdout);
  for (int i = 1; i < nsinks; i++) /* sinks[0] is the table */
    if (sinks[i].run && sinks[i].run(sinks[i].state, ri, err))
      return err->status;
  return CB_OK;
}

static int run(int argc, char **argv, struct cb_cli *cli, struct cb_error *err) {
  struct cb_cluster cl;
  if (cb_cluster_init(&cl, err))
    return err->status;
  struct cb_settings *s = &cli->settings;
  s->progress = cl.rank == 0 && (cli->progress < 0 ? isatty(STDERR_FILENO) : cli->progress);
  if (s->root >= cl.nranks) {
    cb_fail(err, CB_USAGE, "--root %d: there are only %d ranks", s->root, cl.nranks);
    cb_cluster_free(&cl);
    return err->status;
  }
  if (cb_cluster_agree(&cl, check_outputs(cli, cl.rank, err)) != CB_OK) {
    cb_cluster_free(&cl);
    return err->status ? err->status
                       : cb_fail(err, CB_USAGE, "cannot open the output files (rank 0 says why)");
  }
  struct cb_matrix_rules rules = {.bytes = cli->matrix_bytes};
  cb_matrix_rules_defaults(&rules);
  /* every check that can refuse the run, before any output is opened */
  if (cli->copy          ? cb_copy_validate(&cl, s, err)
      : cli->probe       ? CB_OK
      : cli->accept_path ? cb_accept_validate(&cl, &cli->topology, s, err)
      : cli->matrix      ? cb_matrix_validate(&cl, &rules, err) || cb_engine_validate(&cl, s, err)
                         : cb_engine_validate(&cl, s, err) || cb_engine_plan_check(&cl, s, err)) {
    cb_cluster_free(&cl);
    return err->status;
  }
  struct cb_sink sinks[6];
  int nsinks = 0, rc = open_sinks(cli, cl.rank, sinks, &nsinks, err);
  if (cb_cluster_agree(&cl, rc) != CB_OK) {
    close_sinks(sinks, nsinks);
    cb_cluster_free(&cl);
    return cb_fail(err, CB_USAGE, "cannot open the output files (rank 0 says why)");
  }
  struct cb_run_info ri;
  cb_run_info_collect(&ri, argc, argv, &cl, s);
  struct cb_probe probe; /* every run says what it ran on */
  rc = cb_probe_collect(&cl, &probe, err);
  ri.probe = cl.rank == 0 ? &probe : NULL;
  if (rc != CB_OK) {
  } else if (cli->probe) {
    rc = run_probe(&probe, &ri, sinks, nsinks, err);
  } else if (cli->copy) {
    struct cb_summary sum;
    rc = cb_copy_run(&cl, s, &ri, sinks, nsinks, &sum, err);
    if (rc == CB_OK && sum.wrong > 0)
      rc = cb_fail(err, CB_FAILED, "FAILED: %ld wrong bytes in the copy matrix", sum.wrong);
  } else if (cli->accept_path || cli->matrix) {
    struct cb_accept_result res;
    struct cb_fleet fleet = {cli->baseline.nentries ? &cli->baseline : NULL,
                             cli->topology.baseline.k, cli->topology.baseline.min_runs,
                             cli->topology.baseline.repeat};
    rc = cli->accept_path
             ? cb_accept_run(&cl, &cli->topology, &fleet, s, &ri, sinks, nsinks, &res, err)
             : cb_matrix_run(&cl, s, &rules, &ri, sinks, nsinks, &res, err);
    if (rc == CB_OK)
      rc = cb_accept_status(&res, err);
  } else {
    struct cb_summary sum;
    rc = cb_engine_run(&cl, s, &ri, sinks, nsinks, &sum, err);
    if (rc == CB_OK && sum.wrong > 0)
      rc = cb_fail(err, CB_FAILED, "FAILED: %ld wrong values", sum.wrong);
  }
  struct cb_error cerr = {0}; /* a failed close (NFS, disk full) fails the run */
  if (cb_sinks_close(sinks, nsinks, &cerr) && (rc == CB_OK || rc == CB_FAILED)) {
    *err = cerr;
    rc = cerr.status;
  }
  cb_run_info_free(&ri);
  cb_probe_free(&probe);
  if (rc == CB_RUNTIME || rc == CB_USAGE) { /* other ranks may be blocked in a call */
    report(err);
    if (cl.rank == 0)
      junit_error(cli, err);
    MPI_Abort(MPI_COMM_WORLD, rc);
  }
  cb_cluster_free(&cl);
  return rc;
}

/* Backends that fix their path at MPI_Init (MPI's shm or tcp) set it now:
 * from the command line, or from the acceptance file's checks (the CLI
 * made sure those agree). */
static int pre_mpi_init(const struct cb_cli *cli, struct cb_error *err) {
  const struct cb_topology *t = &cli->topology;
  /* every mode, --accept included: NCCL refuses two ranks on one GPU
   * ("Duplicate GPU detected") unless each has its own host id */
  if (cli->settings.share_gpu) {
    char kept[512] = "";
    cb_nccl_share_gpu_env(launcher_rank(), kept, sizeof kept);
    if (kept[0] && launcher_rank() == 0)
      fprintf(stderr, "collbench: --share-gpu: keeping what you set: %s\n", kept);
    if (!cb_mps_running(getenv("CUDA_MPS_PIPE_DIRECTORY")) && launcher_rank() == 0)
      fprintf(stderr,
              "collbench: --share-gpu: warning: no MPS control daemon (its pipe is not in %s): "
              "ranks on one GPU take turns and NCCL's kernels spin waiting for each other; "
              "start it first (nvidia-cuda-mps-control -d)\n",
              getenv("CUDA_MPS_PIPE_DIRECTORY") ? getenv("CUDA_MPS_PIPE_DIRECTORY")
                                                : CB_MPS_DEFAULT_PIPE_DIR);
  }
  if (cli->accept_path) {
    for (int i = 0; i < t->nchecks; i++) {
      int b = cb_backend_lookup(t->checks[i].backend_name);
      if (b >= 0 && cb_backends[b]->pre_mpi_init &&
          cb_backends[b]->pre_mpi_init(t->checks[i].transport, err))
        return err->status;
    }
    return CB_OK;
  }
  for (int b = 0; b < cli->settings.nbackends; b++) {
    const struct cb_backend *be = cb_backends[cli->settings.backends[b]];
    if (be->pre_mpi_init && be->pre_mpi_init(cli->settings.transports[0], err))
      return err->status;
  }
  return CB_OK;
}

/* --tune: its own mode on the same cluster and error conventions. */
static int run_tune(int argc, char **argv, const struct cb_cli *cli, struct cb_error *err) {
  struct cb_cluster cl;
  if (cb_cluster_init(&cl, err))
    return err->status;
  struct cb_tune_options opt = cli->tune;
  opt.timeout = cli->settings.timeout; /* -T applies to each timed phase */
  int rc = cb_tune_run(&cl, &opt, &cli->settings, argc, argv, err);
  if (rc == CB_RUNTIME) { /* other ranks may be blocked in a call */
    report(err);
    MPI_Abort(MPI_COMM_WORLD, rc);
  }
  cb_cluster_free(&cl);
  return rc;
}

int main(int argc, char **argv) {
  struct cb_cli cli;
  struct cb_error err = {0};
  int printer = launcher_rank() == 0;
  cb_interrupt_install(printer); /* Ctrl-C: exit 3, outputs whole */
  if (cb_cli_wants_import(argc, argv) || cb_cli_wants_report(argc, argv) ||
      cb_cli_wants_model(argc, argv) || cb_cli_wants_compare(argc, argv) ||
      cb_cli_wants_baseline(argc, argv))
    cb_blas_threads_stop();              /* file modes call no BLAS: no thread outlives main */
  if (cb_cli_wants_import(argc, argv)) { /* reads a file, writes records: no MPI */
    struct cb_import_cli imp;
    if (cb_cli_parse_import(argc, argv, &imp, &err)) {
      fprintf(stderr, "collbench: %s\nTry 'collbench --help'.\n", err.msg);
      return err.status;
    }
    return cb_import_run(&imp);
  }
  if (cb_cli_wants_report(argc, argv)) { /* reads files only: no MPI */
    struct cb_report_cli rep;
    if (cb_cli_parse_report(argc, argv, &rep, &err)) {
      fprintf(stderr, "collbench: %s\nTry 'collbench --help'.\n", err.msg);
      return err.status;
    }
    return cb_report(&rep);
  }
  if (cb_cli_wants_model(argc, argv)) { /* the performance model: files only, no MPI */
    struct cb_model_cli model;
    if (cb_cli_parse_model(argc, argv, &model, &err)) {
      fprintf(stderr, "collbench: %s\nTry 'collbench --help'.\n", err.msg);
      return err.status;
    }
    return cb_model_run(&model);
  }
  if (cb_cli_wants_compare(argc, argv)) { /* two files: no MPI */
    struct cb_compare_cli cmp;
    if (cb_cli_parse_compare(argc, argv, &cmp, &err)) {
      fprintf(stderr, "collbench: %s\nTry 'collbench --help'.\n", err.msg);
      return err.status;
    }
    return cb_compare_main(&cmp);
  }
  if (cb_cli_wants_baseline(argc, argv)) { /* --json runs to a baseline: no MPI */
    struct cb_baseline_cli bl;
    if (cb_cli_parse_baseline(argc, argv, &bl, &err)) {
      fprintf(stderr, "collbench: %s\nTry 'collbench --help'.\n", err.msg);
      return err.status;
    }
    return cb_baseline_main(&bl);
  }
  if (cb_cli_parse(argc, argv, &cli, &err)) {
    if (printer) {
      fprintf(stderr, "collbench: %s\nTry 'collbench --help'.\n", err.msg);
      junit_error(&cli, &err);
    }
    return err.status;
  }
  if (cli.help || cli.version || cli.list) {
    if (printer) {
      if (cli.help)
        cb_cli_usage(stdout);
      if (cli.version)
        print_version();
      if (cli.list)
        cb_cli_list(stdout);
    }
    return 0;
  }
  if (pre_mpi_init(&cli, &err)) {
    if (printer) {
      report(&err);
      junit_error(&cli, &err);
    }
    return err.status;
  }

  /* Plain MPI_Init like the OSU benchmarks and NetPIPE: asking Open MPI for
   * MPI_THREAD_FUNNELED costs about 40 ns per small message here. The
   * watchdog thread never calls MPI. */
  if (cli.tune.enabled) {
    /* The tuner's all-reduces run on a communication thread. No argv:
     * Open MPI 4 would read our --tune as its own (a tune file). */
    cb_tune_pre_mpi_init();
    int provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
  } else if (cli.accept_path && cli.topology.nsteps > 0) {
    /* [step] checks run the tuner's step, whose all-reduces use a thread */
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  cb_interrupt_install(printer); /* again: ours, whatever MPI_Init set */
  int nranks, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = cb_cluster_check_launch(nranks, &err);
  if (rc != CB_OK) { /* every process is rank 0 here: let the launcher's rank 0 speak */
    if (printer) {
      report(&err);
      junit_error(&cli, &err);
    }
    MPI_Finalize();
    return rc;
  }
  rc = cli.tune.enabled ? run_tune(argc, argv, &cli, &err) : run(argc, argv, &cli, &err);
  if (rc != CB_OK && rank == 0) {
    report(&err);
    junit_error(&cli, &err);
  }
  MPI_Finalize();
  return rc;
}
