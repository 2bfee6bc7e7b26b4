/* The registry of ops: the table every part of collbench looks ops up
 * in (the pieces ops share are in factors.c, below the ops). */
#include <string.h>

#include "op.h"
#include "runtime/settings.h"

extern const struct cb_op cb_op_allreduce, cb_op_allgather, cb_op_reducescatter, cb_op_broadcast,
    cb_op_alltoall, cb_op_p2p_lat, cb_op_p2p_bw, cb_op_p2p_bibw, cb_op_alltoallv;

_Static_assert(CB_NOPS <= CB_MAX_OPS, "settings.h sizes its op list by CB_MAX_OPS");

const struct cb_op *const cb_ops[CB_NOPS] = {
    [CB_OP_ALLREDUCE] = &cb_op_allreduce,
    [CB_OP_ALLGATHER] = &cb_op_allgather,
    [CB_OP_REDUCESCATTER] = &cb_op_reducescatter,
    [CB_OP_BROADCAST] = &cb_op_broadcast,
    [CB_OP_ALLTOALL] = &cb_op_alltoall,
    [CB_OP_P2P_LAT] = &cb_op_p2p_lat,
    [CB_OP_P2P_BW] = &cb_op_p2p_bw,
    [CB_OP_P2P_BIBW] = &cb_op_p2p_bibw,
    [CB_OP_ALLTOALLV] = &cb_op_alltoallv,
};

int cb_op_lookup(const char *name) {
  for (int i = 0; i < CB_NOPS; i++)
    if (strcmp(name, cb_ops[i]->name) == 0)
      return i;
  return -1;
}
