/* collbench's entry point: the mode the command line asks for (one lookup
 * in the modes' table, bench/modes/modes.c), MPI started at the level it
 * needs, its work run. Every error arrives here as a return value and is
 * reported once. */
#include <mpi.h>
#include <stdio.h>

#include "base/blas_threads.h"
#include "base/interrupt.h"
#include "core/cluster.h"
#include "modes/modes.h"

/* Options that do not parse: said by the launcher's rank 0 with the
 * --help hint, and in the mode's --junit file. */
static int refuse(const struct cb_mode_def *m, const union cb_mode_options *o, int printer,
                  struct cb_error *err) {
  if (printer) {
    fprintf(stderr, "collbench: %s\nTry 'collbench --help'.\n", err->msg);
    if (m && m->on_error)
      m->on_error(o, err);
  }
  return err->status;
}

int main(int argc, char **argv) {
  static union cb_mode_options opt; /* large: a topology and a baseline */
  struct cb_error err = {0};
  int printer = cb_launcher_rank() == 0;
  cb_interrupt_install(printer); /* Ctrl-C: exit 3, outputs whole */
  const struct cb_mode_def *failed, *mode = cb_mode_find(argc, argv, &opt, &failed, &err);
  if (!mode)
    return refuse(failed, &opt, printer, &err);
  if (!mode->mpi) {
    cb_blas_threads_stop(); /* modes without MPI call no BLAS: no thread outlives main */
    return mode->run(&opt, argc, argv, &err);
  }
  if (mode->pre_mpi && mode->pre_mpi(&opt, cb_launcher_rank(), &err)) {
    if (printer) {
      cb_error_print(&err);
      if (mode->on_error)
        mode->on_error(&opt, &err);
    }
    return err.status;
  }
  enum cb_mode_mpi level = mode->mpi(&opt);
  int provided;
  if (level == CB_MPI_SERIALIZED)
    MPI_Init_thread(mode->mpi_without_argv ? NULL : &argc, mode->mpi_without_argv ? NULL : &argv,
                    MPI_THREAD_SERIALIZED, &provided);
  else
    MPI_Init(mode->mpi_without_argv ? NULL : &argc, mode->mpi_without_argv ? NULL : &argv);
  cb_interrupt_install(printer); /* again: ours, whatever MPI_Init set */
  int nranks, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = cb_cluster_check_launch(nranks, &err);
  if (rc != CB_OK) { /* every process is rank 0 here: let the launcher's rank 0 speak */
    if (printer) {
      cb_error_print(&err);
      if (mode->on_error)
        mode->on_error(&opt, &err);
    }
    MPI_Finalize();
    return rc;
  }
  rc = mode->run(&opt, argc, argv, &err);
  if (rc != CB_OK && rank == 0) {
    cb_error_print(&err);
    if (mode->on_error)
      mode->on_error(&opt, &err);
  }
  MPI_Finalize();
  return rc;
}
