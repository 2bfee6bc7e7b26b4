/* MPI_T control variables by name (mpit.h). */
#include "mpit.h"

#include <string.h>

int cb_mpit_find_cvar(const char *name, MPI_Datatype want, MPI_T_cvar_handle *h) {
  int n;
  if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
    return 0;
  for (int i = 0; i < n; i++) {
    char cname[256], desc[8];
    int nlen = sizeof cname, dlen = sizeof desc, verbosity, bind, scope, count;
    MPI_Datatype type;
    MPI_T_enum en;
    if (MPI_T_cvar_get_info(i, cname, &nlen, &verbosity, &type, &en, desc, &dlen, &bind, &scope) ==
            MPI_SUCCESS &&
        strcmp(cname, name) == 0 && type == want)
      return MPI_T_cvar_handle_alloc(i, NULL, h, &count) == MPI_SUCCESS;
  }
  return 0;
}
