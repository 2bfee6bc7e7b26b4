/* Output paths: checked before a run, and files replaced whole at its end
 * (--prom, --junit, --env-out, --plugin-out, the model's --json) so readers
 * never see half a file and a failed run leaves the old one. */
#ifndef CB_REPLACE_H
#define CB_REPLACE_H

#include <stdio.h>
#include <sys/types.h>

#include "base/error.h"

enum cb_output_kind {
  CB_OUT_STREAM,  /* written in place as the run goes (cb_lines) */
  CB_OUT_REPLACE, /* a regular file is replaced through a temporary one */
};

/* Fails now (CB_USAGE, naming `option`, the path and why), not after the
 * run, when `path` cannot be written: a directory, a missing or read-only
 * directory, a file we may not write, a name too long for its temporary,
 * a named pipe (FIFO), a socket or a block device (a pipe reached through
 * a descriptor, /proc/self/fd/N, and character devices are written as
 * they are). Creates and removes nothing. */
int cb_output_check(const char *path, const char *option, enum cb_output_kind kind,
                    struct cb_error *err);

/* open(2) that never blocks on a pipe without a reader (it fails, ENXIO),
 * the descriptor then blocking as usual; -1 with errno. */
int cb_output_open(const char *path, int flags, mode_t mode);
/* strerror, with ENXIO said as a pipe without a reader. */
const char *cb_output_strerror(int e);

/* Refuses (CB_USAGE, naming it) a path another user could redirect: a
 * symbolic link on the way owned by someone else in a world-writable sticky
 * folder (/tmp), or a file in a world-writable folder without the sticky
 * bit. cb_output_check and cb_replace_write apply it; streams (lines.c)
 * apply it once their file is open. */
int cb_output_trusted(const char *path, const char *option, struct cb_error *err);

/* Writes through `write` (non-zero: failed). A regular file (or none yet)
 * is written to a unique temporary file beside it and renamed over it,
 * keeping its mode; a symbolic link's target is replaced, the link stays;
 * anything else (a device, a pipe) is written directly. Every write and the
 * close are checked; the message names the path and the system's reason. */
int cb_replace_write(const char *path, const char *option, int (*write)(void *state, FILE *f),
                     void *state, struct cb_error *err);

#endif
