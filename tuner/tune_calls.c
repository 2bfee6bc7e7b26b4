/* --tune --calls CALLS: tune exactly what a job called (tune_calls.h). */
#include "tune_calls.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/ompi_algo.h"
#include "base/stats.h"
#include "base/units.h"
#include "engine/engine.h"
#include "envfile.h"
#include "import/calls.h"
#include "ops/op.h"
#include "output/replace.h"
#include "output/runinfo.h"
#include "runtime/memory.h"
#include "runtime/mpit.h"
#include "search.h"

#define MAX_ALGS 10

/* One call the run can tune, and what its algorithms measured. */
struct tuned_call {
  const struct cb_call *call;
  int op, nalgs;     /* algorithms 0 (the library's) .. nalgs */
  int alg[MAX_ALGS]; /* Open MPI's numbers, alg[0] = 0 */
  struct cb_stats t[MAX_ALGS];
  int best;   /* index into alg */
  int beyond; /* best beats the library's beyond the noise */
};

static int fits(const struct cb_cluster *cl, const struct cb_call *r) {
  return r->known && r->nranks == cl->nranks && cb_ompi_coll_name(cb_op_lookup(r->op));
}

/* coll/tuned's algorithms of op that run on p ranks: two_proc only on 2. */
static int algorithms(int op, int p, int *alg) {
  int n = 0;
  alg[n++] = 0;
  for (int a = 1; a < MAX_ALGS && cb_ompi_algo_name(op, a); a++)
    if (p == 2 || strcmp(cb_ompi_algo_name(op, a), "two_proc") != 0)
      alg[n++] = a;
  return n - 1;
}

/* A sink that keeps the row's time. */
/* Writes the algorithm variable, read back: a library that accepts the
 * write and keeps its value would make every candidate the same. */
static int force(MPI_T_cvar_handle h, const char *name, int alg, struct cb_error *err) {
  int got = -1;
  if (MPI_T_cvar_write(h, &alg) != MPI_SUCCESS || MPI_T_cvar_read(h, &got) != MPI_SUCCESS ||
      got != alg)
    return cb_fail(err, CB_RUNTIME, "MPI_T did not take %s = %d", name, alg);
  return CB_OK;
}

/* Every algorithm of one call, `reps` rounds, a rotating order in each:
 * a row through the engine on communicators made after the write, which
 * is when coll/tuned reads a forced algorithm. */
static int measure(const struct cb_cluster *cl, const struct cb_settings *s,
                   const struct cb_run_info *ri, int reps, struct tuned_call *c,
                   struct cb_error *err) {
  char name[96];
  snprintf(name, sizeof name, "coll_tuned_%s_algorithm", cb_ompi_coll_name(c->op));
  MPI_T_cvar_handle h;
  if (!cb_mpit_find_cvar(name, MPI_INT, &h))
    return cb_fail(err, CB_USAGE,
                   "--tune --calls: this MPI has no %s to force (Open MPI's coll/tuned)", name);
  int launch = 0;
  MPI_T_cvar_read(h, &launch);
  int n = c->nalgs + 1, rc = CB_OK;
  double *v = malloc((size_t)n * (size_t)reps * sizeof *v), got = NAN;
  if (!v)
    rc = cb_fail(err, CB_RUNTIME, "out of memory for %d rounds", reps);
  struct cb_settings one = *s;
  one.ops[0] = c->op, one.nops = 1;
  one.min_bytes = one.max_bytes = c->call->bytes;
  one.backends[0] = cb_backend_lookup("mpi"), one.nbackends = 1;
  one.mems[0] = CB_MEM_HOST, one.nmems = 1;
  if (one.max_time > 0.1) /* a row per algorithm and round: short ones, many of them */
    one.max_time = 0.1;
  const struct cb_backend *mpi = cb_backends[one.backends[0]];
  struct cb_sink cap = cb_sink_row_time(&got);
  struct cb_summary sum = {0};
  for (int r = 0; r < reps && rc == CB_OK; r++)
    for (int k = 0; k < n && rc == CB_OK; k++) {
      int i = (k + r) % n;
      rc = force(h, name, c->alg[i] ? c->alg[i] : launch, err);
      got = NAN;
      if (rc == CB_OK)
        rc = cb_engine_measure(cl, &one, ri, &mpi, 1, &cap, 1, &sum, err);
      v[i * reps + r] = got;
    }
  force(h, name, launch, &(struct cb_error){0});
  MPI_T_cvar_handle_free(&h);
  if (rc == CB_OK && sum.wrong)
    rc = cb_fail(err, CB_FAILED, "--tune --calls: %ld wrong values in %s of %llu B", sum.wrong,
                 c->call->op, (unsigned long long)c->call->bytes);
  for (int i = 0; i < n && rc == CB_OK; i++)
    cb_stats_compute(v + (size_t)i * reps, (size_t)reps, &c->t[i]);
  free(v);
  if (rc != CB_OK)
    return rc;
  c->best = 0;
  for (int i = 1; i < n; i++)
    if (c->t[i].median < c->t[c->best].median)
      c->best = i;
  struct cb_score b = {c->t[c->best].median, c->t[c->best].ci95},
                  d = {c->t[0].median, c->t[0].ci95};
  c->beyond = c->best != 0 && cb_search_better(&b, &d);
  if (!c->beyond)
    c->best = 0;
  return CB_OK;
}

static void print(const struct tuned_call *c, int n, const char *path, int reps) {
  printf("# --tune --calls %s: each call's Open MPI coll/tuned algorithms at its size, %d rounds "
         "interleaved (time: the median row of each round, the slowest rank)\n",
         path, reps);
  printf("# %-14s %10s %8s %28s %36s\n", "op", "bytes", "calls", "library us [95% CI]",
         "tuned us [95% CI]");
  double lib = 0, tuned = 0, nccl = 0;
  int have_nccl = 1;
  for (int i = 0; i < n; i++) {
    const struct tuned_call *t = &c[i];
    const struct cb_stats *l = &t->t[0], *b = &t->t[t->best];
    char lb[64], tb[96];
    snprintf(lb, sizeof lb, "%.2f [%.2f, %.2f]", l->median, l->ci_lo, l->ci_hi);
    snprintf(tb, sizeof tb, "%s %.2f [%.2f, %.2f]",
             t->best ? cb_ompi_algo_name(t->op, t->alg[t->best]) : "library", b->median, b->ci_lo,
             b->ci_hi);
    printf("  %-14s %10llu %8ld %28s %36s\n", t->call->op, (unsigned long long)t->call->bytes,
           t->call->calls, lb, tb);
    printf("  #");
    for (int a = 1; a <= t->nalgs; a++)
      printf("%s %s %.2f", a > 1 ? "," : "", cb_ompi_algo_name(t->op, t->alg[a]), t->t[a].median);
    printf("\n");
    lib += (double)t->call->calls * l->median, tuned += (double)t->call->calls * b->median;
    if (isfinite(t->call->time_us))
      nccl += (double)t->call->calls * t->call->time_us;
    else
      have_nccl = 0;
  }
  printf("total, weighted by calls: library %.4g ms, tuned %.4g ms (%.1f%% less)", lib / 1e3,
         tuned / 1e3, lib > 0 ? 100 * (lib - tuned) / lib : 0);
  if (have_nccl && nccl > 0)
    printf("; the job's NCCL logged %.4g ms for them", nccl / 1e3);
  printf("\n# a call is tuned only where an algorithm beat the library's choice beyond the "
         "noise\n");
}

struct env_state {
  const struct tuned_call *c;
  int n;
  const char *path;
};

/* One process-wide value per collective: exported only where every call
 * of that op chose the same algorithm; otherwise said. */
static int write_env(void *state, FILE *f) {
  const struct env_state *e = state;
  const char *comments[2 + CB_NOPS];
  char head[512], notes[CB_NOPS][256], names[CB_NOPS][96], values[CB_NOPS][8];
  struct cb_env_var vars[1 + CB_NOPS];
  int nc = 0, nv = 0;
  snprintf(head, sizeof head,
           "collbench --tune --calls %s: Open MPI coll/tuned algorithms, one "
           "per collective",
           e->path);
  comments[nc++] = head;
  vars[nv++] = (struct cb_env_var){"OMPI_MCA_coll_tuned_use_dynamic_rules", "1"};
  for (int op = 0; op < CB_NOPS; op++) {
    int want = -1, conflict = 0;
    for (int i = 0; i < e->n; i++)
      if (e->c[i].op == op) {
        int a = e->c[i].alg[e->c[i].best];
        conflict |= want >= 0 && a != want;
        want = want < 0 ? a : want;
      }
    if (want <= 0 && !conflict)
      continue;
    if (conflict) {
      snprintf(notes[op], sizeof notes[op],
               "%s: not set, its calls chose different algorithms by size (one value a "
               "process cannot say it)",
               cb_ops[op]->name);
      comments[nc++] = notes[op];
      continue;
    }
    snprintf(names[op], sizeof names[op], "OMPI_MCA_coll_tuned_%s_algorithm",
             cb_ompi_coll_name(op));
    snprintf(values[op], sizeof values[op], "%d", want);
    vars[nv++] = (struct cb_env_var){names[op], values[op]};
  }
  struct cb_error err;
  return cb_env_write(f, comments, nc, vars, nv > 1 ? nv : 0, &err);
}

int cb_tune_calls(const struct cb_cluster *cl, const struct cb_tune_options *opt,
                  const struct cb_settings *s, int argc, char **argv, struct cb_error *err) {
  const struct cb_calls *calls = opt->calls;
  int rc = CB_OK;
  if (opt->backend && strcmp(opt->backend, "mpi"))
    rc = cb_fail(err, CB_USAGE,
                 "--tune --calls --backend %s: tuning a job's calls runs on the host (Open MPI's "
                 "coll/tuned) only; NCCL's is not built",
                 opt->backend);
  if (rc == CB_OK)
    rc = cb_calls_fit(cl, calls, opt->calls_path, err);
  if (rc == CB_OK && cl->rank == 0 && opt->env_out)
    rc = cb_output_check(opt->env_out, "--env-out", CB_OUT_REPLACE, err);
  if (cb_cluster_agree(cl, rc) != CB_OK)
    return rc ? rc : cb_fail(err, CB_USAGE, "another rank could not set up --tune --calls");
  struct tuned_call *c = calloc((size_t)calls->n, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "out of memory for %d calls", calls->n);
  int n = 0;
  for (int i = 0; i < calls->n; i++)
    if (fits(cl, &calls->v[i])) {
      c[n].call = &calls->v[i];
      c[n].op = cb_op_lookup(calls->v[i].op);
      c[n].nalgs = algorithms(c[n].op, cl->nranks, c[n].alg);
      n++;
    } else if (cl->rank == 0)
      printf("# %s of %llu B on %d ranks (%ld calls) left out: %s\n", calls->v[i].op,
             (unsigned long long)calls->v[i].bytes, calls->v[i].nranks, calls->v[i].calls,
             !calls->v[i].known                 ? "no collbench op"
             : calls->v[i].nranks != cl->nranks ? "another rank count than this run's"
                                                : "no coll/tuned algorithms to choose from");
  int provided;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  struct cb_run_info ri;
  cb_run_info_collect(&ri, argc, argv, cl, s);
  for (int i = 0; i < n && rc == CB_OK; i++)
    rc = cb_cluster_agree(cl, measure(cl, s, &ri, (int)opt->reps, &c[i], err));
  cb_run_info_free(&ri);
  MPI_T_finalize();
  if (rc == CB_OK && cl->rank == 0) {
    print(c, n, opt->calls_path, (int)opt->reps);
    if (opt->env_out) {
      struct env_state e = {c, n, opt->calls_path};
      rc = cb_replace_write(opt->env_out, "--env-out", write_env, &e, err);
      if (rc == CB_OK)
        printf("wrote %s\n", opt->env_out);
    }
  }
  free(c);
  return rc;
}
