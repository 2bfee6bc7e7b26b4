/* --compare OLD NEW: which series and sizes got slower beyond their noise
 * between two --json runs or baselines (after a library upgrade, say). */
#ifndef CB_COMPARE_H
#define CB_COMPARE_H

#include <stdio.h>

#include "base/robust.h"
#include "baseline.h"

/* One compared key: slowdown = new time / old time (bandwidths: old / new),
 * > 1 is slower, with its 95% CI. */
struct cb_cmp_line {
  const struct cb_bl_entry *old_e, *new_e;
  int metric;
  struct cb_ratio slowdown;
  int slower; /* the CI's low end above min_ratio */
};

/* The slowdown of one metric between two entries (n > 0 in both), its CI
 * counting `sigma` of spread between launches (cb_ratio_launches); NAN:
 * cb_launch_sigma of the entry's size. */
struct cb_ratio cb_compare_metric(const struct cb_bl_entry *o, const struct cb_bl_entry *n,
                                  int metric, double sigma);

/* Writes one line per common key to out (slower ones first, marked), and
 * returns how many got slower; *common counts the keys compared. */
int cb_compare(const struct cb_baseline *old_b, const struct cb_baseline *new_b, double min_ratio,
               double sigma, FILE *out, int *common);

#define CB_MAX_FLEET_INPUTS 64
/* --baseline FILE... --out FILE and --compare OLD NEW (bench/modes/mode_fleet.c). */
struct cb_baseline_cli {
  const char *inputs[CB_MAX_FLEET_INPUTS], *out;
  int ninputs;
  int old_form; /* built with the old spelling, --baseline FILE... --out F: said once */
};
struct cb_compare_cli {
  const char *old_path, *new_path;
  double min_slowdown;  /* SLOWER: the slowdown's 95% CI above this */
  double launch_spread; /* a one-launch side's added sigma; NAN: cb_launch_sigma's table */
};

/* The whole of --compare: exit 0 (none slower), 1 (some), 2 (bad input). */
struct cb_compare_cli;
int cb_compare_main(const struct cb_compare_cli *c);
struct cb_baseline_cli;
int cb_baseline_main(const struct cb_baseline_cli *c);

#endif
