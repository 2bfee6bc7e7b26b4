/* Host names in Slurm's hostlist form ("n[03,07-08],gpu1"), as
 * `sbatch --exclude` and `scontrol show hostnames` read it: names that
 * differ only in a numeric suffix of one width share a bracket. */
#ifndef CB_BASE_HOSTLIST_H
#define CB_BASE_HOSTLIST_H

#include <stddef.h>

/* Writes the form of n names (any order, repeats dropped) into buf; the
 * names are sorted in place. Returns buf. */
char *cb_hostlist(const char **names, int n, char *buf, size_t len);

#endif
