/* Acceptance against a fleet baseline (accept.h, struct cb_fleet): each
 * check, node and link judged by its robust z-score among healthy runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "fleet_verdict.h"
#include "ops/op.h"

static void append(struct cb_verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void append(struct cb_verdict *v, const char *fmt, ...) {
  size_t len = strlen(v->what);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->what + len, sizeof v->what - len, fmt, ap);
  va_end(ap);
}

void cb_fleet_verdict(const struct cb_fleet *f, const struct cb_dist *d, int metric,
                      double measured, struct cb_verdict *v) {
  const struct cb_bl_metric_info *mi = &cb_bl_metrics[metric];
  v->unit = mi->unit;
  v->measured = measured;
  v->warn = NAN;
  if (!d || d->n < f->min_runs) {
    v->status = CB_WARN;
    v->unjudged = 1;
    v->fail = v->margin = NAN;
    append(v, ": cannot judge: the baseline has %d figure%s of it, fewer than %ld", d ? d->n : 0,
           d && d->n == 1 ? "" : "s", f->min_runs);
    return;
  }
  if (isnan(measured)) {
    v->status = CB_FAIL;
    v->fail = v->margin = NAN;
    append(v, ": not measured");
    return;
  }
  double sigma = cb_dist_sigma(d, mi->floor);
  /* A fleet spread so wide that even the default rule could fail no
   * bandwidth is the data's fault: no verdict. A looser k of the user's
   * whose fail level falls under 0 is the rule's: it fails nothing. */
  if (mi->higher_better && !(d->median - CB_BASELINE_K * sigma > 0)) {
    v->status = CB_WARN;
    v->unjudged = 1;
    v->fail = v->margin = NAN;
    append(v,
           ": cannot judge: the fleet's spread %.3g is over 1/%g of its median %.4g (its runs "
           "differ too much), so no figure could fail",
           sigma, CB_BASELINE_K, d->median);
    return;
  }
  v->fail = mi->higher_better ? d->median - f->k * sigma : d->median + f->k * sigma;
  if (!(v->fail > 0))
    v->fail = 0;
  if (v->record) /* the figure's own 95% interval, as a level's check judges it */
    cb_verdict_record_interval(v, v->record, !mi->higher_better);
  cb_verdict_judge(v, !mi->higher_better, CB_SETTLE_ENGINE);
  if (v->fail == 0)
    v->margin = NAN; /* no headroom over a level of 0 to speak of */
  double z = cb_robust_z(d, measured, mi->higher_better, mi->floor);
  append(v,
         ": %.4g %s, fleet median %.4g, spread %.3g (1.4826 MAD, >= %g%% of median), %d "
         "figures: z %+.2f, fails under z -%g",
         measured, mi->unit, d->median, sigma, mi->floor * 100, d->n, z, f->k);
}

static int check_metric(const struct cb_check *c) {
  return c->metric == CB_METRIC_TIME    ? CB_BLM_TIME
         : c->metric == CB_METRIC_ALGBW ? CB_BLM_ALGBW
                                        : CB_BLM_BUSBW;
}

static double record_value(const struct cb_record *r, int metric) {
  return metric == CB_BLM_TIME    ? r->time_us
         : metric == CB_BLM_ALGBW ? r->algbw_GBps
                                  : r->busbw_GBps;
}

void cb_fleet_judge_check(const struct cb_fleet *f, const struct cb_check *c,
                          const struct cb_record *rec, char *name, size_t name_size,
                          struct cb_verdict *v) {
  char size[32];
  memset(v, 0, sizeof *v);
  snprintf(name, name_size, "fleet %s", c->name);
  v->name = name;
  v->line = c->line;
  v->record = rec;
  int m = check_metric(c);
  snprintf(v->what, sizeof v->what, "%s %s %s %s %s", cb_ops[c->op]->name, c->backend_name,
           cb_mem_names[c->mem], cb_format_size(c->bytes, size, sizeof size),
           cb_bl_metrics[m].name);
  const struct cb_bl_entry *e = rec ? cb_baseline_find(f->b, rec) : NULL;
  cb_fleet_verdict(f, e ? &e->d[m] : NULL, m, rec ? record_value(rec, m) : NAN, v);
}

int cb_fleet_suspect(const struct cb_fleet *f, const struct cb_check *c,
                     const struct cb_record *rec) {
  struct cb_verdict v = {0};
  char name[96];
  cb_fleet_judge_check(f, c, rec, name, sizeof name, &v);
  return rec && (v.status == CB_FAIL || v.status == CB_INCONCLUSIVE);
}

/* ---- the matrix ---- */

/* The fleet's pooled entry ("*") of pairs or nodes at a size. */
static const struct cb_bl_entry *fleet_entry(const struct cb_fleet *f, int kind, uint64_t bytes) {
  struct cb_bl_entry key = {.kind = kind, .bytes = bytes};
  snprintf(key.src, sizeof key.src, "*");
  snprintf(key.dst, sizeof key.dst, "%s", kind == CB_BL_PAIR ? "*" : "");
  return cb_baseline_find_entry(f->b, &key);
}

static const struct cb_dist *fleet_dist(const struct cb_fleet *f, int kind, uint64_t bytes) {
  const struct cb_bl_entry *e = fleet_entry(f, kind, bytes);
  return e ? &e->d[CB_BLM_BW] : NULL;
}

static int emit(const struct cb_cluster *cl, struct cb_sink *sinks, int nsinks,
                struct cb_verdict *v, struct cb_accept_result *res, struct cb_error *err) {
  return cb_accept_emit(cl, sinks, nsinks, v, res, err);
}

/* The retest of pair p (round 0, same ends), if the matrix made one. */
static const struct cb_pair *retest_of(const struct cb_pair *pairs, int npairs,
                                       const struct cb_pair *p) {
  for (int i = 0; i < npairs; i++)
    if (pairs[i].round == 0 && pairs[i].src == p->src && pairs[i].dst == p->dst &&
        !isnan(pairs[i].bw_GBps))
      return &pairs[i];
  return NULL;
}

int cb_fleet_judge_pairs(const struct cb_cluster *cl, const struct cb_fleet *f,
                         const struct cb_pair *pairs, int npairs, struct cb_sink *sinks, int nsinks,
                         struct cb_accept_result *res, struct cb_error *err) {
  if (cl->rank != 0 || npairs <= 0)
    return CB_OK;
  char names[2][192];
  struct cb_verdict v = {0};
  int slow = 0, judged = 0, cannot = 0;
  uint64_t bytes = 0;
  for (int i = 0; i < npairs; i++) { /* links: only the slow ones named */
    const struct cb_pair *p = &pairs[i];
    if (p->round <= 0 || isnan(p->bw_GBps))
      continue;
    bytes = p->bytes;
    memset(&v, 0, sizeof v);
    snprintf(names[0], sizeof names[0], "fleet link %s->%s", p->src_host, p->dst_host);
    v.name = names[0];
    /* A pair the matrix retested alone is judged by its retests: its round
     * figure shares the links with the round's other pairs (a slow node's
     * outgoing pairs queue behind its incoming traffic), which is contention,
     * not the link. */
    const struct cb_pair *alone = retest_of(pairs, npairs, p);
    snprintf(v.what, sizeof v.what, "rank %d -> %d bandwidth%s", p->src, p->dst,
             alone ? ", retested alone" : "");
    cb_fleet_verdict(f, fleet_dist(f, CB_BL_PAIR, p->bytes), CB_BLM_BW,
                     alone ? alone->bw_GBps : p->bw_GBps, &v);
    judged++;
    if (v.status == CB_PASS)
      continue;
    if (v.status == CB_WARN) { /* cannot judge any link: said once, for all */
      v.name = "fleet links";
      cannot = 1;
    }
    slow += v.status == CB_FAIL;
    if (emit(cl, sinks, nsinks, &v, res, err))
      return err->status;
    if (cannot)
      break;
  }
  if (judged && !slow && !cannot) {
    memset(&v, 0, sizeof v);
    v.name = "fleet links";
    snprintf(v.what, sizeof v.what, "%d pairs, none slower than the fleet allows", judged);
    v.status = CB_PASS;
    v.unit = "GB/s";
    v.measured = v.fail = v.warn = v.margin = NAN;
    if (emit(cl, sinks, nsinks, &v, res, err))
      return err->status;
  }
  /* nodes: as the baseline computed them (cb_bl_nodes); judged as a share
   * of the run's median pair where the baseline has those shares (a run
   * slow as a whole is a slow machine or fabric, for the links and the
   * checks to judge, not a slow node) */
  struct cb_bl_link *links = malloc((npairs + 1) * sizeof *links);
  struct cb_bl_node *nodes = malloc((2 * npairs + 1) * sizeof *nodes);
  int n = 0;
  for (int i = 0; i < npairs; i++)
    if (pairs[i].round > 0 && !isnan(pairs[i].bw_GBps))
      links[n++] = (struct cb_bl_link){pairs[i].src_host, pairs[i].dst_host, pairs[i].bw_GBps};
  double run;
  int nn = cb_bl_nodes(links, n, nodes, &run);
  const struct cb_bl_entry *base = fleet_entry(f, CB_BL_NODE, bytes);
  int by_share = base && base->d[CB_BLM_SHARE].n > 0 && run > 0;
  int rc = CB_OK;
  for (int k = 0; k < nn && rc == CB_OK; k++) {
    const struct cb_bl_node *o = &nodes[k];
    memset(&v, 0, sizeof v);
    snprintf(names[1], sizeof names[1], "fleet node %s", o->host);
    v.name = names[1];
    int w =
        snprintf(v.what, sizeof v.what,
                 "the slower of its directions (upper median pair): received %.4g, sent %.4g GB/s",
                 o->in_GBps, o->out_GBps);
    if (by_share) {
      if (w > 0 && (size_t)w < sizeof v.what)
        snprintf(v.what + w, sizeof v.what - w, ", over the run's median pair %.4g", run);
      cb_fleet_verdict(f, &base->d[CB_BLM_SHARE], CB_BLM_SHARE, o->share, &v);
    } else {
      cb_fleet_verdict(f, base ? &base->d[CB_BLM_BW] : NULL, CB_BLM_BW, o->bw_GBps, &v);
    }
    if (emit(cl, sinks, nsinks, &v, res, err))
      rc = err->status;
  }
  free(nodes);
  free(links);
  return rc;
}
