/* The parsers of the fleet modes, without MPI like --report's:
 * `--baseline FILE... --out FILE` and `--compare OLD NEW`. */
#include <stdio.h>
#include <string.h>

#include "cli_internal.h"
#include "base/robust.h"
#include "base/units.h"

/* --baseline without --accept, --matrix or --report builds one. */
int cb_cli_wants_baseline(int argc, char **argv) {
  int baseline = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    baseline |= strcmp(a, "--baseline") == 0 || strncmp(a, "--baseline=", 11) == 0;
    if (!strcmp(a, "--accept") || !strncmp(a, "--accept=", 9) || !strncmp(a, "--matrix", 8))
      return 0;
  }
  return baseline;
}

int cb_cli_wants_compare(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--compare") == 0)
      return 1;
  return 0;
}

/* Shared with cli_report.c (cli_internal.h). */
const char *cb_cli_value_of(int argc, char **argv, int *i, const char *name, int *missing) {
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n) != 0)
    return NULL;
  if (argv[*i][n] == '=')
    return argv[*i] + n + 1;
  if (argv[*i][n] != '\0')
    return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

int cb_cli_parse_baseline(int argc, char **argv, struct cb_baseline_cli *b, struct cb_error *err) {
  memset(b, 0, sizeof *b);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int missing = 0;
    if ((v = cb_cli_value_of(argc, argv, &i, "--out", &missing)))
      b->out = v;
    else if (missing)
      return cb_fail(err, CB_USAGE, "option '--out' needs a value");
    else if (strcmp(a, "--baseline") == 0)
      continue;
    else if (strncmp(a, "--baseline=", 11) == 0 || a[0] != '-' || strcmp(a, "-") == 0) {
      if (b->ninputs == CB_MAX_REPORT_INPUTS)
        return cb_fail(err, CB_USAGE, "--baseline: at most %d files", CB_MAX_REPORT_INPUTS);
      b->inputs[b->ninputs++] = a[0] == '-' && a[1] ? a + 11 : a;
    } else
      return cb_fail(err, CB_USAGE, "option '%s' does not go with --baseline FILE... --out FILE",
                     a);
  }
  if (b->ninputs == 0)
    return cb_fail(err, CB_USAGE, "--baseline needs at least one --json run to build from");
  if (!b->out || !*b->out)
    return cb_fail(err, CB_USAGE, "--baseline needs --out FILE (the baseline to write)");
  return CB_OK;
}

int cb_cli_parse_compare(int argc, char **argv, struct cb_compare_cli *c, struct cb_error *err) {
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
