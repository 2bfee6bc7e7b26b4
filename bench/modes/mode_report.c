/* --report and --import-nccl-tests: the modes that turn files into
 * charts and records, without MPI, each with its own few options. */
#include <string.h>

#include "args.h"
#include "cli.h"
#include "mode.h"

/* Its own small parser, like --report's: no measuring option applies. */
static int parse_import(int argc, char **argv, union cb_mode_options *o, struct cb_error *err) {
  struct cb_import_cli *im = &o->import;
  memset(im, 0, sizeof *im);
  for (int i = 1; i < argc; i++) {
    const struct cb_option *row;
    const char *a = argv[i], *v;
    enum cb_next next = cb_option_next(argc, argv, &i, CB_IN_IMPORT, &row, &v);
    if (next == CB_NEXT_ARG || next == CB_NEXT_OTHER)
      return cb_fail(err, CB_USAGE, "%s '%s' does not go with --import-nccl-tests",
                     a[0] == '-' ? "option" : "argument", a);
    if (next == CB_NEXT_MISSING || !*v)
      return cb_fail(err, CB_USAGE, "option '%.*s' needs a value", (int)strcspn(a, "="), a);
    switch (row->code) {
    case OPT_IMPORT_NCCL_TESTS: im->input = v; break;
    case 'J': im->json_path = v; break;
    case OPT_CSV: im->csv_path = v; break;
    case OPT_OP: im->op = v; break;
    }
  }
  if (!im->json_path && !im->csv_path)
    return cb_fail(err, CB_USAGE,
                   "--import-nccl-tests %s: where to? give --json FILE and/or --csv FILE",
                   im->input);
  if (im->op) {
    const char *p = im->op;
    while (*p && ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
      p++;
    if (*p || p - im->op > 31)
      return cb_fail(err, CB_USAGE, "--op '%s': a short name of a-z, 0-9 and '_' (allreduce)",
                     im->op);
  }
  return CB_OK;
}

/* Files, then --out CALLS; as --report's parser, no measuring option. */
static int parse_inspector(int argc, char **argv, union cb_mode_options *o, struct cb_error *err) {
  struct cb_inspector_cli *in = &o->inspector;
  memset(in, 0, sizeof *in);
  for (int i = 1; i < argc; i++) {
    const struct cb_option *row = NULL;
    const char *file = NULL, *v = NULL;
    enum cb_next next = cb_option_next(argc, argv, &i, CB_IN_INSPECTOR, &row, &v);
    if (next == CB_NEXT_ARG)
      file = argv[i];
    else if (next == CB_NEXT_OTHER)
      return cb_fail(err, CB_USAGE, "option '%s' does not go with --import-inspector", argv[i]);
    else if (next == CB_NEXT_MISSING || (row->code == OPT_OUT && !*v))
      return cb_fail(err, CB_USAGE, "option '--%s' needs a value", row->name);
    else if (row->code == OPT_IMPORT_INSPECTOR)
      file = v; /* --import-inspector=FILE; NULL: the files follow */
    else
      in->out = v;
    if (file && in->ninputs == CB_MAX_INSPECTOR_INPUTS)
      return cb_fail(err, CB_USAGE, "--import-inspector: at most %d files",
                     CB_MAX_INSPECTOR_INPUTS);
    if (file)
      in->inputs[in->ninputs++] = file;
  }
  if (in->ninputs == 0)
    return cb_fail(err, CB_USAGE,
                   "--import-inspector needs NCCL Inspector's files or their folder "
                   "(NCCL_INSPECTOR_DUMP_DIR)");
  return CB_OK;
}

static int inspector_run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  (void)argc, (void)argv, (void)err;
  return cb_inspector_run(&o->inspector);
}

/* Its own small parser: --report takes any number of files, which
 * getopt_long cannot express, and no measuring option applies. */
static int parse_report(int argc, char **argv, union cb_mode_options *o, struct cb_error *err) {
  struct cb_report_cli *rep = &o->report;
  memset(rep, 0, sizeof *rep);
  int only_files = 0;
  for (int i = 1; i < argc; i++) {
    const struct cb_option *row = NULL;
    const char *file = NULL, *v = NULL;
    if (!only_files && strcmp(argv[i], "--") == 0) {
      only_files = 1;
      continue;
    }
    enum cb_next next =
        only_files ? CB_NEXT_ARG : cb_option_next(argc, argv, &i, CB_IN_REPORT, &row, &v);
    if (next == CB_NEXT_ARG)
      file = argv[i];
    else if (next == CB_NEXT_OTHER)
      return cb_fail(err, CB_USAGE, "option '%s' does not go with --report", argv[i]);
    else if (next == CB_NEXT_MISSING)
      return cb_fail(err, CB_USAGE, "option '--%s' needs a value", row->name);
    else if (row->code == OPT_REPORT)
      file = v; /* --report=FILE; NULL: the files follow */
    else if (row->code == OPT_TOPOLOGY) {
      rep->topology = v;
      rep->topology_part = cb_cli_topology_part();
    } else
      *(row->code == OPT_OUT ? &rep->out : &rep->baseline) = v;
    if (file && rep->ninputs == CB_MAX_REPORT_INPUTS)
      return cb_fail(err, CB_USAGE, "--report: at most %d files", CB_MAX_REPORT_INPUTS);
    if (file)
      rep->inputs[rep->ninputs++] = file;
  }
  if (rep->ninputs == 0)
    return cb_fail(err, CB_USAGE, "--report needs at least one JSON Lines file");
  if (!rep->out || !*rep->out)
    return cb_fail(err, CB_USAGE, "--report needs --out DIR");
  return CB_OK;
}

static int import_run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  (void)argc, (void)argv, (void)err;
  return cb_import_run(&o->import);
}

static int report_run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  (void)argc, (void)argv, (void)err;
  return cb_report(&o->report);
}

static const enum cb_section help[] = {CB_SEC_REPORTS, CB_SEC_NONE};
/* an --import-nccl-tests run's other options are refused by its parser */
static const char *const report_yields[] = {"import", NULL};
const struct cb_mode_def cb_mode_import = {
    .name = "import",
    .option = OPT_IMPORT_NCCL_TESTS,
    .synopsis = "collbench --import-nccl-tests FILE [--json FILE] [--csv FILE] [--op NAME]",
    .sections = help,
    .parse = parse_import,
    .run = import_run,
};
const struct cb_mode_def cb_mode_inspector = {
    .name = "inspector",
    .option = OPT_IMPORT_INSPECTOR,
    .synopsis = "collbench --import-inspector FILE|DIR... [--out CALLS]",
    .sections = help,
    .parse = parse_inspector,
    .run = inspector_run,
};
const struct cb_mode_def cb_mode_report = {
    .name = "report",
    .option = OPT_REPORT,
    .synopsis = "collbench --report FILE... --out DIR [--baseline FILE] [--topology FILE]",
    .sections = help,
    .parse = parse_report,
    .yields = report_yields,
    .run = report_run,
};
