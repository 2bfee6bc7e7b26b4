/* What NCCL ran for a row's calls, from collbench's profiler plugin
 * (nccl_profiler/, loaded by NCCL through NCCL_PROFILER_PLUGIN): set up
 * before NCCL starts, found once a communicator exists, taken per row. No
 * NCCL or CUDA needed: the plugin is reached through dlopen. */
#ifndef CB_NCCL_RAN_H
#define CB_NCCL_RAN_H

#include <stddef.h>

#include "nccl_profiler/ran.h"

/* Before NCCL starts: NCCL_PROFILER_PLUGIN set to collbench's plugin beside
 * this binary (build/ in the source tree, ../lib installed) unless the user
 * set it (cb_nccl_ran_find then tells whether it is collbench's). */
void cb_nccl_ran_setup(void);

/* After a communicator is made: the take function of the copy NCCL loaded;
 * NULL when NCCL loaded none or another profiler. */
cb_ran_take_fn cb_nccl_ran_find(void);

/* The profiler interface version NCCL took (2 to 6), 0 when none is loaded yet. */
int cb_nccl_ran_version(void);

/* "Ring/Simple/4" for one combination; "Ring/Simple/4 x20, Tree/LL/2 x5"
 * for several (most calls first), "+N calls" past those listed; "" for none.
 * Pure. */
void cb_nccl_ran_format(struct cb_ran *r, int n, long more, char *buf, size_t len);

/* Whether `ran` holds an algorithm other than the one `asked` (NCCL_ALGO's
 * value, in any of NCCL's forms: "NVLS", "allreduce:Ring", "^NVLS;
 * allreduce:Tree") forces on `func` (the row's collective, "allreduce");
 * 0 when either is empty, or the value leaves func a choice or is one
 * NCCL refuses. The profiler's spellings (NVLS_TREE, COLLNET_DIRECT) and
 * NCCL_ALGO's (NVLSTree, CollnetDirect) are the same algorithm. */
int cb_nccl_ran_differs(const char *ran, const char *asked, const char *func);

#endif
