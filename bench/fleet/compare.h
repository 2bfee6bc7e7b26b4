/* --compare OLD NEW: which series and sizes got slower beyond their noise
 * between two --json runs or baselines (after a library upgrade, say). */
#ifndef CB_COMPARE_H
#define CB_COMPARE_H

#include <stdio.h>

#include "base/robust.h"
#include "baseline.h"

/* One compared key: slowdown = new time / old time (bandwidths: old / new),
 * > 1 is slower, with its 95% CI. */
enum cb_cmp_state {
  CB_CMP_SAME,    /* within the noise */
  CB_CMP_SLOWER,  /* the CI's low end above min_ratio */
  CB_CMP_UNKNOWN, /* a one-run figure without an interval of its own */
  CB_CMP_NOISY,   /* noisy within its own launch: its factor is not judged */
};
struct cb_cmp_line {
  const struct cb_bl_entry *old_e, *new_e;
  int metric;
  struct cb_ratio slowdown;
  enum cb_cmp_state state;
};

/* The run as a whole: the median of the judged rows' slowdowns with a 95%
 * CI counting the rows' spread and the launch spread they share. */
struct cb_cmp_whole {
  int n; /* rows judged (same or SLOWER) */
  double ratio, lo, hi;
  int slower, faster; /* the CI above min_ratio, below 1/min_ratio */
};
struct cb_cmp_summary {
  int common, slower, noisy;
  int assumed; /* rows a side of which had no interval of its own: the launch spread alone */
  struct cb_cmp_whole whole;
};

/* The slowdown of one metric between two entries (n > 0 in both), its CI
 * counting `sigma` of spread between launches (cb_ratio_launches); NAN:
 * cb_launch_sigma of the entry's size. */
struct cb_ratio cb_compare_metric(const struct cb_bl_entry *o, const struct cb_bl_entry *n,
                                  int metric, double sigma);

/* Writes one line per common key to out (NULL: none; slower ones first,
 * marked) and fills sum; -1 out of memory. */
int cb_compare_all(const struct cb_baseline *old_b, const struct cb_baseline *new_b,
                   double min_ratio, double sigma, FILE *out, struct cb_cmp_summary *sum);
/* The same, returning how many got slower; *common counts the keys compared. */
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
