/* The --env-out file: comment lines, then `export NAME='VALUE'` lines.
 * Names and values are validated and values single-quoted, so sourcing
 * the file can do nothing but set those variables. Pure: unit-tested. */
#ifndef CB_ENVFILE_H
#define CB_ENVFILE_H

#include <stdio.h>

#include "base/error.h"

struct cb_env_var {
  const char *name, *value;
};

/* A shell variable name: [A-Za-z_][A-Za-z0-9_]*. */
int cb_env_name_ok(const char *name);
/* A value that is safe inside single quotes and plain: letters, digits
 * and . _ , : / + - ; ^ only (no quote, no newline, no expansion; ; and ^
 * for NCCL's "^NVLS;allreduce:Ring" form, literal inside the quotes). */
int cb_env_value_ok(const char *value);
/* Writes "# TEXT\n" with every control character made a '?', so text from
 * hostnames or the command line cannot end the comment. */
void cb_env_comment(FILE *f, const char *text);
/* Checks every variable, then writes comments and exports to `out`. */
int cb_env_write(FILE *out, const char *const *comments, int ncomments,
                 const struct cb_env_var *vars, int nvars, struct cb_error *err);

#endif
