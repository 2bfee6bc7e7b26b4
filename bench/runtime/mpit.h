/* MPI_T control variables by name: the tuner's writes of Open MPI's
 * algorithm variables (tuner/comm_mpi.c, tuner/layout_step.c). */
#ifndef CB_MPIT_H
#define CB_MPIT_H

#include <mpi.h>

/* A control variable of type `want` named `name`, its handle allocated;
 * 0 when the library has none (after MPI_T_init_thread). */
int cb_mpit_find_cvar(const char *name, MPI_Datatype want, MPI_T_cvar_handle *h);

#endif
