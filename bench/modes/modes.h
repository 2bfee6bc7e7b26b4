/* collbench's modes in one table (modes.c), looked up once by main.
 * A mode (mode.h) says how it is chosen, whether it needs MPI and at which
 * thread level, its options and its work. Adding a mode is a file
 * mode_NAME.c with one struct cb_mode_def, and a line in the table. */
#ifndef CB_MODES_H
#define CB_MODES_H

#include <stdio.h>

#include "mode.h"

/* The table, NULL-terminated, in the order argv is matched against it. */
extern const struct cb_mode_def *const cb_modes[];

/* The mode argv asks for, its options parsed into *o: one lookup for
 * main. NULL with err filled (CB_USAGE) when the options do not parse;
 * then *failed names the mode whose parser refused (for its on_error). */
const struct cb_mode_def *cb_mode_find(int argc, char **argv, union cb_mode_options *o,
                                       const struct cb_mode_def **failed, struct cb_error *err);

/* --help: every mode's options (m NULL), or one mode's. */
void cb_mode_usage(FILE *out, const struct cb_mode_def *m);

/* The modes (mode_*.c). */
extern const struct cb_mode_def cb_mode_import, cb_mode_inspector, cb_mode_report, cb_mode_model,
    cb_mode_compare, cb_mode_baseline, cb_mode_help, cb_mode_tune, cb_mode_accept, cb_mode_matrix,
    cb_mode_probe, cb_mode_copy, cb_mode_sweep;

#endif
