/* What the modes' parsers share (args.c). */
#ifndef CB_MODES_ARGS_H
#define CB_MODES_ARGS_H

#include "base/error.h"

/* Whether argv holds `name` or `name`=VALUE. */
int cb_arg_given(int argc, char **argv, const char *name);
/* Whether argv holds the option table's option `code` (OPT_REPORT), by
 * any of its names (an old spelling too): --name or --name=VALUE. */
int cb_option_given(int argc, char **argv, int code);

/* A comma list of names through lookup into ids ("all": every id below
 * `all`), duplicates dropped; an unknown name is refused with the nearest
 * of name_of(0..all-1) as a suggestion (name_of may be NULL). */
int cb_cli_parse_list(const char *arg, const char *what, int (*lookup)(const char *),
                      const char *(*name_of)(int), int all, int *ids, int *n, int max,
                      struct cb_error *err);

#endif
