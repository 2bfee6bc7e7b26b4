/* One mode of collbench as the table (modes.c) holds it: how it is
 * chosen, whether it needs MPI and at which thread level, its options
 * (its --help sections, its parser) and its work. Each mode_NAME.c
 * defines one or a few of these. */
#ifndef CB_MODES_MODE_H
#define CB_MODES_MODE_H

#include "cli.h"
#include "fleet/compare.h"
#include "import/import.h"
#include "import/inspector.h"
#include "model/commands.h"
#include "option_table.h"
#include "report/report.h"
#include "run_plan.h"

/* The measuring modes: what argv said (cb_cli_parse), and the plan built
 * from it before MPI starts (their pre_mpi: cb_run_plan_build). */
struct cb_run_mode {
  struct cb_cli cli;
  struct cb_run_plan plan;
};

/* What a mode parsed; the measuring modes share struct cb_run_mode. */
union cb_mode_options {
  struct cb_run_mode run;
  struct cb_report_cli report;
  struct cb_model_cli model;
  struct cb_import_cli import;
  struct cb_inspector_cli inspector;
  struct cb_baseline_cli baseline;
  struct cb_compare_cli compare;
};

/* Whether a mode runs under MPI, and at which thread level. */
enum cb_mode_mpi { CB_MPI_NONE, CB_MPI_SINGLE, CB_MPI_SERIALIZED };

struct cb_mode_def {
  const char *name; /* collbench NAME --help */
  int option;       /* the option table's code of the option that asks for it (OPT_REPORT), or 0 */
  const char *synopsis;            /* its usage line */
  const enum cb_section *sections; /* its --help sections, CB_SEC_NONE-terminated */
  /* A mode of its own parser (the file modes): chosen when argv asks for
   * it (its option, or wants where that is not enough), then parsed by
   * parse. The measuring modes share the
   * measuring options' parser (cli.c) and are chosen by what it parsed. */
  int (*wants)(int argc, char **argv);
  int (*parse)(int argc, char **argv, union cb_mode_options *o, struct cb_error *err);
  int (*chosen)(const struct cb_cli *cli);
  /* The modes (by name) that win when argv asks for this one and one of
   * them too (--report FILE --baseline B: the report's --baseline, not a
   * fleet baseline's old spelling); NULL-terminated, or NULL. */
  const char *const *yields;
  /* Whether (and how) this run needs MPI; NULL: it does not. */
  enum cb_mode_mpi (*mpi)(const union cb_mode_options *o);
  int mpi_without_argv; /* MPI_Init gets no argv (it would misread ours) */
  /* Before MPI_Init: what parsing left to do (files loaded, hardware
   * asked: a usage error still exits 2 before MPI), and what MPI or NCCL
   * read then set; may be NULL. */
  int (*pre_mpi)(union cb_mode_options *o, int launcher_rank, struct cb_error *err);
  /* The work. Without MPI: prints its own errors, returns the exit status.
   * Under MPI: returns the status with err filled, for main to report. */
  int (*run)(union cb_mode_options *o, int argc, char **argv, struct cb_error *err);
  /* --junit FILE on a run that ends in an error: the file says so. */
  void (*on_error)(const union cb_mode_options *o, const struct cb_error *err);
};

#endif
