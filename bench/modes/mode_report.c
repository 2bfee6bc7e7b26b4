/* --report and --import-nccl-tests: the modes that turn files into
 * charts and records, without MPI, each with its own few options. */
#include <stddef.h>
#include <string.h>

#include "args.h"
#include "mode.h"

/* An option whose value is a string field of the parser's struct. */
struct string_option {
  const char *name;
  size_t offset;
};
#define NOPTS(table) (sizeof table / sizeof table[0])

static int wants_import(int argc, char **argv) {
  return cb_arg_given(argc, argv, "--import-nccl-tests");
}

/* Its own small parser, like --report's: no measuring option applies. */
static int parse_import(int argc, char **argv, union cb_mode_options *o, struct cb_error *err) {
  struct cb_import_cli *im = &o->import;
  static const struct string_option opts[] = {
      {"--import-nccl-tests", offsetof(struct cb_import_cli, input)},
      {"--json", offsetof(struct cb_import_cli, json_path)},
      {"-J", offsetof(struct cb_import_cli, json_path)},
      {"--csv", offsetof(struct cb_import_cli, csv_path)},
      {"--op", offsetof(struct cb_import_cli, op)}};
  memset(im, 0, sizeof *im);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *eq = strchr(a, '='), *v = NULL;
    size_t len = eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
    size_t k = 0;
    while (k < NOPTS(opts) && !(strlen(opts[k].name) == len && strncmp(a, opts[k].name, len) == 0))
      k++;
    if (k == NOPTS(opts))
      return cb_fail(err, CB_USAGE, "%s '%s' does not go with --import-nccl-tests",
                     a[0] == '-' ? "option" : "argument", a);
    if (eq && a[1] == '-')
      v = eq + 1;
    else if (i + 1 < argc)
      v = argv[++i];
    if (!v || !*v)
      return cb_fail(err, CB_USAGE, "option '%s' needs a value", opts[k].name);
    *(const char **)((char *)im + opts[k].offset) = v;
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

static int wants_report(int argc, char **argv) {
  return cb_arg_given(argc, argv, "--report");
}

/* Its own small parser: --report takes any number of files, which
 * getopt_long cannot express, and no measuring option applies. */
static int parse_report(int argc, char **argv, union cb_mode_options *o, struct cb_error *err) {
  struct cb_report_cli *rep = &o->report;
  static const struct string_option values[] = {
      {"--out", offsetof(struct cb_report_cli, out)},
      {"--baseline", offsetof(struct cb_report_cli, baseline)},
      {"--topology", offsetof(struct cb_report_cli, topology)}};
  memset(rep, 0, sizeof *rep);
  int only_files = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *file = NULL;
    if (only_files || a[0] != '-' || strcmp(a, "-") == 0)
      file = a;
    else if (strcmp(a, "--") == 0)
      only_files = 1;
    else if (strcmp(a, "--report") == 0)
      continue;
    else if (strncmp(a, "--report=", 9) == 0)
      file = a + 9;
    else {
      size_t k = 0;
      int missing = 0;
      const char *v = NULL;
      while (k < NOPTS(values) &&
             !(v = cb_cli_value_of(argc, argv, &i, values[k].name, &missing)) && !missing)
        k++;
      if (missing)
        return cb_fail(err, CB_USAGE, "option '%s' needs a value", values[k].name);
      if (k == NOPTS(values))
        return cb_fail(err, CB_USAGE, "option '%s' does not go with --report", a);
      *(const char **)((char *)rep + values[k].offset) = v;
    }
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

const char cb_help_reports[] =
    "Reports (no mpirun needed):\n"
    "      --report FILE...     charts (busbw, latency, the model's predictions;\n"
    "                           PNG and SVG) and an index.html from --json, --matrix\n"
    "                           and --tune --trials files; several files are drawn\n"
    "                           on the same charts to compare them\n"
    "      --out DIR            where --report writes (created if missing)\n"
    "      --baseline FILE      with --report: each run's series against the fleet\n"
    "                           band per size, outliers marked and listed first\n"
    "      --topology FILE      with --report: link tiers the inputs lack, for the\n"
    "                           capacity and step charts\n"
    "      --import-nccl-tests FILE\n"
    "                           nccl-tests' output (its table or its -J JSON) as\n"
    "                           collbench's records, written with --json FILE\n"
    "                           and/or --csv FILE; --op NAME when the file does not\n"
    "                           say which collective ran\n";

static const char *const help[] = {cb_help_reports, NULL};
const struct cb_mode_def cb_mode_import = {
    .name = "import",
    .option = "--import-nccl-tests",
    .synopsis = "collbench --import-nccl-tests FILE [--json FILE] [--csv FILE] [--op NAME]",
    .help = help,
    .wants = wants_import,
    .parse = parse_import,
    .run = import_run,
};
const struct cb_mode_def cb_mode_report = {
    .name = "report",
    .option = "--report",
    .synopsis = "collbench --report FILE... --out DIR [--baseline FILE] [--topology FILE]",
    .help = help,
    .wants = wants_report,
    .parse = parse_report,
    .run = report_run,
};
