/* The run plan (run_plan.h) built from what argv said, before MPI starts:
 * the files argv names read (--accept's with its fleet baseline, --calls'),
 * a sweep's backends and memory kinds found, and the rules that need the
 * files or the hardware. */
#include <string.h>

#include "backends/backend.h"
#include "cli.h"
#include "ops/op.h"
#include "run_plan.h"
#include "runtime/gpu.h"

static int backend_has_transport(const struct cb_backend *b, const char *t) {
  for (const char *const *p = b->transports; *p; p++)
    if (strcmp(*p, t) == 0)
      return 1;
  return 0;
}

/* Whether the run uses (or a sweep left out) the backend called name. */
static int backend_asked(const struct cb_settings *s, const char *name) {
  for (int i = 0; i < s->nbackends; i++)
    if (strcmp(cb_backends[s->backends[i]]->name, name) == 0)
      return 1;
  for (int i = 0; i < s->nskipped_backends; i++)
    if (strcmp(cb_backends[s->skipped_backends[i]]->name, name) == 0)
      return 1;
  return 0;
}

/* The rules that need the plan (a sweep's backends are known only here):
 * a backend or memory kind this host lacks, a transport a backend has not,
 * and options that go with some backends only. */
static int validate(const struct cb_cli *cli, const struct cb_run_plan *plan,
                    struct cb_error *err) {
  const struct cb_settings *s = &plan->settings;
  if (s->ib_dev && !cli->accept_path && !backend_asked(s, "verbs"))
    return cb_fail(err, CB_USAGE,
                   "--ib-dev %s goes with --backend verbs (no other backend reads it)", s->ib_dev);
  /* NCCL registers a buffer with one communicator (ncclCommRegister's comm argument), and
   * --concurrent's ops run on communicators split per group: registered with the run's, the
   * buffers would be used unregistered, and the rows would say "register" all the same */
  if (s->reg && s->nconcurrent)
    return cb_fail(err, CB_USAGE,
                   "--register %s with --concurrent: NCCL registers a buffer with one "
                   "communicator, and --concurrent's ops run on communicators split per group; "
                   "measure registration without --concurrent",
                   cb_register_names[s->reg]);
  for (int i = 0; i < s->nbackends && s->reg; i++)
    if (strcmp(cb_backends[s->backends[i]]->name, "nccl") != 0)
      return cb_fail(err, CB_USAGE,
                     "--register %s: NCCL registers its own buffers; the nccl backend only, "
                     "not %s",
                     cb_register_names[s->reg], cb_backends[s->backends[i]]->name);
  for (int i = 0; i < s->nmems && s->reg; i++)
    if (s->mems[i] != CB_MEM_DEVICE)
      return cb_fail(err, CB_USAGE, "--register %s: device memory only, not --mem %s",
                     cb_register_names[s->reg], cb_mem_names[s->mems[i]]);
  if (s->graph > 0)
    for (int i = 0; i < s->nbackends; i++)
      if (strcmp(cb_backends[s->backends[i]]->name, "nccl") != 0)
        return cb_fail(err, CB_USAGE,
                       "--graph %ld: only the nccl backend captures CUDA graphs, "
                       "not %s",
                       s->graph, cb_backends[s->backends[i]]->name);
  for (int i = 0; i < s->nbackends; i++) {
    const struct cb_backend *be = cb_backends[s->backends[i]];
    char why[160];
    if (!be->probe(why, sizeof why)) {
      err->host = 1;
      return cb_fail(err, CB_USAGE, "--backend %s: %s (--list shows what this host has)", be->name,
                     why);
    }
    for (int t = 0; t < s->ntransports; t++)
      if (strcmp(s->transports[t], "all") != 0 && !backend_has_transport(be, s->transports[t]))
        return cb_fail(err, CB_USAGE,
                       "--transport %s: backend %s has no such path (choose "
                       "from those --list shows)",
                       s->transports[t], be->name);
    /* after the other items: "all" beside a typo is not the mistake */
    for (int t = 0; t < s->ntransports; t++)
      if (strcmp(s->transports[t], "all") == 0)
        return cb_fail(err, CB_USAGE,
                       "--transport all: transports are named one by one (those --list shows "
                       "for backend %s)",
                       be->name);
    /* MPI's path is fixed at MPI_Init, once per process. */
    if (be->pre_mpi_init && s->ntransports > 1)
      return cb_fail(err, CB_USAGE, "--transport %s: backend %s takes one transport per run",
                     s->transports[0], be->name);
  }
  /* after the backends: a backend's own reason (nccl: no GPU) says more */
  for (int m = 0; m < s->nmems; m++) {
    char why[160];
    if (!cb_gpu_mem_usable(s->mems[m], why, sizeof why)) {
      err->host = 1;
      return cb_fail(err, CB_USAGE, "--mem %s: %s (see --list)", cb_mem_names[s->mems[m]], why);
    }
  }
  /* a sweep leaves such pairs out itself (the engine says why) */
  for (int i = 0; i < s->nbackends && !cli->sweep; i++) {
    const struct cb_backend *be = cb_backends[s->backends[i]];
    char why[200];
    for (int m = 0; m < s->nmems && be->mem_usable; m++)
      if (!be->mem_usable(s->mems[m], why, sizeof why)) {
        err->host = 1;
        return cb_fail(err, CB_USAGE, "--backend %s --mem %s: %s", be->name,
                       cb_mem_names[s->mems[m]], why);
      }
  }
  return CB_OK;
}

/* Loads the acceptance file now, before MPI starts, so a bad file costs
 * nothing; every check's transport must be settable in one process. */
static int accept_file(const struct cb_cli *cli, struct cb_run_plan *plan,
                       const struct cb_check_reader *reader, struct cb_error *err) {
  struct cb_accept_spec *t = &plan->spec;
  if (cb_accept_spec_load(cli->accept_path, t, reader, err))
    return err->status;
  if (!plan->rules.bytes)
    plan->rules.bytes = t->matrix.bytes;
  if (cb_accept_spec_baseline(t, cli->baseline_path, cli->repeat, &plan->baseline, err))
    return err->status;
  for (int i = 0; i < t->nchecks; i++) {
    const struct cb_check *c = &t->checks[i];
    int b = cb_backend_lookup(c->backend_name);
    if (b < 0 || !cb_backends[b]->pre_mpi_init)
      continue;
    if (!backend_has_transport(cb_backends[b], c->transport))
      return cb_fail(err, CB_USAGE, "%s:%d: check '%s': backend %s has no transport '%s'",
                     t->system.path, c->line, c->name, c->backend_name, c->transport);
    for (int j = 0; j < i; j++)
      if (strcmp(t->checks[j].backend_name, c->backend_name) == 0 &&
          strcmp(t->checks[j].transport, c->transport) != 0)
        return cb_fail(err, CB_USAGE,
                       "%s:%d: check '%s': backend %s takes one transport per run (it reads "
                       "its environment once per process), and check '%s' asks for '%s'; put "
                       "the checks of each transport in a file of their own",
                       t->system.path, c->line, c->name, c->backend_name, t->checks[j].name,
                       t->checks[j].transport);
  }
  return CB_OK;
}

/* A sweep's backends and memory kinds where argv left them to it: every one
 * that works here (the engine notes the backends left out). */
static void sweep_finds(struct cb_settings *s) {
  if (s->nbackends == 0)
    for (int b = 0; b < cb_nbackends && s->nbackends < CB_MAX_LIST; b++) {
      char why[160];
      if (cb_backends[b]->probe(why, sizeof why))
        s->backends[s->nbackends++] = b;
      else
        s->skipped_backends[s->nskipped_backends++] = b;
    }
  if (s->nmems == 0)
    for (int m = 0; m < CB_NMEMS; m++) {
      char why[160];
      if (cb_gpu_mem_usable(m, why, sizeof why))
        s->mems[s->nmems++] = m;
    }
}

int cb_run_plan_build(const struct cb_cli *cli, struct cb_run_plan *plan, struct cb_error *err) {
  cb_calls_free(&plan->calls); /* a plan built again (the unit tests) */
  memset(plan, 0, sizeof *plan);
  plan->settings = cli->settings;
  plan->tune = cli->tune;
  plan->out = (struct cb_run_outputs){cli->json_path, cli->csv_path, cli->prom_path,
                                      cli->junit_path, cli->exclude_path};
  plan->judged = cli->accept_path || cli->matrix;
  plan->resume = cli->resume, plan->progress = cli->progress, plan->dry_run = cli->dry_run;
  plan->rules.bytes = cli->matrix_bytes;
  if (cli->calls_path) { /* read now: a bad file is said before MPI starts */
    if (cb_calls_read(cli->calls_path, &plan->calls, err))
      return err->status;
    plan->calls_path = cli->calls_path;
    if (plan->tune.calls_path)
      plan->tune.calls = &plan->calls;
  }
  if (cli->accept_path && accept_file(cli, plan, &cb_cli_check_reader, err))
    return err->status;
  cb_matrix_rules_defaults(&plan->rules);
  sweep_finds(&plan->settings);
  return validate(cli, plan, err);
}
