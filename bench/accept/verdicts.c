/* What every acceptance check ends in (verdicts.h). */
#include "verdicts.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "base/hostlist.h"
#include "causes.h"
#include "ops/op.h"

double cb_check_figure(const struct cb_check *c, const struct cb_record *rec) {
  return c->metric == CB_METRIC_TIME    ? rec->time_us
         : c->metric == CB_METRIC_BUSBW ? rec->busbw_GBps
                                        : rec->algbw_GBps;
}

/* The host a verdict names as its subject, or NULL: "node HOST" (the
 * matrix's), "hung HOST" (a rank there stopped answering), "bisect HOST"
 * (bisection's smallest failing set, one node). */
static const char *named_host(const char *name) {
  static const char *const kinds[] = {"node ", "hung ", "bisect "};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    if (strncmp(name, kinds[k], strlen(kinds[k])) == 0)
      return name + strlen(kinds[k]);
  return NULL;
}

/* A FAIL laid to hosts: "node HOST" names one; otherwise each host a
 * cause was found on (a link or a whole-run check names no one node).
 * Returns how many hosts it was laid to. */
static int lay_blame(struct cb_accept_result *res, const struct cb_verdict *v,
                     const struct cb_causes *cs) {
  const struct cb_probe *p = res->probe;
  if (!res->hosts && !(res->hosts = calloc((size_t)p->nnodes, sizeof *res->hosts)))
    return 0;
  int laid = 0;
  double growth = cb_cost_step_growth(v->cost);
  const char *host = named_host(v->name);
  for (int i = 0; i < p->nnodes; i++) {
    struct cb_host_outcome *h = &res->hosts[i];
    int named = host && strcmp(host, p->nodes[i].hostname) == 0;
    const struct cb_cause *first = NULL;
    for (int k = 0; k < cs->n && !first; k++)
      if (!cs->c[k].load && strcmp(cs->c[k].host, p->nodes[i].hostname) == 0)
        first = &cs->c[k];
    if (!named && !first)
      continue;
    if (!h->failed)
      h->cost = NAN;
    h->failed = 1;
    laid++;
    if (!isnan(growth) && !(h->cost >= growth)) /* the costliest defect here */
      h->cost = growth, h->cost_gpus = v->cost->gpus;
    size_t n = strlen(h->checks);
    if (n + strlen(v->name) + 3 < sizeof h->checks)
      snprintf(h->checks + n, sizeof h->checks - n, "%s%s", n ? ", " : "", v->name);
    if (first && !h->cause[0])
      snprintf(h->cause, sizeof h->cause, "%s: %s", first->device, first->text);
  }
  return laid;
}

int cb_accept_emit(const struct cb_cluster *cl, struct cb_sink *sinks, int nsinks,
                   const struct cb_verdict *given, struct cb_accept_result *res,
                   struct cb_error *err) {
  if (cl->rank != 0)
    return CB_OK;
  struct cb_verdict vv = *given, *v = &vv;
  vv.causes = NULL;    /* only what is found here */
  struct cb_causes cs; /* issue 41: why, beside every verdict that did not pass */
  if (v->status != CB_PASS && res->probe && res->probe->nnodes > 0) {
    const struct cb_window *w = v->window == CB_MATRIX_WINDOW ? res->matrix_window
                                : v->window > 0 && v->window <= res->nwindows
                                    ? &res->windows[v->window - 1]
                                    : NULL;
    cb_causes_find(res->probe->nodes, res->probe->nnodes, v->name, v->record, w, &cs);
    if (v->status == CB_FAIL) /* others' load on a node slows every check it is in */
      cb_contention_causes(&res->load, &cs);
    v->causes = &cs;
    if (v->status == CB_FAIL ? lay_blame(res, v, &cs) == 0 : v->status == CB_INCONCLUSIVE)
      res->unlaid++; /* no host cleared: the hosts read "not named", not "healthy" */
  } else if (v->status == CB_FAIL || v->status == CB_INCONCLUSIVE)
    res->unlaid++;
  res->unjudged += v->unjudged;
  (*(v->status == CB_PASS   ? &res->pass
     : v->status == CB_WARN ? &res->warn
     : v->status == CB_FAIL ? &res->fail
                            : &res->inconclusive))++;
  cb_verdict_name_not_passed(res->not_passed, sizeof res->not_passed, v);
  for (int i = 0; i < nsinks; i++)
    if (sinks[i].verdict && sinks[i].verdict(sinks[i].state, v, err))
      return err->status;
  return CB_OK;
}

int cb_accept_status(const struct cb_accept_result *res, struct cb_error *err) {
  int total = res->pass + res->warn + res->fail + res->inconclusive;
  if (res->fail > 0)
    return cb_fail(err, CB_FAILED, "FAILED: %d of %d acceptance verdicts%s", res->fail, total,
                   res->inconclusive ? " (and some INCONCLUSIVE)" : "");
  /* not shown to be good enough, so not accepted: a gate that let it
   * through would pass on noise, as the old point verdicts did */
  if (res->inconclusive > 0)
    return cb_fail(err, CB_FAILED,
                   "INCONCLUSIVE: %d of %d acceptance verdicts could not be settled (the "
                   "measured interval contains the level): not accepted; measure longer or on a "
                   "quieter machine",
                   res->inconclusive, total);
  return CB_OK;
}

int cb_accept_excluded(const struct cb_accept_result *res, const char **names, int max) {
  int n = 0;
  for (int i = 0; res->probe && res->hosts && i < res->probe->nnodes && n < max; i++)
    if (res->hosts[i].failed)
      names[n++] = res->probe->nodes[i].hostname;
  return n;
}

void cb_accept_result_free(struct cb_accept_result *res) {
  free(res->hosts);
  free(res->windows);
  free(res->matrix_window);
  res->hosts = NULL, res->windows = NULL, res->nwindows = 0, res->matrix_window = NULL;
  cb_contention_free(&res->load);
}

int cb_accept_window(const struct cb_cluster *cl, struct cb_counters *before, struct cb_window *w,
                     struct cb_error *err) {
  int nodes = cl->rank == 0 ? cl->nnodes : 1;
  struct cb_counters *after = malloc((size_t)nodes * sizeof *after);
  if (!after)
    return cb_fail(err, CB_RUNTIME, "out of memory for %d nodes' counters", nodes);
  cb_counters_gather(cl, after);
  if (cl->rank == 0 && w) {
    struct cb_counters rose;
    for (int i = 0; i < cl->nnodes; i++) {
      cb_counters_delta(&before[i], &after[i], &rose);
      for (int k = 0; k < rose.n; k++) {
        if (w->n == CB_MAX_ROSE) {
          w->more++;
          continue;
        }
        w->r[w->n].node = i;
        w->r[w->n++].c = rose.c[k];
      }
    }
    memcpy(before, after, (size_t)cl->nnodes * sizeof *after); /* the next window's start */
  }
  free(after);
  return CB_OK;
}

/* One line per host, then the hosts to exclude in Slurm's form: what a
 * scheduler (sbatch --exclude, a taint script) can act on. */
void cb_accept_print_hosts(const struct cb_accept_result *res) {
  const struct cb_probe *p = res->probe;
  if (!p || p->nnodes == 0)
    return;
  int *order = malloc((size_t)p->nnodes * sizeof *order);
  if (!order)
    return;
  /* the costliest first (issue 58: what to fix first), then the other
   * failed hosts, then the healthy, each in the run's order */
  int norder = 0;
  for (int pass = 0; pass < 3; pass++)
    for (int i = 0; i < p->nnodes; i++) {
      const struct cb_host_outcome *h = res->hosts ? &res->hosts[i] : NULL;
      int group = !h || !h->failed ? 2 : isnan(h->cost) ? 1 : 0;
      if (group == pass)
        order[norder++] = i;
    }
  for (int a = 1; a < norder; a++) /* insertion sort of the priced by cost, stable */
    for (int b = a;
         b > 0 && res->hosts && res->hosts[order[b]].failed && !isnan(res->hosts[order[b]].cost) &&
         res->hosts[order[b - 1]].failed && !isnan(res->hosts[order[b - 1]].cost) &&
         res->hosts[order[b]].cost > res->hosts[order[b - 1]].cost;
         b--) {
      int x = order[b];
      order[b] = order[b - 1], order[b - 1] = x;
    }
  /* "healthy" only when every verdict that did not pass was laid to a
   * host: one laid to none (a whole-run check, an INCONCLUSIVE) clears no
   * host, which then reads "not named" */
  int all_passed = res->unlaid == 0;
  printf("# hosts: %s, or what FAILed on it (the costliest first) and the likeliest cause\n",
         all_passed ? "healthy" : "not named (a verdict laid to no host did not pass)");
  for (int k = 0; k < norder; k++) {
    int i = order[k];
    const struct cb_host_outcome *h = res->hosts ? &res->hosts[i] : NULL;
    if (!h || !h->failed)
      printf("  host %-20s %s\n", p->nodes[i].hostname, all_passed ? "healthy" : "not named");
    else if (!isnan(h->cost))
      printf("  host %-20s FAIL %s; step %+.0f%% at %d GPUs; likeliest cause: %s\n",
             p->nodes[i].hostname, h->checks, 100 * h->cost, h->cost_gpus,
             h->cause[0] ? h->cause : "none found in the evidence gathered");
    else
      printf("  host %-20s FAIL %s; likeliest cause: %s\n", p->nodes[i].hostname, h->checks,
             h->cause[0] ? h->cause : "none found in the evidence gathered");
  }
  free(order);
  const char **names = malloc((size_t)p->nnodes * sizeof *names);
  int n = names ? cb_accept_excluded(res, names, p->nnodes) : 0;
  if (n) {
    char list[1024];
    printf("# exclude (Slurm hostlist): %s\n", cb_hostlist(names, n, list, sizeof list));
  }
  free(names);
}

void cb_accept_print_answer(int total, int not_passed, int warn, int unjudged, const char *names,
                            const char *over) {
  char unj[160] = "";
  if (unjudged) /* a baseline of one run judged nothing: never a quiet ACCEPTED */
    snprintf(unj, sizeof unj,
             "; %d of them judged nothing (WARN: cannot judge, the baseline's runs too few or "
             "too spread)",
             unjudged);
  if (not_passed)
    printf("NOT ACCEPTED: %d of %d verdicts%s did not pass: %s%s\n", not_passed, total, over, names,
           unj);
  else
    printf("ACCEPTED: %d of %d verdicts%s passed%s%s\n", total, total, over,
           warn > unjudged ? " (WARN among them: over the fail level, under the warn level)" : "",
           unj);
  fflush(stdout);
}

int cb_accept_conclude(struct cb_sink *sinks, int nsinks, const struct cb_summary *sum,
                       const struct cb_accept_result *res, const char *over, struct cb_error *err) {
  if (cb_sinks_finish(sinks, nsinks, sum, err))
    return err->status;
  if (!over)
    return CB_OK;
  cb_accept_print_hosts(res);
  /* one line that answers the question the run was for */
  cb_accept_print_answer(res->pass + res->warn + res->fail + res->inconclusive,
                         res->fail + res->inconclusive, res->warn, res->unjudged, res->not_passed,
                         over);
  return CB_OK;
}

int cb_accept_finish(const struct cb_cluster *cl, const struct cb_settings *s,
                     struct cb_sink *sinks, int nsinks, const struct cb_summary *sum,
                     struct cb_accept_result *res, struct cb_error *err) {
  if (cl->rank == 0 &&
      cb_accept_conclude(sinks, nsinks, sum, res, s->interval <= 0 ? "" : NULL, err))
    return err->status;
  int counts[4] = {res->pass, res->warn, res->fail, res->inconclusive}; /* judged on rank 0 */
  MPI_Bcast(counts, 4, MPI_INT, 0, cl->comm);
  res->pass = counts[0], res->warn = counts[1], res->fail = counts[2];
  res->inconclusive = counts[3];
  return CB_OK;
}

/* The check's settings: the command line's timing options, and over
 * them the options the check gives (read when the file was, so they
 * apply), the check's op, backend, memory, transport, type, size and
 * variant. */
void cb_check_settings(const struct cb_check *c, const struct cb_settings *base,
                       struct cb_settings *s) {
  *s = *base;
  for (int i = 0; i < c->noptions; i++) {
    struct cb_error ignored = {0};
    c->reader->apply(c->options[i].code, c->options[i].value, s, &ignored);
  }
  s->ops[0] = c->op;
  s->nops = 1;
  s->backends[0] = cb_backend_lookup(c->backend_name);
  s->nbackends = 1;
  s->mems[0] = c->mem;
  s->nmems = 1;
  s->transports[0] = c->transport;
  s->ntransports = 1;
  s->dtypes[0] = c->dtype;
  s->ndtypes = 1;
  s->redops[0] = CB_SUM;
  s->nredops = 1;
  s->min_bytes = s->max_bytes = c->bytes;
  /* only the layout the check judges: the other would double its time */
  s->variant = c->inplace ? CB_VARIANT_IN_PLACE : CB_VARIANT_OUT_OF_PLACE;
  if (s->check < 1)
    s->check = 1; /* acceptance never judges an unchecked figure */
}
