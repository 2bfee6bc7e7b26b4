/* Bounded reading of input files, for every reader: an endless or binary
 * input (/dev/zero, a pipe that never ends, a core file) stops at a bound
 * with a usage error rather than growing memory or running without end. */
#ifndef CB_READBOUND_H
#define CB_READBOUND_H

#include <stdio.h>

#include "config.h"

/* The longest line any reader takes: collbench's, nccl-tests' and the
 * trials' lines are a few KiB. */
#define CB_MAX_LINE (1 << 20)
/* The largest whole JSON document read (a baseline, a nccl-tests -J file). */
#define CB_MAX_DOC (256L << 20)

/* One line into *buf (NUL-terminated, newline kept; NUL bytes in it are
 * kept and counted): its length, CB_READ_EOF at the end of the file (or a
 * read error: see ferror), CB_READ_LONG past CB_MAX_LINE bytes,
 * CB_READ_NOMEM when the line's buffer could not grow. */
#define CB_READ_EOF (-1)
#define CB_READ_LONG (-2)
#define CB_READ_NOMEM (-3)
long cb_read_line(FILE *f, char **buf, size_t *cap);

/* Skips white space, at most CB_MAX_LINE bytes of it; returns the next
 * character (EOF at the end), left unread. */
int cb_peek_nonspace(FILE *f);

#if CB_HAVE_JANSSON
#include <jansson.h>
/* json_loadf with a bound: a document over CB_MAX_DOC bytes fails with
 * *too_big set (and jerr saying where). */
json_t *cb_json_load_bounded(FILE *f, json_error_t *jerr, int *too_big);
#endif

#endif
