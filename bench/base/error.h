/* Errors travel up as return values carrying context, to one place that
 * reports them (main). Status values are collbench's exit codes. */
#ifndef CB_ERROR_H
#define CB_ERROR_H

enum cb_status {
  CB_OK = 0,
  CB_FAILED = 1,  /* validation or acceptance failed */
  CB_USAGE = 2,   /* bad option, size, file or configuration */
  CB_RUNTIME = 3, /* backend failure, timeout */
};

struct cb_error {
  int status;
  char msg[1024];
  int output; /* 1: an output file could not be written (what it measured is sound) */
  /* 1: the command line is sound but this host cannot run it (no GPU, no
   * driver): said without the --help hint, which would send the user to
   * the wrong place */
  int host;
  /* 1: every rank returns this status together (a burn-in all of them
   * stopped on a signal), so none is left blocked in a call and the job ends
   * through MPI_Finalize rather than MPI_Abort, whose notice would bury the
   * message */
  int agreed;
};

/* Sets err (if not already set) and returns status, so callers write
 * `return cb_fail(err, CB_USAGE, "bad size '%s'", s);`. */
int cb_fail(struct cb_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The status of a write that failed with errnum: 3 (runtime) when the
 * system ran out of room or failed (a full disk, a quota, an I/O error),
 * 2 (usage) when the path given cannot be written (permissions, a missing
 * folder). */
int cb_write_status(int errnum);

/* The one way an error reaches the user: "collbench: [error: ]MSG" on
 * stderr (usage errors without "error: "). main reports through it; a
 * rank about to abort the job (MPI_Abort) does too, first. */
void cb_error_print(const struct cb_error *err);

#endif
