/* The table of collbench's modes and the one lookup main makes in it;
 * --help assembled from the modes' sections; the --help/--version/--list
 * mode itself. */
#include "modes.h"

#include <stdio.h>
#include <string.h>

#include "args.h"
#include "backends/backend.h"
#include "config.h"
#include "gitversion.h"
#include "ops/op.h"
#include "option_table.h"
#include "output/runinfo.h"
#include "runtime/cluster.h"
#include "runtime/gpu.h"

/* In --help's order. Which mode argv asks for does not depend on it: a
 * mode asked for gives way only to the modes its `yields` names. */
const struct cb_mode_def *const cb_modes[] = {
    &cb_mode_sweep,     &cb_mode_copy,
    &cb_mode_probe,     &cb_mode_accept,
    &cb_mode_matrix,    &cb_mode_tune,
    &cb_mode_report,    &cb_mode_import,
    &cb_mode_inspector, &cb_mode_baseline,
    &cb_mode_compare,   &cb_mode_model,
    &cb_mode_help,      NULL,
};

static const char header[] =
    "usage: mpirun -np N collbench [options]\n"
    "Measures collectives and point-to-point traffic; every rank checks its results.\n"
    "\n";
static const char footer[] =
    "\n"
    "Exit status: 0 ok, 1 wrong results or failed acceptance, 2 usage or\n"
    "configuration error, 3 runtime error (backend failure, timeout; gnuplot\n"
    "failing for --report).\n";

/* Every mode's sections in the modes' order, each once (m NULL), or one
 * mode's; then -h and -V, and the exit status. */
void cb_mode_usage(FILE *out, const struct cb_mode_def *m) {
  if (!m) {
    int shown[CB_NSECTIONS] = {0};
    fputs(header, out);
    for (int k = 0; cb_modes[k]; k++)
      for (int i = 0; cb_modes[k]->sections && cb_modes[k]->sections[i]; i++)
        if (!shown[cb_modes[k]->sections[i]]++)
          cb_options_help(out, cb_modes[k]->sections[i]);
  } else {
    fprintf(out, "usage: %s\n", m->synopsis);
    for (int i = 0; m->sections[i]; i++)
      cb_options_help(out, m->sections[i]);
  }
  cb_options_help(out, CB_SEC_GENERAL);
  fputs(footer, out);
}

/* Whether mode m gives way to one of `asked` (n modes asked for). */
static int yields_to(const struct cb_mode_def *m, const struct cb_mode_def *const *asked, int n) {
  for (int i = 0; m->yields && m->yields[i]; i++)
    for (int j = 0; j < n; j++)
      if (strcmp(m->yields[i], asked[j]->name) == 0)
        return 1;
  return 0;
}

/* Of the modes asked for, the one that gives way to none of the others. */
static const struct cb_mode_def *winner(const struct cb_mode_def *const *asked, int n) {
  for (int i = 0; i < n; i++)
    if (!yields_to(asked[i], asked, n))
      return asked[i];
  return NULL;
}

/* MODE --help, --help MODE (by name), or a mode's option with --help:
 * that mode's options only. */
static const struct cb_mode_def *help_of;
/* OPTION --help: that option's entry, for one that takes a value
 * (--concurrent --help, where the value's parser would refuse "--help"),
 * or for any other when no mode is asked for (--dry-run --help). */
static const struct cb_option *help_option;

/* Whether o is the option that selects a mode (--report): its --help is
 * the mode's. */
static int selects_mode(const struct cb_option *o) {
  for (int k = 0; cb_modes[k]; k++)
    if (cb_modes[k]->option && cb_modes[k]->option == o->code)
      return 1;
  return 0;
}

static const struct cb_option *option_before_help(int argc, char **argv, int valued) {
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      const struct cb_option *o = cb_option_of_word(argv[i - 1]);
      if (o && (o->arg != CB_ARG_NONE || !valued) && !strchr(argv[i - 1], '=') &&
          !(valued && selects_mode(o)))
        return o;
    }
  return NULL;
}

/* Whether argv asks for mode m: its wants, else its option's row. */
static int asks_for(const struct cb_mode_def *m, int argc, char **argv) {
  return m->wants ? m->wants(argc, argv) : m->option && cb_option_given(argc, argv, m->option);
}

static const struct cb_mode_def *wants_help_of(int argc, char **argv) {
  if (!cb_arg_given(argc, argv, "--help") && !cb_arg_given(argc, argv, "-h"))
    return NULL;
  for (int i = 1; i < argc; i++)
    for (int k = 0; cb_modes[k]; k++)
      if (argv[i][0] != '-' && cb_modes[k]->sections && strcmp(argv[i], cb_modes[k]->name) == 0)
        return cb_modes[k];
  const struct cb_mode_def *asked[16];
  int n = 0;
  for (int k = 0; cb_modes[k]; k++) /* as cb_mode_find chooses them */
    if (asks_for(cb_modes[k], argc, argv))
      asked[n++] = cb_modes[k];
  return winner(asked, n);
}

/* The launcher's options given to collbench (`collbench -np 2 --sweep`
 * read -np as -n p): said for what they are. Open MPI's and MPICH's
 * common ones; collbench's own -n (--iters) and -f are not among them. */
static int launcher_option(int argc, char **argv, struct cb_error *err) {
  static const char *const opts[] = {"-np",
                                     "--np",
                                     "-H",
                                     "--host",
                                     "-host",
                                     "--hostfile",
                                     "-hostfile",
                                     "--machinefile",
                                     "-machinefile",
                                     "--map-by",
                                     "-map-by",
                                     "--bind-to",
                                     "-bind-to",
                                     "--oversubscribe",
                                     "-oversubscribe",
                                     "--mca",
                                     "-mca",
                                     "-x",
                                     "--npernode",
                                     "-npernode",
                                     "-ppn",
                                     "-hosts",
                                     "--rankfile",
                                     "--allow-run-as-root",
                                     NULL};
  for (int i = 1; i < argc; i++)
    for (int k = 0; opts[k]; k++) {
      size_t n = strlen(opts[k]);
      if (strncmp(argv[i], opts[k], n) != 0 || (argv[i][n] && argv[i][n] != '='))
        continue;
      const char *value = argv[i][n] == '=' ? argv[i] + n + 1 : i + 1 < argc ? argv[i + 1] : "";
      int takes = strcmp(opts[k], "--oversubscribe") && strcmp(opts[k], "-oversubscribe") &&
                  strcmp(opts[k], "--allow-run-as-root");
      return cb_fail(err, CB_USAGE,
                     "'%s' is an option of mpirun (or mpiexec), not of collbench: give it to the "
                     "launcher, before the program, e.g. 'mpirun %s%s%s ./collbench --sweep'",
                     argv[i], opts[k], takes && *value && argv[i][n] != '=' ? " " : "",
                     takes && argv[i][n] != '=' ? value : argv[i] + n);
    }
  return CB_OK;
}

const struct cb_mode_def *cb_mode_find(int argc, char **argv, union cb_mode_options *o,
                                       const struct cb_mode_def **failed, struct cb_error *err) {
  const struct cb_mode_def *asked[16], *m;
  int n = 0;
  *failed = NULL;
  memset(o, 0, sizeof *o);
  if (launcher_option(argc, argv, err))
    return NULL;
  if ((help_option = option_before_help(argc, argv, 1)) || (help_of = wants_help_of(argc, argv)) ||
      (help_option = option_before_help(argc, argv, 0)))
    return &cb_mode_help;
  for (int k = 0; cb_modes[k]; k++) /* the file modes, by their options */
    if (cb_modes[k]->parse && asks_for(cb_modes[k], argc, argv))
      asked[n++] = cb_modes[k];
  if ((m = winner(asked, n))) {
    if (m->parse(argc, argv, o, err)) {
      *failed = m;
      return NULL;
    }
    return m;
  }
  if (cb_cli_parse(argc, argv, &o->run.cli, err)) {
    *failed = &cb_mode_sweep; /* the measuring modes' parser: their --junit */
    const char *with = o->run.cli.unknown[0]
                           ? cb_option_goes_with(o->run.cli.unknown, CB_IN_RUN | CB_IN_TUNE)
                           : NULL;
    if (with) { /* another mode's option: say which, not that it does not exist */
      err->status = CB_OK;
      cb_fail(err, CB_USAGE, "%s goes with %s", o->run.cli.unknown, with);
    }
    return NULL;
  }
  n = 0;
  for (int k = 0; cb_modes[k]; k++) /* the measuring modes, by what the parser read */
    if (cb_modes[k]->chosen && cb_modes[k]->chosen(&o->run.cli))
      asked[n++] = cb_modes[k];
  return (m = winner(asked, n)) ? m : &cb_mode_sweep;
}

/* --list: what this build and machine can run. */
static void list(FILE *out) {
  struct cb_backend_info infos[CB_MAX_LIST];
  int n;
  cb_backend_infos(infos, &n);
  fprintf(out, "backends:\n");
  for (int i = 0; i < n; i++) {
    fprintf(out, "  %-8s %s (%s); transports:", infos[i].name,
            infos[i].usable ? "usable" : "not usable",
            infos[i].usable ? infos[i].version : infos[i].why);
    for (const char *const *t = cb_backends[i]->transports; *t; t++)
      fprintf(out, " %s", *t);
    fputc('\n', out);
  }
  for (int i = 0; cb_unbuilt_backends[i].name; i++)
    fprintf(out, "  %-8s not built: %s\n", cb_unbuilt_backends[i].name, cb_unbuilt_backends[i].why);
  fprintf(out, "memory kinds:\n");
  for (int m = 0; m < CB_NMEMS; m++) {
    char why[160];
    int usable = cb_gpu_mem_usable(m, why, sizeof why);
    fprintf(out, "  %-8s %s\n", cb_mem_names[m], usable ? "usable" : why);
  }
  char why[160];
  if (cb_mem_built(CB_MEM_DEVICE) && !cb_gpu_mpi_cuda_aware(why, sizeof why))
    fprintf(out, "  device memory with the mpi backend: %s\n", why);
  for (int b = 0; b < cb_nbackends && cb_mem_built(CB_MEM_DEVICE); b++)
    if (cb_backends[b]->mem_usable && !cb_backends[b]->mem_usable(CB_MEM_DEVICE, why, sizeof why))
      fprintf(out, "  device memory with the %s backend: %s\n", cb_backends[b]->name, why);
  fprintf(out, "ops:");
  for (int o = 0; o < CB_NOPS; o++)
    fprintf(out, " %s", cb_ops[o]->name);
  fprintf(out, "\ndtypes:");
  for (int d = 0; d < CB_NDTYPES; d++)
    fprintf(out, " %s", cb_dtypes[d].name);
  fprintf(out, "\nredops:");
  for (int r = 0; r < CB_NREDOPS; r++)
    fprintf(out, " %s", cb_redop_names[r]);
  fputc('\n', out);
}

static int help_chosen(const struct cb_cli *cli) {
  return cli->help || cli->version || cli->list;
}

/* --help, --version, --list: printed once, by the launcher's rank 0. */
static int help_run(union cb_mode_options *o, int argc, char **argv, struct cb_error *err) {
  (void)argc, (void)argv, (void)err;
  if (cb_launcher_rank() != 0)
    return CB_OK;
  if (help_option) {
    cb_option_help(stdout, help_option);
    printf("\nEvery option: collbench --help; a mode's own: collbench MODE --help\n");
    return CB_OK;
  }
  if (help_of) {
    cb_mode_usage(stdout, help_of);
    return CB_OK;
  }
  if (o->run.cli.help)
    cb_mode_usage(stdout, NULL);
  if (o->run.cli.version)
    printf("collbench %s (git %s)\nconfigured: %s\n", CB_VERSION, CB_GIT_COMMIT, CB_CONFIG_SUMMARY);
  if (o->run.cli.list)
    list(stdout);
  return CB_OK;
}

const struct cb_mode_def cb_mode_help = {
    .name = "help",
    .synopsis = "collbench --help [MODE] | MODE --help | --version | --list",
    .chosen = help_chosen,
    .run = help_run,
};
