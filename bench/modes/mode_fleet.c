/* The fleet modes, without MPI like --report: `--baseline-out FILE
 * RUN...` (a fleet baseline from runs) and `--compare OLD NEW`. */
#include <math.h>
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
  return cb_option_given(argc, argv, OPT_BASELINE_OUT) ||
         (cb_option_given(argc, argv, OPT_BASELINE) && !cb_option_given(argc, argv, OPT_ACCEPT) &&
          !cb_option_given(argc, argv, OPT_MATRIX));
}

/* --baseline-out B.json FILE..., or the old --baseline FILE... --out B.json
 * (issue 44: --baseline alone names one to judge against). */
static int parse_baseline(int argc, char **argv, union cb_mode_options *o, struct cb_error *err) {
  struct cb_baseline_cli *b = &o->baseline;
  memset(b, 0, sizeof *b);
  int new_form = 0;
  for (int i = 1; i < argc; i++) {
    const struct cb_option *row;
    const char *v, *input = NULL;
    enum cb_next next = cb_option_next(argc, argv, &i, CB_IN_BASELINE, &row, &v);
    if (next == CB_NEXT_OTHER)
      return cb_fail(err, CB_USAGE, "option '%s' does not go with --baseline-out B.json FILE...",
                     argv[i]);
    if (next == CB_NEXT_MISSING)
      return cb_fail(err, CB_USAGE, "option '--%s' needs a value%s", row->name,
                     row->code == OPT_BASELINE_OUT ? " (the baseline to write)" : "");
    if (next == CB_NEXT_ARG)
      input = argv[i];
    else if (row->code == OPT_BASELINE_OUT)
      b->out = v, new_form = 1;
    else /* --out B.json, --baseline, --baseline=FILE: the old spelling */
      *(row->code == OPT_OUT ? &b->out : &input) = v, b->old_form = 1;
    if (input && b->ninputs == CB_MAX_FLEET_INPUTS)
      return cb_fail(err, CB_USAGE, "--baseline-out: at most %d files", CB_MAX_FLEET_INPUTS);
    if (input)
      b->inputs[b->ninputs++] = input;
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
  c->launch_spread = NAN; /* the measured table */
  const char *files[2];
  int n = 0;
  for (int i = 1; i < argc; i++) {
    const struct cb_option *row;
    const char *v;
    enum cb_next next = cb_option_next(argc, argv, &i, CB_IN_COMPARE, &row, &v);
    if (next == CB_NEXT_MISSING)
      return cb_fail(err, CB_USAGE, "option '--%s' needs a value", row->name);
    if (next == CB_NEXT_OTHER)
      return cb_fail(err, CB_USAGE, "option '%s' does not go with --compare OLD NEW", argv[i]);
    if (next == CB_NEXT_OPTION && row->code == OPT_MIN_SLOWDOWN &&
        cb_parse_double(v, "--min-slowdown", 1.0, 1000, &c->min_slowdown, err))
      return err->status;
    if (next == CB_NEXT_OPTION && row->code == OPT_LAUNCH_SPREAD &&
        cb_parse_double(v, "--launch-spread", 0, 10, &c->launch_spread, err))
      return err->status;
    if (next == CB_NEXT_OPTION)
      continue;
    if (n == 2)
      return cb_fail(err, CB_USAGE, "--compare %s %s: unexpected third file '%s'", files[0],
                     files[1], argv[i]);
    files[n++] = argv[i];
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

static const enum cb_section help[] = {CB_SEC_FLEET, CB_SEC_NONE};
/* Another file mode's option beside --compare or --baseline-out: that
 * mode's parser refuses what does not go with it. */
static const char *const compare_yields[] = {"import", "report", "model", NULL};
static const char *const baseline_yields[] = {"import", "report", "model", "compare", NULL};
const struct cb_mode_def cb_mode_compare = {
    .name = "compare",
    .option = OPT_COMPARE,
    .synopsis = "collbench --compare OLD NEW [--min-slowdown X]",
    .sections = help,
    .parse = parse_compare,
    .yields = compare_yields,
    .run = compare_run,
};
const struct cb_mode_def cb_mode_baseline = {
    .name = "baseline",
    .option = OPT_BASELINE_OUT,
    .synopsis = "collbench --baseline-out B.json FILE...",
    .sections = help,
    .wants = wants_baseline,
    .parse = parse_baseline,
    .yields = baseline_yields,
    .run = baseline_run,
};
