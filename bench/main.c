/* collbench's entry point: the mode the command line asks for (one lookup
 * in the modes' table, bench/modes/modes.c), MPI started at the level it
 * needs, its work run. Every error arrives here as a return value and is
 * reported once, but for one: a rank that ends the job with MPI_Abort,
 * because others may be blocked in a call, prints its error first
 * (modes/mode_run.c), as the abort leaves no way back here. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/exit_now.h"
#include "base/interrupt.h"
#include "base/phase.h"
#include "base/text.h"
#include "modes/modes.h"
#include "runtime/cluster.h"

/* Options that do not parse: said by the launcher's rank 0 with the
 * --help hint, and in the mode's --junit file. The other ranks refused the
 * same argv alike and leave the status to rank 0: under mpirun their exit 2
 * would end the job, killing rank 0 before it said why (seen 1 run in 25
 * with a CPU hog per core). A refusal of this host (no GPU) may be theirs
 * alone, so it keeps its status and ends the job. */
static int refuse(const struct cb_mode_def *m, const union cb_mode_options *o, int printer,
                  struct cb_error *err) {
  if (printer) {
    char shown[4 * sizeof err->msg]; /* a value from a file or argv: escaped */
    cb_text_terminal(shown, sizeof shown, err->msg, 1);
    fprintf(stderr, "collbench: %s\n%s", shown, err->host ? "" : "Try 'collbench --help'.\n");
    if (m && m->on_error)
      m->on_error(o, err);
  }
  return printer || err->host ? err->status : CB_OK;
}

/* A mode's error: said once, and in its --junit file. */
static int report(const struct cb_mode_def *m, const union cb_mode_options *o, int speak,
                  const struct cb_error *err) {
  if (speak) {
    cb_error_print(err);
    if (m->on_error)
      m->on_error(o, err);
  }
  return err->status;
}

/* MPI that cannot start ends the process inside MPI_Init with its own
 * exit status: Open MPI's singleton and PMIx components call _exit(1), which
 * collbench's callers would read as "validation failed", and no error
 * handler can be set before MPI_Init in MPI 3. So collbench's _exit (the
 * one shared libraries bind to: bench/main.exports puts it in the dynamic
 * symbol table) says so and makes it 3, a runtime error, while MPI_Init
 * runs; otherwise it is the system call, as libc's. collbench's own files
 * call cb_exit_now (base/exit_now.h), never _exit, so none of them is tied
 * to this file (tests/layout.t checks the library binds no _exit). */
static volatile int in_mpi_init;
void _exit(int status) {
  if (in_mpi_init) {
    static const char msg[] = "collbench: error: MPI could not start: MPI_Init ended the "
                              "process (the MPI library's own message is above)\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    status = CB_RUNTIME;
  }
  cb_exit_now(status);
}

static int start_mpi(const struct cb_mode_def *mode, const union cb_mode_options *opt, int *argc,
                     char ***argv, struct cb_error *err) {
  int *mpi_argc = mode->mpi_without_argv ? NULL : argc;
  char ***mpi_argv = mode->mpi_without_argv ? NULL : argv;
  int provided, rc;
  in_mpi_init = 1;
  if (mode->mpi(opt) == CB_MPI_SERIALIZED)
    rc = MPI_Init_thread(mpi_argc, mpi_argv, MPI_THREAD_SERIALIZED, &provided);
  else
    rc = MPI_Init(mpi_argc, mpi_argv);
  in_mpi_init = 0;
  if (rc != MPI_SUCCESS) /* a library whose errors return */
    return cb_fail(err, CB_RUNTIME, "MPI could not start: MPI_Init returned %d", rc);
  return CB_OK;
}

int main(int argc, char **argv) {
  static union cb_mode_options opt; /* large: a topology and a baseline */
  struct cb_error err = {0};
  cb_phase("start");
  int launcher_rank = cb_launcher_rank(), printer = launcher_rank == 0;
  int by_mpirun = getenv("OMPI_COMM_WORLD_RANK") != NULL; /* before MPI_Init sets it */
  cb_interrupt_install(printer);                          /* Ctrl-C: exit 3, outputs whole */
  const struct cb_mode_def *failed, *mode = cb_mode_find(argc, argv, &opt, &failed, &err);
  if (!mode)
    return refuse(failed, &opt, printer, &err);
  if (!mode->mpi)
    return mode->run(&opt, argc, argv, &err);
  if (mode->pre_mpi && mode->pre_mpi(&opt, launcher_rank, &err)) /* a bad file: as bad options */
    return err.status == CB_USAGE ? refuse(mode, &opt, printer, &err)
                                  : report(mode, &opt, printer, &err);
  if (mode->mpi(&opt) == CB_MPI_NONE) { /* --accept FILE --dry-run: the file alone */
    int rc = mode->run(&opt, argc, argv, &err);
    return rc ? report(mode, &opt, printer, &err) : rc;
  }
  if (start_mpi(mode, &opt, &argc, &argv, &err))
    return report(mode, &opt, printer, &err);
  cb_interrupt_install(printer); /* again: ours, whatever MPI_Init set */
  if (printer && by_mpirun)      /* Ctrl-C on mpirun: see interrupt.h */
    cb_interrupt_patient_stdout();
  cb_phase("MPI_Init done");
  int nranks, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = cb_cluster_check_launch(nranks, &err);
  if (rc != CB_OK) /* every process is rank 0 here: let the launcher's rank 0 speak */
    report(mode, &opt, printer, &err);
  else if ((rc = mode->run(&opt, argc, argv, &err)) != CB_OK)
    report(mode, &opt, rank == 0, &err);
  cb_phase("MPI_Finalize");
  MPI_Finalize();
  cb_phase("end");
  return rc;
}
