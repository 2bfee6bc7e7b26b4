/* The measuring modes: a sweep (the default), --probe, --op copy,
 * --accept FILE and --matrix. They share the measuring options (cli.c)
 * and one frame over the run plan (run_plan.h: outputs checked, then
 * opened, the run record, the work, the outputs closed); each brings its
 * checks and its work. Their --help sections are here too. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accept/accept.h"
#include "accept/dry_run.h"
#include "accept/excluded.h"
#include "accept/hang.h"
#include "accept/matrix.h"
#include "backends/nccl_env.h"
#include "base/phase.h"
#include "burnin/burnin.h"
#include "burnin/judged_accept.h"
#include "cli.h"
#include "copy/copy.h"
#include "engine/engine.h"
#include "engine/plan_check.h"
#include "import/calls.h"
#include "mode.h"
#include "output/replace.h"
#include "probe/probe.h"
#include "run_modes.h"
#include "runtime/cluster.h"
#include "runtime/watchdog.h"

/* --junit FILE on an --accept or --matrix run (judged) that ends in an
 * error: the file says so (one error case), so CI sees the error, not a
 * missing file. */
static void junit_error(const char *junit, int judged, const struct cb_error *err) {
  if (junit && judged && (err->status == CB_USAGE || err->status == CB_RUNTIME))
    cb_junit_write_error(junit, err);
}

/* The outputs the plan names (rank 0 writes them). */
static int plan_outputs(const struct cb_run_plan *plan, struct cb_output outs[4]) {
  const struct cb_run_outputs *o = &plan->out;
  const struct cb_output all[] = {
      {o->json, "--json", 0, plan->resume ? cb_sink_jsonl_append : cb_sink_jsonl},
      {o->csv, "--csv", 0, cb_sink_csv},
      {o->prom, "--prom", 1, cb_sink_prom},
      {o->junit, "--junit", 1, cb_sink_junit},
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
static int check_outputs(const struct cb_run_plan *plan, int rank, struct cb_error *err) {
  struct cb_output outs[4];
  int nouts = rank == 0 ? plan_outputs(plan, outs) : 0;
  for (int i = 0; i < nouts; i++)
    if (cb_output_check(outs[i].path, outs[i].option,
                        outs[i].replace ? CB_OUT_REPLACE : CB_OUT_STREAM, err))
      return err->status;
  if (rank == 0 && plan->out.exclude &&
      cb_output_check(plan->out.exclude, "--exclude-out", CB_OUT_REPLACE, err))
    return err->status;
  return CB_OK;
}

/* --exclude-out FILE: the hosts a FAIL was laid to, each with why (none:
 * an empty file), replaced whole at the end as --prom is (issue 41). */
static int exclude_out(const char *path, const struct cb_cluster *cl, struct cb_accept_result *res,
                       int rc, struct cb_error *err) {
  cb_hang_unwatch();
  if (cl->rank == 0 && path && (rc == CB_OK || rc == CB_FAILED) && res->probe) {
    /* a failed write replaces acceptance's own outcome: it is a runtime error */
    struct cb_excluded x = {0};
    if (cb_excluded_from(&x, res))
      rc = cb_fail(err, CB_RUNTIME, "--exclude-out: out of memory");
    else if (cb_excluded_write(&x, path, err))
      rc = err->status;
    cb_hang_keep(&x); /* a hang at the end writes them again, with the hung host */
    cb_excluded_free(&x);
  }
  cb_accept_result_free(res);
  return rc;
}

/* What the frame (run_frame, below) hands a measuring mode: the cluster
 * and the plan, and, once the outputs are open, the probe, the run record
 * and the sinks (sinks[0] is the table). */
struct frame {
  const struct cb_cluster *cl;
  const struct cb_run_plan *plan;
  const struct cb_probe *probe; /* NULL until go */
  const struct cb_run_info *ri; /* NULL until go */
  struct cb_sink *sinks;
  int nsinks;
};

/* The fleet baseline acceptance judges against, as the plan holds it. */
static struct cb_fleet plan_fleet(const struct cb_run_plan *p) {
  return (struct cb_fleet){p->baseline.nentries ? &p->baseline : NULL, p->spec.baseline.k,
                           p->spec.baseline.min_runs, p->spec.baseline.repeat};
}

/* --accept (rules NULL: the plan's checks) or --matrix (its rules): one
 * run watched for a hang, or with --duration the mode's passes
 * (burnin/judged_accept.c). */
static int judged_run(const struct frame *f, const struct cb_matrix_rules *rules,
                      struct cb_error *err) {
  const struct cb_run_plan *p = f->plan;
  struct cb_judged_accept j = {rules ? NULL : &p->spec, rules, plan_fleet(p), f->ri,
                               p->out.exclude};
  cb_watchdog_phase(rules ? "the matrix (between its pairs)" : "acceptance (before the checks)");
  if (p->settings.duration > 0) /* a burn-in: the checks or the matrix again and again */
    return cb_burnin_accept(f->cl, &p->settings, &j, f->sinks, f->nsinks, err);
  struct cb_accept_result res;
  cb_hang_watch(f->cl, p->out.exclude, f->sinks, f->nsinks, &res, NULL);
  int rc = rules ? cb_matrix_run(f->cl, &p->settings, rules, f->ri, f->sinks, f->nsinks, &res, err)
                 : cb_accept_run(f->cl, &p->spec, &j.fleet, &p->settings, f->ri, f->sinks,
                                 f->nsinks, &res, err);
  return exclude_out(p->out.exclude, f->cl, &res, rc == CB_OK ? cb_accept_status(&res, err) : rc,
                     err);
}

/* Opens the outputs on rank 0 only, after everything was validated; every
 * path is checked before any file is opened and none is emptied before all
 * opened, so a bad command line never truncates an earlier result file. */
static int open_sinks(const struct cb_run_plan *plan, int rank, struct cb_sink *sinks, int *n,
                      struct cb_error *err) {
  *n = 0;
  if (rank != 0)
    return CB_OK;
  struct cb_output outs[4];
  int nouts = plan_outputs(plan, outs);
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

/* What differs between the measuring modes inside the frame: the checks
 * that can refuse the run (before any output is opened), and the
 * measuring itself. */
struct measuring {
  int (*validate)(const struct frame *f, struct cb_error *err);
  int (*go)(const struct frame *f, struct cb_error *err);
};

/* Every measuring mode's run: the cluster, the output paths checked, the
 * mode's own checks, the outputs opened, the run record and probe, the
 * mode's work, the outputs closed. Errors of one rank stop every rank. */
static int frame_body(const struct measuring *m, int argc, char **argv, struct cb_run_plan *plan,
                      const struct cb_cluster *cl, struct cb_error *err) {
  struct cb_settings *s = &plan->settings;
  s->progress = cl->rank == 0 && (plan->progress < 0 ? isatty(STDERR_FILENO) : plan->progress);
  if (s->root >= cl->nranks) {
    cb_fail(err, CB_USAGE, "--root %d: there are only %d ranks", s->root, cl->nranks);
    return err->status;
  }
  if (cb_cluster_agree(cl, check_outputs(plan, cl->rank, err)) != CB_OK) {
    return err->status ? err->status
                       : cb_fail(err, CB_USAGE, "cannot open the output files (rank 0 says why)");
  }
  if (plan->judged) /* a hang from here on names its host in --exclude-out */
    cb_hang_watch_hosts(cl, plan->out.exclude);
  struct frame f = {cl, plan, NULL, NULL, NULL, 0};
  /* every check that can refuse the run, before any output is opened */
  if (m->validate(&f, err)) {
    return err->status;
  }
  cb_phase("checked (outputs, the mode's own checks)");
  struct cb_sink sinks[6];
  int nsinks = 0, rc = open_sinks(plan, cl->rank, sinks, &nsinks, err);
  if (cb_cluster_agree(cl, rc) != CB_OK) {
    close_sinks(sinks, nsinks);
    return cb_fail(err, CB_USAGE, "cannot open the output files (rank 0 says why)");
  }
  struct cb_run_info ri;
  cb_run_info_collect(&ri, argc, argv, cl, s);
  cb_phase("run record (backends probed)");
  struct cb_probe probe; /* every run says what it ran on */
  cb_watchdog_phase("the probe (each node's hardware, links and error counters)");
  rc = cb_probe_collect(cl, &probe, err);
  cb_phase("node probed");
  ri.probe = cl->rank == 0 ? &probe : NULL;
  f.probe = &probe, f.ri = &ri, f.sinks = sinks, f.nsinks = nsinks;
  if (rc == CB_OK)
    rc = m->go(&f, err);
  cb_phase("the mode's work done");
  if (rc == CB_OK || rc == CB_FAILED) { /* every rank here before MPI_Finalize, still watched */
    cb_watchdog_phase("the end (every rank finishing)");
    MPI_Barrier(cl->comm);
  }
  cb_watchdog_phase(NULL);
  cb_hang_end();              /* before the probe, whose host names it keeps, is freed */
  struct cb_error cerr = {0}; /* a failed close (NFS, disk full) fails the run */
  if (cb_sinks_close(sinks, nsinks, &cerr) && (rc == CB_OK || rc == CB_FAILED)) {
    *err = cerr;
    rc = cerr.status;
  }
  cb_run_info_free(&ri);
  cb_probe_free(&probe);
  if ((rc == CB_RUNTIME || rc == CB_USAGE) && cl->rank == 0)
    junit_error(plan->out.junit, plan->judged, err);
  if ((rc == CB_RUNTIME || rc == CB_USAGE) && !err->agreed) { /* others may be blocked in a call */
    cb_error_print(err);
    MPI_Abort(MPI_COMM_WORLD, rc);
  }
  return rc;
}

static int run_frame(const struct measuring *m, int argc, char **argv, struct cb_run_plan *plan,
                     struct cb_error *err) {
  struct cb_cluster cl;
  int rc = cb_cluster_init(&cl, err);
  if (rc == CB_OK) {
    cb_phase("cluster known (hosts, ranks)");
    cb_watchdog_attach(&cl); /* a judged run's, started before MPI_Init */
    cb_watchdog_phase("setting up (the outputs and the mode's checks agreed)");
    rc = frame_body(m, argc, argv, plan, &cl, err);
  }
  cb_hang_end();
  cb_watchdog_stop(); /* a judged run's (no other runs here): before cl is freed */
  cb_cluster_free(&cl);
  return rc;
}

/* --resume --duration: the first part, read and checked before any output opens */
static struct cb_burnin_prior prior;

/* --sweep, or what --op/--backend/--mem name: the engine over its plan. */
static int sweep_validate(const struct frame *f, struct cb_error *err) {
  const struct cb_run_plan *p = f->plan;
  if (p->calls_path) /* its calls' sizes, not -b/-e */
    return cb_calls_fit(f->cl, &p->calls, p->calls_path, err);
  return cb_engine_validate(f->cl, &p->settings, err) ||
         cb_engine_plan_check(f->cl, &p->settings, err) ||
         (p->resume && cb_burnin_resume_read(f->cl, &p->settings, p->out.json, &prior, err));
}

static int sweep_go(const struct frame *f, struct cb_error *err) {
  const struct cb_run_plan *p = f->plan;
  struct cb_summary sum;
  if (p->settings.duration > 0) { /* --duration: a burn-in, judged over its passes */
    int rc = cb_burnin_run(f->cl, &p->settings, f->ri, p->resume ? &prior : NULL, f->sinks,
                           f->nsinks, &sum, err);
    cb_burnin_resume_free(&prior);
    return rc;
  }
  int rc;
  if (p->calls_path)
    rc = cb_calls_measure(f->cl, &p->settings, &p->calls, f->ri, f->sinks, f->nsinks, &sum.wrong,
                          err);
  else
    rc = cb_engine_run(f->cl, &p->settings, f->ri, f->sinks, f->nsinks, &sum, err);
  if (rc == CB_OK && sum.wrong > 0)
    rc = cb_fail(err, CB_FAILED, "FAILED: %ld wrong values", sum.wrong);
  return rc;
}

/* --op copy: the GPU copy matrix of each node. */
static int copy_validate(const struct frame *f, struct cb_error *err) {
  return cb_copy_validate(f->cl, &f->plan->settings, err);
}

static int copy_go(const struct frame *f, struct cb_error *err) {
  struct cb_summary sum;
  int rc = cb_copy_run(f->cl, &f->plan->settings, f->ri, f->sinks, f->nsinks, &sum, err);
  if (rc == CB_OK && sum.wrong > 0)
    rc = cb_fail(err, CB_FAILED, "FAILED: %ld wrong bytes in the copy matrix", sum.wrong);
  return rc;
}

/* --probe: nothing to refuse; the summary on stdout. */
static int probe_validate(const struct frame *f, struct cb_error *err) {
  (void)f, (void)err;
  return CB_OK;
}

static int probe_go(const struct frame *f, struct cb_error *err) {
  return run_probe(f->probe, f->ri, f->sinks, f->nsinks, err);
}

/* --accept FILE: the file's checks, verdicts, exit 1 on FAIL or INCONCLUSIVE. */
static int accept_validate(const struct frame *f, struct cb_error *err) {
  return cb_accept_validate(f->cl, &f->plan->spec, &f->plan->settings, err);
}

static int accept_go(const struct frame *f, struct cb_error *err) {
  return judged_run(f, NULL, err);
}

/* --matrix: all pairs, verdicts per node and link. */
static int matrix_validate(const struct frame *f, struct cb_error *err) {
  return cb_matrix_validate(f->cl, &f->plan->rules, err) ||
         cb_engine_validate(f->cl, &f->plan->settings, err);
}

static int matrix_go(const struct frame *f, struct cb_error *err) {
  return judged_run(f, &f->plan->rules, err);
}

/* Backends that fix their path at MPI_Init (MPI's shm or tcp) set it now:
 * from the command line, or from the acceptance file's checks (the CLI
 * made sure those agree). */
int cb_run_pre_mpi(struct cb_run_mode *r, int rank, struct cb_error *err) {
  const struct cb_cli *cli = &r->cli;
  const struct cb_run_plan *plan = &r->plan;
  const struct cb_accept_spec *t = &plan->spec;
  if (cb_run_plan_build(cli, &r->plan, err))
    return err->status;
  for (int i = 0; i < cli->nrenamed && rank == 0; i++) /* the old spelling still works */
    fprintf(stderr, "collbench: --%s is now --%s (the old name works for this release)\n",
            cli->renamed[i], cb_option_new_name(cli->renamed[i]));
  if (cli->accept_path && t->renamed[0] && rank == 0)
    fprintf(stderr, "collbench: %s\n", t->renamed);
  /* every mode, --accept included: NCCL refuses two ranks on one GPU
   * ("Duplicate GPU detected") unless each has its own host id */
  if (plan->settings.share_gpu) {
    char kept[512] = "";
    cb_nccl_share_gpu_env(rank, kept, sizeof kept);
    if (kept[0] && rank == 0)
      fprintf(stderr, "collbench: --share-gpu: keeping what you set: %s\n", kept);
    if (!cb_mps_running(getenv("CUDA_MPS_PIPE_DIRECTORY")) && rank == 0)
      fprintf(stderr,
              "collbench: --share-gpu: warning: no MPS control daemon (its pipe is not in %s): "
              "ranks on one GPU take turns and NCCL's kernels spin waiting for each other; "
              "start it first (nvidia-cuda-mps-control -d)\n",
              getenv("CUDA_MPS_PIPE_DIRECTORY") ? getenv("CUDA_MPS_PIPE_DIRECTORY")
                                                : CB_MPS_DEFAULT_PIPE_DIR);
  }
  /* --accept and --matrix judge a cluster in which a node may hang at any
   * moment: --timeout watches the whole run from here, MPI_Init included
   * (run_frame names each phase) */
  if (plan->judged && !plan->dry_run &&
      cb_watchdog_start_early(plan->settings.timeout, "start-up (MPI_Init, the ranks meeting)"))
    return cb_fail(err, CB_RUNTIME, "cannot start the watchdog thread");
  if (cli->accept_path) {
    for (int i = 0; i < t->nchecks; i++) {
      int b = cb_backend_lookup(t->checks[i].backend_name);
      if (b >= 0 && cb_backends[b]->pre_mpi_init &&
          cb_backends[b]->pre_mpi_init(t->checks[i].transport, err))
        return err->status;
    }
    return CB_OK;
  }
  for (int b = 0; b < plan->settings.nbackends; b++) {
    const struct cb_backend *be = cb_backends[plan->settings.backends[b]];
    if (be->pre_mpi_init && be->pre_mpi_init(plan->settings.transports[0], err))
      return err->status;
  }
  return CB_OK;
}

static int pre_mpi(union cb_mode_options *o, int rank, struct cb_error *err) {
  return cb_run_pre_mpi(&o->run, rank, err);
}

static enum cb_mode_mpi single(const union cb_mode_options *o) {
  (void)o;
  /* Plain MPI_Init like the OSU benchmarks and NetPIPE: asking Open MPI
   * for MPI_THREAD_FUNNELED costs about 40 ns per small message here.
   * The watchdog thread never calls MPI. */
  return CB_MPI_SINGLE;
}

static enum cb_mode_mpi accept_mpi(const union cb_mode_options *o) {
  if (o->run.plan.dry_run) /* the checks' levels from the file alone */
    return CB_MPI_NONE;
  /* [step] checks run the tuner's step, whose all-reduces use a thread */
  return o->run.plan.spec.nsteps > 0 ? CB_MPI_SERIALIZED : CB_MPI_SINGLE;
}

/* Also where argv or the plan was refused: what argv said, then. */
void cb_run_on_error(const union cb_mode_options *o, const struct cb_error *err) {
  const struct cb_cli *cli = &o->run.cli;
  junit_error(cli->junit_path, cli->accept_path || cli->matrix, err);
}

#define MEASURING_RUN(NAME)                                                                        \
  static int NAME##_run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {   \
    static const struct measuring m = {NAME##_validate, NAME##_go};                                \
    return run_frame(&m, argc, argv, &o->run.plan, err);                                           \
  }
MEASURING_RUN(sweep)
MEASURING_RUN(copy)
MEASURING_RUN(probe)
MEASURING_RUN(matrix)

static int accept_run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  static const struct measuring m = {accept_validate, accept_go};
  if (o->run.plan.dry_run) /* the checks' levels from the file alone, without MPI */
    return cb_accept_dry_run(&o->run.plan.spec, 0, 0, stdout, err);
  return run_frame(&m, argc, argv, &o->run.plan, err);
}

static int is_copy(const struct cb_cli *cli) {
  return cli->copy;
}
static int is_probe(const struct cb_cli *cli) {
  return cli->probe;
}
static int is_accept(const struct cb_cli *cli) {
  return cli->accept_path != NULL;
}
static int is_matrix(const struct cb_cli *cli) {
  return cli->matrix;
}
static int always(const struct cb_cli *cli) {
  (void)cli;
  return 1;
}

static const enum cb_section sweep_help[] = {CB_SEC_WHAT,     CB_SEC_SIZES, CB_SEC_TIMING,
                                             CB_SEC_UCX,      CB_SEC_VERBS, CB_SEC_GPUS,
                                             CB_SEC_CHECKING, CB_SEC_NONE};
static const enum cb_section copy_help[] = {CB_SEC_WHAT, CB_SEC_GPUS, CB_SEC_CHECKING, CB_SEC_NONE};
static const enum cb_section probe_help[] = {CB_SEC_CHECKING, CB_SEC_NONE};
static const enum cb_section accept_help[] = {CB_SEC_ACCEPT, CB_SEC_TIMING, CB_SEC_GPUS,
                                              CB_SEC_CHECKING, CB_SEC_NONE};

/* --help, --version or --list with a measuring mode's options: the help
 * mode; a sweep when no other measuring mode is asked for (the parser
 * refuses two of the others together). */
static const char *const after_help[] = {"help", NULL};
static const char *const after_all[] = {"help", "tune", "accept", "matrix", "probe", "copy", NULL};

#define MEASURING_MODE(NAME, OPTION, SYNOPSIS, HELP, CHOSEN, MPI, YIELDS)                          \
  const struct cb_mode_def cb_mode_##NAME = {                                                      \
      .name = #NAME,                                                                               \
      .option = OPTION,                                                                            \
      .synopsis = SYNOPSIS,                                                                        \
      .sections = HELP,                                                                            \
      .yields = YIELDS,                                                                            \
      .chosen = CHOSEN,                                                                            \
      .mpi = MPI,                                                                                  \
      .pre_mpi = pre_mpi,                                                                          \
      .run = NAME##_run,                                                                           \
      .on_error = cb_run_on_error,                                                                 \
  }
MEASURING_MODE(copy, 0, "mpirun -np N collbench --op copy [-e SIZE] [--json FILE]", copy_help,
               is_copy, single, after_help);
MEASURING_MODE(probe, OPT_PROBE, "mpirun -np N collbench --probe [--json FILE]", probe_help,
               is_probe, single, after_help);
MEASURING_MODE(accept, OPT_ACCEPT,
               "mpirun -np N collbench --accept FILE [--baseline FILE] [options]", accept_help,
               is_accept, accept_mpi, after_help);
MEASURING_MODE(matrix, OPT_MATRIX, "mpirun -np N collbench --matrix[=SIZE] [options]", accept_help,
               is_matrix, single, after_help);
MEASURING_MODE(sweep, OPT_SWEEP, "mpirun -np N collbench [--sweep] [options]", sweep_help, always,
               single, after_all);
