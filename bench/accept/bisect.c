/* Collective bisection (bisect.h). */
#include "bisect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hostlist.h"
#include "engine/engine.h"
#include "expected.h"
#include "model/model.h"
#include "ops/op.h"

/* The record of the check's size and variant, from the engine's rows. */
struct capture {
  const struct cb_check *c;
  struct cb_record rec;
  int have;
};

static int capture_row(void *state, const struct cb_row *row, struct cb_error *err) {
  struct capture *cap = state;
  const struct cb_record *want = cap->c->inplace ? row->inplace : row->outofplace;
  (void)err;
  if (want && want->bytes == cap->c->bytes)
    cap->rec = *want, cap->have = 1;
  return CB_OK;
}

/* One set's figure, from its leader to rank 0. */
struct figure {
  int set, have, nranks, nnodes;
  double measured, lo, hi;
};

int cb_bisect_applies(const struct cb_cluster *cl, const struct cb_check *c) {
  return cl->nnodes >= 2 && cb_mop_find(cb_ops[c->op]->name) >= 0; /* a collective */
}

/* Every set (set_of_node[node], -1: not measured this round) measured at
 * once on its own communicator; rank 0 gets figs[set]. */
static int measure_sets(const struct cb_cluster *cl, const struct cb_check *c,
                        const struct cb_settings *base, const struct cb_run_info *ri,
                        const int *set_of_node, int nsets, struct figure *figs,
                        struct cb_error *err) {
  int set = set_of_node[cl->node];
  MPI_Comm sub;
  MPI_Comm_split(cl->comm, set >= 0 ? set : MPI_UNDEFINED, cl->rank, &sub);
  struct figure mine = {.set = -1};
  int rc = CB_OK;
  if (sub != MPI_COMM_NULL) {
    struct cb_cluster part;
    rc = cb_cluster_init_comm(&part, sub, err);
    MPI_Comm_free(&sub);
    if (rc == CB_OK) {
      struct cb_settings s;
      cb_check_settings(c, base, &s);
      struct capture cap = {.c = c};
      struct cb_sink sink = {.state = &cap, .row = capture_row};
      struct cb_summary sum;
      rc = cb_engine_run(&part, &s, ri, &sink, part.rank == 0, &sum, err);
      if (rc == CB_OK && part.rank == 0) {
        struct cb_verdict v = {0};
        int is_time = c->metric == CB_METRIC_TIME;
        mine = (struct figure){
            set, cap.have && cap.rec.wrong == 0, part.nranks, part.nnodes, NAN, NAN, NAN};
        if (mine.have) {
          v.measured = mine.measured = cb_check_figure(c, &cap.rec);
          cb_verdict_record_interval(&v, &cap.rec, is_time); /* from v.measured */
          mine.lo = v.interval ? v.lo : mine.measured;
          mine.hi = v.interval ? v.hi : mine.measured;
        }
      }
      cb_cluster_free(&part);
    }
  }
  if (cb_cluster_agree(cl, rc))
    return rc ? rc : cb_fail(err, CB_RUNTIME, "bisection: a measurement failed on another rank");
  struct figure *all = cl->rank == 0 ? calloc((size_t)cl->nranks, sizeof *all) : NULL;
  if (cl->rank == 0 && !all)
    return cb_fail(err, CB_RUNTIME, "bisection: out of memory for %d ranks", cl->nranks);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, 0, cl->comm);
  for (int r = 0; cl->rank == 0 && r < cl->nranks; r++)
    if (all[r].set >= 0 && all[r].set < nsets)
      figs[all[r].set] = all[r];
  free(all);
  return CB_OK;
}

/* The level for a set of n ranks on m nodes: the check's, scaled by what
 * the model expects there over `whole`, what it expects of the whole run
 * (NaN: no figure, the same level). */
static double set_level(const struct cb_accept_spec *t, const struct cb_check *c, double whole,
                        double level, int n, int m, int *scaled) {
  struct cb_expected part;
  char why[320];
  *scaled = !isnan(whole) && cb_expected_of(t, c, n, m, &part, why, sizeof why) == 0;
  return *scaled ? level * part.value / whole : level;
}

/* "sc1n[3-4]" of the nodes in set k. */
static const char *set_name(const struct cb_cluster *cl, const int *set_of_node, int k, char *buf,
                            size_t len) {
  const char **names = malloc((size_t)cl->nnodes * sizeof *names);
  int n = 0;
  for (int i = 0; names && i < cl->nnodes; i++)
    if (set_of_node[i] == k)
      names[n++] = cl->node_names[i];
  cb_hostlist(names, n, buf, len);
  free(names);
  return buf;
}

/* A node's place in the search: the failing set it is in (-1: cleared),
 * whether that set is final (its halves did not fail on their own, or are
 * too small to measure), and the set's last figure and level. */
struct place {
  int set, final;
  double measured, lo, hi, level;
};

/* Splits every failing set that is not final into two halves by node
 * order, each with at least `min` ranks; half[i] is node i's half (-1: not
 * measured this round). Returns the number of halves. */
static int split(const struct cb_cluster *cl, struct place *p, int min, int *half) {
  int nn = cl->nnodes, nsets = 0;
  for (int i = 0; i < nn; i++)
    half[i] = -1;
  for (int k = 0; k < nn; k++) {
    int members = 0, ranks = 0, first_ranks = 0, seen = 0;
    for (int i = 0; i < nn; i++)
      if (p[i].set == k && !p[i].final)
        members++, ranks += cl->ranks_on_node[i];
    if (members == 0)
      continue;
    int first = (members + 1) / 2;
    for (int i = 0; i < nn; i++)
      if (p[i].set == k && !p[i].final && seen++ < first)
        first_ranks += cl->ranks_on_node[i];
    if (members < 2 || first_ranks < min || ranks - first_ranks < min) {
      for (int i = 0; i < nn; i++) /* too small to split: the smallest it can name */
        p[i].final |= p[i].set == k;
      continue;
    }
    seen = 0;
    for (int i = 0; i < nn; i++)
      if (p[i].set == k && !p[i].final)
        half[i] = nsets + (seen++ >= first);
    nsets += 2;
  }
  return nsets;
}

int cb_bisect_run(const struct cb_cluster *cl, const struct cb_accept_spec *t,
                  const struct cb_check *c, double level, double measured,
                  const struct cb_settings *base, const struct cb_run_info *ri,
                  struct cb_sink *sinks, int nsinks, struct cb_bisect_found *found,
                  struct cb_error *err) {
  int nn = cl->nnodes, is_time = c->metric == CB_METRIC_TIME, rc = CB_OK;
  const char *unit = is_time ? "us" : "GB/s";
  memset(found, 0, sizeof *found);
  struct place *p = calloc((size_t)nn, sizeof *p);
  int *half = malloc((size_t)nn * sizeof *half), *status = malloc((size_t)nn * sizeof *status);
  struct figure *figs = calloc((size_t)nn, sizeof *figs);
  if (!p || !half || !status || !figs) {
    rc = cb_fail(err, CB_RUNTIME, "bisection: out of memory for %d nodes", nn);
    goto out;
  }
  for (int i = 0; i < nn; i++)
    p[i] = (struct place){0, 0, measured, measured, measured, level};
  struct cb_expected all;
  char why[320];
  double whole = cb_expected_of(t, c, cl->nranks, nn, &all, why, sizeof why) == 0 ? all.value : NAN;
  int rounds = (int)ceil(log2(nn));
  int min = cb_ops[c->op]->min_ranks > 2 ? cb_ops[c->op]->min_ranks : 2; /* busbw needs two */
  for (int round = 1; round <= rounds; round++) {
    int nsets = split(cl, p, min, half);
    if (nsets == 0)
      break;
    memset(figs, 0, (size_t)nn * sizeof *figs);
    if ((rc = measure_sets(cl, c, base, ri, half, nsets, figs, err)))
      goto out;
    double *levels = calloc((size_t)nsets, sizeof *levels);
    if (!levels) {
      rc = cb_fail(err, CB_RUNTIME, "bisection: out of memory");
      goto out;
    }
    if (cl->rank == 0) {
      char text[1536], name[256];
      int at = snprintf(text, sizeof text,
                        "bisection of check '%s', round %d of at most %d:", c->name, round, rounds);
      for (int k = 0; k < nsets; k++) {
        int scaled;
        levels[k] = set_level(t, c, whole, level, figs[k].nranks, figs[k].nnodes, &scaled);
        status[k] = figs[k].have ? cb_verdict_interval(figs[k].lo, figs[k].hi, levels[k], is_time)
                                 : CB_INCONCLUSIVE;
        if (at > 0 && (size_t)at < sizeof text)
          at +=
              snprintf(text + at, sizeof text - at, " %s %s, %.4g %s [%.4g, %.4g] against %.4g%s;",
                       set_name(cl, half, k, name, sizeof name), cb_verdict_names[status[k]],
                       figs[k].measured, unit, figs[k].lo, figs[k].hi, levels[k],
                       scaled ? " (the level scaled by the model)" : "");
      }
      cb_sinks_note(sinks, nsinks, text, err);
    }
    MPI_Bcast(status, nsets, MPI_INT, 0, cl->comm);
    /* follow the halves that failed; a set neither of whose halves failed
     * is final: the smallest failing set this search can name */
    for (int i = 0; i < nn; i++) {
      int h = half[i];
      if (h < 0)
        continue;
      if (status[h] == CB_FAIL)
        p[i] = (struct place){nn + h, 0, figs[h].measured, figs[h].lo, figs[h].hi, levels[h]};
      else if (status[h ^ 1] == CB_FAIL)
        p[i].set = -1;
      else
        p[i].final = 1;
    }
    free(levels);
    int *ids = malloc((size_t)2 * nn * sizeof *ids), nid = 0; /* renumber the sets from 0 */
    if (!ids) {
      rc = cb_fail(err, CB_RUNTIME, "bisection: out of memory");
      goto out;
    }
    for (int k = 0; k < 2 * nn; k++)
      ids[k] = -1;
    for (int i = 0; i < nn; i++)
      if (p[i].set >= 0)
        p[i].set = ids[p[i].set] >= 0 ? ids[p[i].set] : (ids[p[i].set] = nid++);
    free(ids);
  }
  for (int k = 0; cl->rank == 0 && k < nn && found->n < CB_BISECT_MAX_FOUND; k++) {
    int members = 0, first = -1;
    for (int i = 0; i < nn; i++)
      if (p[i].set == k)
        members++, first = first < 0 ? i : first;
    if (!members)
      continue;
    char list[CB_HOSTNAME_MAX + 8];
    for (int i = 0; i < nn; i++) /* half[] is free now: each node's final set */
      half[i] = p[i].set;
    set_name(cl, half, k, list, sizeof list);
    const struct place *q = &p[first];
    struct cb_verdict *v = &found->v[found->n];
    snprintf(found->names[found->n], sizeof found->names[0], "bisect %s", list);
    *v = (struct cb_verdict){.name = found->names[found->n],
                             .status = CB_FAIL,
                             .unit = unit,
                             .measured = q->measured,
                             .warn = NAN,
                             .fail = q->level,
                             .margin =
                                 is_time ? q->level / q->measured - 1 : q->measured / q->level - 1};
    if (q->lo < q->hi)
      cb_verdict_set_interval(v, q->lo, q->hi);
    snprintf(v->what, sizeof v->what,
             "'%.40s' FAILed on all %d nodes, none named by the matrix or evidence; halves "
             "measured at once: smallest failing set %.50s%.40s",
             c->name, nn, list, members > 1 ? " (its halves pass alone, or are too small)" : "");
    found->n++;
  }
out:
  free(p), free(half), free(status), free(figs);
  return rc;
}
