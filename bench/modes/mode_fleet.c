/* The fleet modes, without MPI like --report: `--baseline-out FILE
 * RUN...` (a fleet baseline from runs) and `--compare OLD NEW`. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "base/robust.h"
#include "base/units.h"
#include "mode.h"

/* --baseline-out builds one; so does the old spelling, --baseline without
 * --accept or --matrix (--report --baseline is the report's: it comes
 * first in the modes' table). */
static int wants_baseline(int argc, char **argv) {
  int baseline = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--baseline-out") == 0 || strncmp(a, "--baseline-out=", 15) == 0)
      return 1;
    baseline |= strcmp(a, "--baseline") == 0 || strncmp(a, "--baseline=", 11) == 0;
    if (!strcmp(a, "--accept") || !strncmp(a, "--accept=", 9) || !strncmp(a, "--matrix", 8))
      return 0;
  }
  return baseline;
}

static int wants_compare(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--compare") == 0)
      return 1;
  return 0;
}

/* --baseline-out B.json FILE..., or the old --baseline FILE... --out B.json
 * (issue 44: --baseline alone names one to judge against). */
static int parse_baseline(int argc, char **argv, union cb_mode_options *o, struct cb_error *err) {
  struct cb_baseline_cli *b = &o->baseline;
  memset(b, 0, sizeof *b);
  int new_form = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int missing = 0;
    if ((v = cb_cli_value_of(argc, argv, &i, "--baseline-out", &missing)))
      b->out = v, new_form = 1;
    else if (missing)
      return cb_fail(err, CB_USAGE,
                     "option '--baseline-out' needs a value (the baseline to write)");
    else if ((v = cb_cli_value_of(argc, argv, &i, "--out", &missing)))
      b->out = v, b->old_form = 1;
    else if (missing)
      return cb_fail(err, CB_USAGE, "option '--out' needs a value");
    else if (strcmp(a, "--baseline") == 0)
      b->old_form = 1;
    else if (strncmp(a, "--baseline=", 11) == 0 || a[0] != '-' || strcmp(a, "-") == 0) {
      if (b->ninputs == CB_MAX_FLEET_INPUTS)
        return cb_fail(err, CB_USAGE, "--baseline-out: at most %d files", CB_MAX_FLEET_INPUTS);
      b->old_form |= a[0] == '-' && a[1];
      b->inputs[b->ninputs++] = a[0] == '-' && a[1] ? a + 11 : a;
    } else
      return cb_fail(err, CB_USAGE, "option '%s' does not go with --baseline-out B.json FILE...",
                     a);
  }
  if (new_form && b->old_form)
    return cb_fail(err, CB_USAGE,
                   "--baseline-out B.json FILE... builds a baseline; --baseline and --out are its "
                   "old spelling: give one form");
  if (b->ninputs == 0)
    return cb_fail(err, CB_USAGE, "--baseline-out needs at least one --json run to build from");
  if (!b->out || !*b->out)
    return cb_fail(err, CB_USAGE,
                   "the baseline to write is missing: --baseline-out B.json FILE... (the old form: "
                   "--baseline FILE... --out B.json)");
  return CB_OK;
}

static int parse_compare(int argc, char **argv, union cb_mode_options *o, struct cb_error *err) {
  struct cb_compare_cli *c = &o->compare;
  memset(c, 0, sizeof *c);
  c->min_slowdown = CB_COMPARE_MIN_RATIO;
  const char *files[2];
  int n = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int missing = 0;
    const char *v = cb_cli_value_of(argc, argv, &i, "--min-slowdown", &missing);
    if (missing)
      return cb_fail(err, CB_USAGE, "option '--min-slowdown' needs a value");
    if (v && cb_parse_double(v, "--min-slowdown", 1.0, 1000, &c->min_slowdown, err))
      return err->status;
    if (v || strcmp(a, "--compare") == 0)
      continue;
    if (a[0] == '-' && strcmp(a, "-") != 0)
      return cb_fail(err, CB_USAGE, "option '%s' does not go with --compare OLD NEW", a);
    if (n == 2)
      return cb_fail(err, CB_USAGE, "--compare %s %s: unexpected third file '%s'", files[0],
                     files[1], a);
    files[n++] = a;
  }
  if (n < 2)
    return cb_fail(err, CB_USAGE, "--compare needs two files: OLD NEW (--json runs or baselines)");
  c->old_path = files[0];
  c->new_path = files[1];
  return CB_OK;
}

static int baseline_run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  (void)argc, (void)argv, (void)err;
  if (o->baseline.old_form)
    fprintf(stderr, "collbench: --baseline FILE... --out B.json is now --baseline-out B.json "
                    "FILE... (the old form works for this release)\n");
  return cb_baseline_main(&o->baseline);
}

static int compare_run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  (void)argc, (void)argv, (void)err;
  return cb_compare_main(&o->compare);
}

const char cb_help_fleet[] =
    "Fleet baselines (no mpirun; topologies/ACCEPTANCE.md):\n"
    "      --baseline-out B.json FILE...\n"
    "                           a baseline from --json runs: per series, size, rank\n"
    "                           and node count, pair and node: n, median, MAD,\n"
    "                           quantiles and the runs it came from\n"
    "      --compare OLD NEW    series and sizes slower beyond their noise between\n"
    "                           two --json runs or baselines; exit 1 when any\n"
    "      --min-slowdown X     with --compare: slower means the 95% CI of the\n"
    "                           slowdown lies above X (default 1.1)\n";

static const char *const help[] = {cb_help_fleet, NULL};
const struct cb_mode_def cb_mode_compare = {
    .name = "compare",
    .option = "--compare",
    .synopsis = "collbench --compare OLD NEW [--min-slowdown X]",
    .help = help,
    .wants = wants_compare,
    .parse = parse_compare,
    .run = compare_run,
};
const struct cb_mode_def cb_mode_baseline = {
    .name = "baseline",
    .option = "--baseline-out",
    .synopsis = "collbench --baseline-out B.json FILE...",
    .help = help,
    .wants = wants_baseline,
    .parse = parse_baseline,
    .run = baseline_run,
};
