/* --exclude-out FILE: the hosts to leave out of the next run, one a line,
 * each with why after a tab ("node3<TAB>hung in allreduce 64 MiB"), so a
 * scheduler takes the first column (`sbatch --exclude=$(cut -f1 FILE |
 * paste -sd, -)`) and scripts/isolate.sh the reasons too. */
#ifndef CB_ACCEPT_EXCLUDED_H
#define CB_ACCEPT_EXCLUDED_H

#include "verdicts.h"

struct cb_excluded {
  struct cb_excluded_host {
    const char *host; /* lives as long as the probe or the cluster */
    char why[200];
  } * e;
  int n, cap;
};

/* Adds a host once (a second reason for it is dropped); 0, or -1 out of memory. */
int cb_excluded_add(struct cb_excluded *x, const char *host, const char *why);
/* Adds the hosts acceptance laid a FAIL to, each with its checks and cause. */
int cb_excluded_from(struct cb_excluded *x, const struct cb_accept_result *res);
/* The hosts in Slurm's hostlist form ("n[1-2,4]") in buf; returns buf. */
const char *cb_excluded_hostlist(const struct cb_excluded *x, char *buf, size_t len);
/* Replaces the file whole (an empty file: nobody to exclude). */
int cb_excluded_write(const struct cb_excluded *x, const char *path, struct cb_error *err);
void cb_excluded_free(struct cb_excluded *x);

#endif
