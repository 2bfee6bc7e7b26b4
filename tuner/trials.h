/* --trials FILE: JSON Lines (jansson). A "tune" line names the setup, then
 * one "trial" line per configuration measured in a search batch, then a
 * "summary" line. --resume reads it back: a batch whose trials are all in
 * the file is not measured again, so an interrupted search replays its
 * finished part and measures on from where it stopped. Rank 0 only. */
#ifndef CB_TRIALS_H
#define CB_TRIALS_H

#include <stdio.h>

#include "base/error.h"
#include "output/lines.h"
#include "search.h"

struct cb_trial {
  int batch;
  struct cb_tune_config cfg;
  struct cb_score score;
};

struct cb_trials {
  struct cb_lines out;
  int open;
  const char *path;
  struct cb_trial *cache;
  int ncache;
};

/* setup: a JSON object text describing what must match for --resume.
 * Without resume the file is replaced; with it, its trials are kept (a
 * torn last line dropped) and a different setup is a usage error. */
int cb_trials_open(struct cb_trials *t, const char *path, int resume, const char *setup,
                   struct cb_error *err);
int cb_trials_find(const struct cb_trials *t, int batch, const struct cb_tune_config *cfg,
                   struct cb_score *score);
/* Each write is checked: a failure names the file and the reason. */
int cb_trials_add(struct cb_trials *t, int batch, const char *phase,
                  const struct cb_tune_config *cfg, const struct cb_score *score, int reps,
                  struct cb_error *err);
/* A finished line of any other type (summary), given as JSON text. */
int cb_trials_line(struct cb_trials *t, const char *json, struct cb_error *err);
/* The close is checked too. */
int cb_trials_close(struct cb_trials *t, struct cb_error *err);

#endif
