/* --fit, --validate and --predict from start to end (bench/model/commands.c):
 * the front end of the model, reading JSON Lines and topology files and
 * printing tables and JSON; the maths is in model.h. */
#ifndef CB_MODEL_RUN_H
#define CB_MODEL_RUN_H

#include "model_options.h"

/* Returns the exit status; errors are printed here. */
int cb_model_run(const struct cb_model_cli *m);

#endif
