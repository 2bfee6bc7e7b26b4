/* Files replaced whole at the end of a run (--prom, --junit): collectors
 * and CI never read half a file, and a failed run leaves the old one. */
#ifndef CB_REPLACE_H
#define CB_REPLACE_H

#include <stdio.h>

#include "../error.h"

/* Fails now (CB_USAGE), not after the run, when nothing can be written
 * next to `path`; `option` names the option in the message. */
int cb_replace_probe(const char *path, const char *option, struct cb_error *err);

/* Writes through `write` (non-zero: failed) to a temporary file beside
 * `path`, then renames it over `path`. */
int cb_replace_write(const char *path, const char *option, int (*write)(void *state, FILE *f),
                     void *state, struct cb_error *err);

#endif
