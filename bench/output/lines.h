/* A streamed output (--json, --csv, --trials): whole lines written as they
 * come, so a killed run leaves every line before the kill. Opened without
 * truncating, and emptied only once every output of the run opened
 * (cb_lines_start), so a refused run leaves earlier results alone. A line
 * is one write(); when one fails (disk full) the file is cut back to the
 * last whole line. */
#ifndef CB_LINES_H
#define CB_LINES_H

#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

struct cb_lines {
  int fd;
  char *path;
  const char *option; /* names the output in messages */
  off_t good;         /* the end of the last whole line */
  int created, started, regular;
};

int cb_lines_open(struct cb_lines *l, const char *path, const char *option, struct cb_error *err);
/* Empties the file: the run goes ahead. */
int cb_lines_start(struct cb_lines *l, struct cb_error *err);
/* Instead of emptying it: goes on after its last whole line (a burn-in's
 * --resume). */
int cb_lines_append(struct cb_lines *l, struct cb_error *err);
/* Writes `len` bytes of whole lines. */
int cb_lines_put(struct cb_lines *l, const char *text, size_t len, struct cb_error *err);
/* Writes `text` (malloc'd: taken and freed; NULL counts as out of memory)
 * and a newline as one whole line. */
int cb_lines_put_text(struct cb_lines *l, char *text, struct cb_error *err);
/* Closes (a file made by a run that never started is removed). */
int cb_lines_close(struct cb_lines *l, struct cb_error *err);

#endif
