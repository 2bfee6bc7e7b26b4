/* --fit, --validate and --predict: read, fit, check the fit against other
 * measurements, predict, print tables and (with --json) one JSON document. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../output/replace.h"
#include "base/units.h"
#include "commands.h"
#include "config.h"
#include "groups.h"
#include "nccl_predict.h"
#include "plan.h"
#include "topology/topology.h"

#if CB_HAVE_JANSSON
#include <jansson.h>

static json_t *num(double x) {
  return isfinite(x) ? json_real(x) : json_null();
}

static const char *inplace_name(int inplace) {
  return inplace ? "in-place" : "out-of-place";
}

/* the group's recorded algorithm (and NCCL protocol); a buffer per call site */
#define algo_label(g) cb_fit_group_label((g), (char[48]){0}, 48)

static const char *labels(const struct cb_fit_group *g, char *buf, size_t len) {
  snprintf(buf, len, "%s/%s/%s/%s", g->backend, g->mem, g->transport, g->dtype);
  return buf;
}

static const char *rank_list(const struct cb_fit_group *g, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  for (int i = 0; i < g->nranks && at < len; i++)
    at += snprintf(buf + at, len - at, "%s%d", i ? "," : "", g->ranks[i]);
  return buf;
}

static int read_all(const char *opt, const char *const *paths, int n, struct cb_rep_data *d,
                    struct cb_error *err) {
  d->runs = calloc(n, sizeof *d->runs);
  d->nruns = n;
  for (int i = 0; i < n; i++) {
    FILE *f = fopen(paths[i], "r"); /* our own message, naming our option */
    if (!f)
      return cb_fail(err, CB_USAGE, "%s: cannot read '%s': %s", opt, paths[i], strerror(errno));
    fclose(f);
    if (cb_rep_read_opt(opt, paths[i], i, d, err))
      return err->status;
  }
  return CB_OK;
}

/* ---- --fit ---- */

static json_t *print_fits(const struct cb_fit_groups *gs) {
  json_t *arr = json_array();
  char lb[160], rk[96];
  printf("# fit: time = steps * alpha + share * bytes * beta [+ gamma * sum over steps of "
         "min(message, queue) for messages >= rndv], per recorded algorithm "
         "through its cost shape (ring where none is recorded; bench/model/PLANNING.md, \"Capacity "
         "planning\")\n");
  printf("%-14s %-10s %-24s %-12s %-18s %-8s %6s %9s %9s %8s %8s %8s\n", "# op", "tier",
         "backend/mem/transport", "variant", "algorithm", "ranks", "points", "alpha_us", "bw_GB/s",
         "R^2", "med_err", "max_err");
  for (int i = 0; i < gs->n; i++) {
    const struct cb_fit_group *g = &gs->g[i];
    labels(g, lb, sizeof lb), rank_list(g, rk, sizeof rk);
    if (!g->fitted) {
      printf("%-14s %-10s %-24s %-12s %-18s %-8s %6d  (one size only: alpha and beta not "
             "separable)\n",
             cb_mop_names[g->op], cb_tier_kind_names[g->tier], lb, inplace_name(g->inplace),
             algo_label(g), rk, g->npts);
      continue;
    }
    const struct cb_fit *f = &g->fit;
    double bw = f->link.beta > 0 ? 1e-9 / f->link.beta : INFINITY;
    printf("%-14s %-10s %-24s %-12s %-18s %-8s %6d %9.3f %9.3f %8.4f %7.1f%% %7.1f%%%s\n",
           cb_mop_names[g->op], cb_tier_kind_names[g->tier], lb, inplace_name(g->inplace),
           algo_label(g), rk, f->npoints, f->link.alpha * 1e6, bw, f->r2, 100 * f->median_rel,
           100 * f->max_rel, g->pooled ? "  (pooled: the link fitted on all its algorithms)" : "");
    if (f->link.gamma > 0)
      printf("%-14s   rendezvous wait: gamma %.3g s/B (%.2f x beta) on messages >= %.0f B, "
             "up to %.0f B each\n",
             "", f->link.gamma, f->link.beta > 0 ? f->link.gamma / f->link.beta : INFINITY,
             f->link.rndv, f->link.queue);
    json_t *ranks = json_array();
    for (int k = 0; k < g->nranks; k++)
      json_array_append_new(ranks, json_integer(g->ranks[k]));
    json_array_append_new(
        arr,
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:o, s:i, s:f, s:f, s:o, s:f, "
                  "s:f, s:f}",
                  "op", cb_mop_names[g->op], "tier", cb_tier_kind_names[g->tier], "backend",
                  g->backend, "mem", g->mem, "transport", g->transport, "dtype", g->dtype, "redop",
                  g->redop, "inplace", g->inplace, "nranks", ranks, "points", f->npoints, "alpha_s",
                  f->link.alpha, "beta_s_per_byte", f->link.beta, "bandwidth_GBps", num(bw), "r2",
                  f->r2, "median_rel_error", f->median_rel, "max_rel_error", f->max_rel));
    if (f->link.gamma > 0) { /* the rendezvous wait, where the fit kept it */
      json_t *o = json_array_get(arr, json_array_size(arr) - 1);
      json_object_set_new(o, "gamma_s_per_byte", json_real(f->link.gamma));
      json_object_set_new(o, "rndv_bytes", json_real(f->link.rndv));
      json_object_set_new(o, "queue_bytes", json_real(f->link.queue));
    }
    if (g->algo[0]) { /* the algorithm the results recorded, and the shape it was fitted with */
      json_t *o = json_array_get(arr, json_array_size(arr) - 1);
      json_object_set_new(o, "pooled", json_boolean(g->pooled));
      json_object_set_new(o, "algo", json_string(g->algo));
      if (g->proto[0])
        json_object_set_new(o, "proto", json_string(g->proto));
      json_object_set_new(o, "shape",
                          json_string(g->shape >= 0 ? cb_shape_names[g->shape] : "ring (assumed)"));
    }
  }
  return arr;
}

/* ---- --validate ---- */

struct verr {
  double err;
  const char *op;
  int nranks;
  uint64_t bytes;
};

static int by_abs_err(const void *a, const void *b) {
  double x = fabs(((const struct verr *)a)->err), y = fabs(((const struct verr *)b)->err);
  return (x > y) - (x < y);
}

/* Median and max of |error| over v[0..n) (sorted in place), printed and as JSON. */
static json_t *summary(const char *what, struct verr *v, int n) {
  qsort(v, n, sizeof *v, by_abs_err);
  double med = n % 2 ? fabs(v[n / 2].err) : (fabs(v[n / 2 - 1].err) + fabs(v[n / 2].err)) / 2;
  const struct verr *worst = &v[n - 1];
  char sz[32];
  printf("# validation %-14s %4d points: median |error| %6.1f%%, max %7.1f%% (%s, %d ranks, %s)\n",
         what, n, 100 * med, 100 * fabs(worst->err), worst->op, worst->nranks,
         cb_format_size(worst->bytes, sz, sizeof sz));
  return json_pack("{s:i, s:f, s:f, s:{s:s, s:i, s:I}}", "points", n, "median_abs_rel_error", med,
                   "max_abs_rel_error", fabs(worst->err), "worst", "op", worst->op, "nranks",
                   worst->nranks, "bytes", (json_int_t)worst->bytes);
}

/* The held-out error per op and size: where the model is right and where not. */
static json_t *per_size(struct cb_err_point *ep, int n) {
  struct cb_err_row *rows = malloc(n * sizeof *rows);
  int nrows = cb_err_rows(ep, n, rows);
  json_t *arr = json_array();
  char sz[32];
  printf("# validation per op and size (error = predicted / measured - 1)\n");
  printf("%-14s %10s %6s %12s %12s %12s\n", "# op", "size", "points", "median_err", "median_|err|",
         "max_|err|");
  for (int i = 0; i < nrows; i++) {
    const struct cb_err_row *r = &rows[i];
    printf("%-14s %10s %6d %11.1f%% %11.1f%% %11.1f%%\n", cb_mop_names[r->op],
           cb_format_size(r->bytes, sz, sizeof sz), r->points, 100 * r->median, 100 * r->median_abs,
           100 * r->max_abs);
    json_array_append_new(
        arr, json_pack("{s:s, s:I, s:i, s:f, s:f, s:f}", "op", cb_mop_names[r->op], "bytes",
                       (json_int_t)r->bytes, "points", r->points, "median_rel_error", r->median,
                       "median_abs_rel_error", r->median_abs, "max_abs_rel_error", r->max_abs));
  }
  free(rows);
  return arr;
}

/* The held-out error of one op (predicted / measured - 1), signed: what
 * --predict carries into its rows as an interval. n 0: none measured. */
struct held_out {
  int n;
  double lo, hi;
};

static int validate(const struct cb_fit_groups *gs, const struct cb_rep_data *d, const int *want,
                    struct held_out *ho, json_t **out, struct cb_error *err) {
  int cap = 0, n = 0, unmatched = 0;
  for (int i = 0; i < d->nseries; i++)
    cap += d->series[i].npts;
  struct verr *v = malloc((cap ? cap : 1) * sizeof *v);
  struct cb_err_point *ep = malloc((cap ? cap : 1) * sizeof *ep);
  json_t *pts = json_array();
  char lb[160], sz[32];
  printf("# validation: measured points predicted from the fit above; race: a rendezvous race "
         "makes the measured time %s\n",
         CB_RACE_NOTE);
  printf("%-14s %-10s %-24s %-12s %-18s %6s %6s %10s %12s %12s %8s\n", "# op", "tier",
         "backend/mem/transport", "variant", "algorithm", "ranks", "nodes", "size", "measured_us",
         "predicted_us", "error");
  for (int i = 0; i < d->nseries; i++) {
    const struct cb_rep_series *s = &d->series[i];
    int op = cb_mop_find(s->op);
    if (op < 0 || !want[op])
      continue;
    for (int k = 0; k < s->npts; k++) {
      const struct cb_record *r = &s->pts[k];
      const struct cb_fit_group *g = cb_fit_groups_match(gs, s, r);
      if (!g || r->nranks < 2 || !(r->time_us > 0)) {
        unmatched++;
        continue;
      }
      double pred = cb_fit_group_time(g, r) * 1e6;
      double e = (pred - r->time_us) / r->time_us;
      ep[n] = (struct cb_err_point){op, r->bytes, e};
      if (ho[op].n++ == 0 || e < ho[op].lo)
        ho[op].lo = e;
      if (ho[op].n == 1 || e > ho[op].hi)
        ho[op].hi = e;
      v[n++] = (struct verr){e, cb_mop_names[op], r->nranks, r->bytes};
      int race = cb_fit_group_races(gs, g, r);
      printf("%-14s %-10s %-24s %-12s %-18s %6d %6d %10s %12.2f %12.2f %7.1f%%%s\n",
             cb_mop_names[op], cb_tier_kind_names[g->tier], labels(g, lb, sizeof lb),
             inplace_name(s->inplace), algo_label(g), r->nranks, r->nnodes,
             cb_format_size(r->bytes, sz, sizeof sz), r->time_us, pred, 100 * e,
             race ? "  race" : ""); /* the header says what a race means, once */
      json_array_append_new(
          pts, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:i, s:i, s:I, s:f, s:f, s:f}", "op",
                         cb_mop_names[op], "tier", cb_tier_kind_names[g->tier], "backend",
                         s->backend, "mem", s->mem, "transport", s->transport, "dtype", s->dtype,
                         "inplace", s->inplace, "nranks", r->nranks, "nnodes", r->nnodes, "bytes",
                         (json_int_t)r->bytes, "measured_us", r->time_us, "predicted_us", pred,
                         "rel_error", e));
      if (g->algo[0])
        json_object_set_new(json_array_get(pts, json_array_size(pts) - 1), "algo",
                            json_string(g->algo));
      if (race)
        json_object_set_new(json_array_get(pts, json_array_size(pts) - 1), "uncertain",
                            json_string(CB_RACE_JSON));
    }
  }
  if (n == 0) {
    free(v);
    free(ep);
    json_decref(pts);
    return cb_fail(err, CB_USAGE,
                   "--validate: no measured point matches a fit (same op, backend, memory, "
                   "transport, dtype, in-place and tier)");
  }
  if (unmatched)
    printf("# validation: %d points without a matching fit left out\n", unmatched);
  json_t *per_op = json_object();
  struct verr *one = malloc(n * sizeof *one);
  for (int op = 0; op < CB_NMOPS; op++) {
    int m = 0;
    for (int i = 0; i < n; i++)
      if (strcmp(v[i].op, cb_mop_names[op]) == 0)
        one[m++] = v[i];
    if (m)
      json_object_set_new(per_op, cb_mop_names[op], summary(cb_mop_names[op], one, m));
  }
  json_t *all = summary("all ops", v, n);
  json_object_set_new(all, "per_op", per_op);
  json_object_set_new(all, "per_op_size", per_size(ep, n));
  free(ep);
  *out = json_pack("{s:o, s:o}", "summary", all, "points", pts);
  free(one);
  free(v);
  return CB_OK;
}

/* ---- --predict ---- */

/* How far a size may lie outside the fitted sizes before its row is
 * marked extrapolated: two doublings (the alpha-beta terms are fitted
 * where they were measured; past that, a protocol or algorithm switch
 * the fit never saw can change the cost). */
#define SIZE_FACTOR 4.0

/* What the fit behind one op's predictions can vouch for: its error as a
 * range of measured / predicted (held-out from --validate where there is
 * one, else the fit's own residuals, else unknown), and the ranks per node
 * and sizes its points cover. */
struct reach {
  const char *err_from; /* "validation", "fit residuals" or "unknown" */
  int err_points;
  double ratio_lo, ratio_hi; /* measured / predicted; NaN: unknown */
  int fitted;                /* some tier came from the fit */
  int per_node;              /* the most ranks on one node among the fitted points */
  double lo_bytes, hi_bytes; /* the fitted points' sizes */
};

/* Each op's system: the topology's tiers, replaced by fitted ones where the
 * fit has them. `from` says where each tier came from, for the tables. */
struct source {
  struct cb_system sys[CB_NMOPS];
  char from[CB_NMOPS][CB_NTIERS][200];
  struct reach reach[CB_NMOPS];
};

static int ranks_per_node_of(const struct cb_fit_point *pt) {
  int nodes = pt->nnodes > 0 ? pt->nnodes : 1;
  return (pt->nranks + nodes - 1) / nodes;
}

static struct reach reach_of(const struct cb_fit_groups *gs, int op, const struct held_out *ho) {
  struct reach r = {"unknown", 0, NAN, NAN, 0, 0, INFINITY, 0};
  double resid = -1;
  for (int k = 0; k < CB_NTIERS; k++) {
    const struct cb_fit_group *g = cb_fit_groups_pick(gs, op, k);
    if (!g)
      continue;
    r.fitted = 1;
    if (g->fit.max_rel > resid)
      resid = g->fit.max_rel;
    r.err_points += g->npts;
    for (int i = 0; i < g->npts; i++) {
      const struct cb_fit_point *pt = &g->pts[i];
      r.lo_bytes = fmin(r.lo_bytes, pt->bytes);
      r.hi_bytes = fmax(r.hi_bytes, pt->bytes);
      if (ranks_per_node_of(pt) > r.per_node)
        r.per_node = ranks_per_node_of(pt);
    }
  }
  if (ho && ho[op].n) { /* error = predicted / measured - 1 */
    r.err_from = "validation";
    r.err_points = ho[op].n;
    r.ratio_lo = 1 / (1 + ho[op].hi);
    r.ratio_hi = 1 / (1 + ho[op].lo);
  } else if (resid >= 0) { /* |predicted - measured| / measured <= resid */
    r.err_from = "fit residuals";
    r.ratio_lo = 1 / (1 + resid);
    r.ratio_hi = resid < 1 ? 1 / (1 - resid) : INFINITY;
  } else
    r.err_points = 0;
  return r;
}

/* Why a row lies beyond what the fit can describe ("" when it does not). */
static const char *extrapolated(const struct reach *r, int per_node, double bytes, char *buf,
                                size_t len) {
  buf[0] = '\0';
  if (!r->fitted)
    return buf;
  size_t at = 0;
  if (per_node > r->per_node)
    at += snprintf(buf, len, "%d ranks per node (fit: %d)", per_node, r->per_node);
  if (bytes > r->hi_bytes * SIZE_FACTOR || bytes < r->lo_bytes / SIZE_FACTOR) {
    char lo[32], hi[32];
    snprintf(buf + at, len - at, "%ssize more than %gx outside the fitted %s to %s", at ? ", " : "",
             SIZE_FACTOR, cb_format_size((uint64_t)r->lo_bytes, lo, sizeof lo),
             cb_format_size((uint64_t)r->hi_bytes, hi, sizeof hi));
  }
  return buf;
}

static void print_tier(const struct source *src, int op, int k) {
  const struct cb_link *l = &src->sys[op].tier[k];
  if (l->set)
    printf("#   %s: alpha %.3f us, %.3f GB/s%s (%s)\n", cb_tier_kind_names[k], l->alpha * 1e6,
           l->beta > 0 ? 1e-9 / l->beta : INFINITY, k == CB_TIER_INTER ? " per node" : " per rank",
           src->from[op][k]);
  else
    printf("#   %s: unknown: nothing predicted that needs it\n", cb_tier_kind_names[k]);
}

/* The error line above an op's table: where its interval comes from. */
static void print_reach(const struct reach *r) {
  if (isnan(r->ratio_lo))
    printf("#   error: unknown (no fit behind these tiers; --fit with --validate measures it): "
           "rows carry no interval\n");
  else
    printf("#   error: measured / predicted was %.2f to %.2f over %d %s point%s (%s); each row's "
           "interval is the best time times that%s\n",
           r->ratio_lo, r->ratio_hi, r->err_points,
           strcmp(r->err_from, "validation") == 0 ? "held-out" : "fitted",
           r->err_points == 1 ? "" : "s", r->err_from,
           strcmp(r->err_from, "validation") == 0
               ? ""
               : "\n#   (in-sample: the error beyond the fitted points is larger; --validate "
                 "measures it)");
  if (r->fitted) {
    char lo[32], hi[32];
    printf("#   fitted on up to %d rank%s per node, sizes %s to %s; rows beyond (more ranks per "
           "node, or sizes past %gx either way) are marked EXTRAPOLATED\n",
           r->per_node, r->per_node == 1 ? "" : "s",
           cb_format_size((uint64_t)r->lo_bytes, lo, sizeof lo),
           cb_format_size((uint64_t)r->hi_bytes, hi, sizeof hi), SIZE_FACTOR);
  }
}

static json_t *interval_json(const struct reach *r, double time_s, int op, int n, double bytes) {
  double lo = time_s * r->ratio_lo, hi = time_s * r->ratio_hi;
  return json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "source", r->err_from, "points",
                   r->err_points, "ratio_lo", num(r->ratio_lo), "ratio_hi", num(r->ratio_hi),
                   "time_s_lo", num(lo), "time_s_hi", num(hi), "busbw_GBps_lo",
                   num(cb_model_busbw(op, n, bytes, hi) * 1e-9), "busbw_GBps_hi",
                   num(cb_model_busbw(op, n, bytes, lo) * 1e-9));
}

static json_t *predict_op(const struct cb_model_cli *m, const struct source *src, int op,
                          int *count, int *nextra) {
  const struct cb_system *s = &src->sys[op];
  const struct reach *rc = &src->reach[op];
  json_t *rows = json_array();
  char sz[32], why[160];
  printf("# %s, %ld ranks per node\n", cb_mop_names[op], (long)s->ranks_per_node);
  for (int k = 0; k < CB_NTIERS; k++)
    print_tier(src, op, k);
  print_reach(rc);
  if (s->tier[CB_TIER_INTER].set && s->tier[CB_TIER_INTER].beta > 0)
    printf("#   across nodes ring and tree stay under %.1f GB/s busbw (the inter-node tier); "
           "hier, reducing within\n#   each node first, can pass it; NVLS and CollNet/SHARP "
           "are not in this table (for a GPU\n#   topology NCCL's section has them)\n",
           1e-9 / s->tier[CB_TIER_INTER].beta);
  printf("%7s %6s %10s %11s %9s %11s %9s %11s %9s  %-12s %s\n", "#  gpus", "nodes", "size",
         "ring_us", "ring_GB/s", "tree_us", "tree_GB/s", "hier_us", "hier_GB/s", "best",
         "best_us_interval");
  for (int z = 0; z < m->nsizes; z++)
    for (int i = 0; i < m->ngpus; i++) {
      int n = (int)m->gpus[i], per = s->ranks_per_node < n ? s->ranks_per_node : n;
      int nodes = (n + per - 1) / per;
      double bytes = (double)m->sizes[z];
      struct cb_prediction p[CB_NALGOS], best;
      json_t *algos = json_object();
      printf("%7d %6d %10s", n, nodes, cb_format_size(m->sizes[z], sz, sizeof sz));
      for (int a = 0; a < CB_NALGOS; a++) {
        p[a] = cb_model_predict(op, a, s, n, bytes);
        if (isfinite(p[a].time_s))
          printf(" %11.2f %9.3f", p[a].time_s * 1e6, p[a].busbw_Bps * 1e-9);
        else
          printf(" %11s %9s", "-", "-");
        json_t *o = json_pack("{s:o, s:o}", "time_s", num(p[a].time_s), "busbw_GBps",
                              num(p[a].busbw_Bps * 1e-9));
        if (a == CB_ALGO_HIER && p[a].inter_algo >= 0)
          json_object_set_new(o, "inter_node", json_string(cb_algo_names[p[a].inter_algo]));
        if (p[a].race)
          json_object_set_new(o, "uncertain", json_string(CB_RACE_JSON));
        if (isfinite(p[a].time_s)) {
          json_object_set_new(o, "time_s_lo", num(p[a].time_s * rc->ratio_lo));
          json_object_set_new(o, "time_s_hi", num(p[a].time_s * rc->ratio_hi));
        }
        json_object_set_new(algos, cb_algo_names[a], o);
      }
      int b = cb_model_best(op, s, n, bytes, &best);
      char range[48] = "-";
      if (b >= 0 && !isnan(rc->ratio_lo)) {
        double lo = best.time_s * rc->ratio_lo * 1e6, hi = best.time_s * rc->ratio_hi * 1e6;
        snprintf(range, sizeof range, "[%.*f, %.*f]", lo < 1000 ? 2 : 0, lo, hi < 1000 ? 2 : 0, hi);
      } else if (b >= 0)
        snprintf(range, sizeof range, "unknown");
      printf("  %-12s %s", b >= 0 ? cb_algo_names[b] : "-", range);
      /* the algorithms whose time a rendezvous race makes uncertain */
      int nrace = 0;
      for (int a = 0; a < CB_NALGOS; a++)
        if (p[a].race)
          printf("%s%s", nrace++ ? "," : "  race: ", cb_algo_names[a]);
      printf("%s", nrace ? " " CB_RACE_NOTE : "");
      extrapolated(rc, per, bytes, why, sizeof why);
      if (b >= 0 && why[0])
        printf("  EXTRAPOLATED: %s", why), ++*nextra;
      printf("\n");
      *count += b >= 0;
      json_t *row = json_pack("{s:s, s:i, s:i, s:I, s:o, s:o}", "op", cb_mop_names[op], "gpus", n,
                              "nodes", nodes, "bytes", (json_int_t)m->sizes[z], "algorithms", algos,
                              "best", b >= 0 ? json_string(cb_algo_names[b]) : json_null());
      if (b >= 0)
        json_object_set_new(row, "interval", interval_json(rc, best.time_s, op, n, bytes));
      if (b >= 0 && why[0])
        json_object_set_new(row, "extrapolated", json_string(why));
      json_array_append_new(rows, row);
    }
  return rows;
}

/* The step to predict: the command line's, or a trials file's, and how
 * it is played out (overlap, and what it came from). */
struct step_in {
  double compute_s;
  uint64_t grad_bytes;
  struct cb_plan_measured meas;
  double overlap;
  char overlap_from[256];
};

/* "ring@4M/2" (recorded at 4 MiB on 2 ranks) or "best:hierarchical". */
static const char *step_algo(const struct cb_step_result *r, char *buf, size_t len) {
  char sz[32];
  if (r->rec)
    snprintf(buf, len, "%s%s%s@%s/%d", r->rec->algo, r->rec->proto[0] ? "/" : "", r->rec->proto,
             cb_format_size((uint64_t)r->rec->bytes, sz, sizeof sz), r->rec->nranks);
  else
    snprintf(buf, len, "best:%s", r->best >= 0 ? cb_algo_names[r->best] : "-");
  return buf;
}

/* The training step's communication ratio and overhead against cluster and
 * bucket size, then the planning table. */
static json_t *predict_step(const struct cb_model_cli *m, const struct source *src,
                            const struct step_in *step, const struct cb_step_opts *opt) {
  char sz[32], gb[32], ab[96];
  json_t *rows = json_array();
  printf("# training step: compute %g s, gradients %s; buckets overlap the compute as they fill "
         "(all but the last can hide);\n# overlap %g: compute runs at %g x its speed while an "
         "allreduce runs (%s)\n",
         step->compute_s, cb_format_size(step->grad_bytes, gb, sizeof gb), opt->overlap,
         opt->overlap, step->overlap_from);
  if (opt->allreduce_s)
    printf("# allreduce per bucket at NCCL's own pick and time (its cost model, bench/model/"
           "PLANNING.md;\n# calibrated by --fit nccl records where given), nccl:ALGO/PROTO of the "
           "first bucket\n");
  else if (opt->nrec)
    printf("# allreduce per bucket with the algorithm the fit's results recorded at the nearest "
           "measured size (then rank count)\n# on the bucket's tier, ALGO@SIZE/RANKS; best:ALGO, "
           "the fastest modelled, where none was recorded on that tier\n");
  else
    printf("# allreduce per bucket with the fastest modelled algorithm (best:ALGO): no result "
           "recorded the algorithm it ran\n");
  printf("# rho = exposed communication / compute; overhead = exposed / step = rho / (1 + rho)\n");
  printf("%7s %10s %8s %12s %12s %8s %9s  %s\n", "#  gpus", "bucket", "buckets", "comm_ms",
         "exposed_ms", "rho", "overhead", "algorithm");
  for (int i = 0; i < m->ngpus; i++)
    for (int b = 0; b < m->nbuckets; b++) {
      struct cb_step_result r;
      printf("%7ld %10s", m->gpus[i], cb_format_size(m->buckets[b], sz, sizeof sz));
      if (cb_model_step(&src->sys[CB_MOP_ALLREDUCE], (int)m->gpus[i], step->compute_s,
                        (double)step->grad_bytes, (double)m->buckets[b], opt, &r)) {
        printf(" %8s %12s %12s %8s %9s  %s\n", "-", "-", "-", "-", "-", "-");
        continue;
      }
      double o = cb_overhead_from_rho(r.rho);
      if (opt->allreduce_s) /* NCCL's pick for the first (full) bucket */
        cb_nccl_pick_label(opt->ctx, (int)m->gpus[i],
                           fmin((double)m->buckets[b], (double)step->grad_bytes), ab, sizeof ab);
      printf(" %8d %12.3f %12.3f %8.4f %8.1f%%  %s%s\n", r.nbuckets, r.comm_s * 1e3,
             r.exposed_s * 1e3, r.rho, 100 * o,
             opt->allreduce_s ? ab : step_algo(&r, ab, sizeof ab),
             r.rec && r.nrecorded < r.nbuckets ? " (best for the rest)" : "");
      json_t *row =
          json_pack("{s:i, s:I, s:i, s:f, s:f, s:f, s:f, s:s, s:i}", "gpus", (int)m->gpus[i],
                    "bucket_bytes", (json_int_t)m->buckets[b], "buckets", r.nbuckets, "comm_s",
                    r.comm_s, "exposed_s", r.exposed_s, "rho", r.rho, "overhead", o, "algorithm",
                    opt->allreduce_s ? ab
                    : r.rec          ? r.rec->algo
                                     : (r.best >= 0 ? cb_algo_names[r.best] : "-"),
                    "buckets_recorded", r.nrecorded);
      json_object_set_new(row, "algorithm_from",
                          json_string(opt->allreduce_s ? "nccl"
                                      : r.rec          ? "recorded"
                                                       : "best"));
      if (r.rec) {
        if (r.rec->proto[0])
          json_object_set_new(row, "proto", json_string(r.rec->proto));
        json_object_set_new(row, "recorded_bytes", json_integer((json_int_t)r.rec->bytes));
        json_object_set_new(row, "recorded_nranks", json_integer(r.rec->nranks));
      }
      json_array_append_new(rows, row);
    }
  json_t *plan = cb_plan_print(m, &src->sys[CB_MOP_ALLREDUCE], step->compute_s, step->grad_bytes,
                               opt, &step->meas);
  return json_pack("{s:f, s:I, s:f, s:s, s:o, s:o}", "compute_s", step->compute_s, "grad_bytes",
                   (json_int_t)step->grad_bytes, "overlap", opt->overlap, "overlap_from",
                   step->overlap_from, "rows", rows, "plan", plan);
}

/* --overlap measured: the F at which the model's step reproduces the
 * tuned settings' measured overlap efficiency (T_comm split over the
 * buckets in proportion to their bytes). */
static int overlap_from_trials(const char *path, const struct cb_rep_tune *t, struct step_in *step,
                               struct cb_error *err) {
  const struct cb_rep_tune_cfg *c = &t->tuned;
  if (isnan(c->overlap_efficiency) || !(c->t_comm_us > 0))
    return cb_fail(err, CB_USAGE,
                   "--overlap measured: --trials %s has no overlap_efficiency and t_comm_us in "
                   "its summary",
                   path);
  char sz[32];
  double f = 1;
  int rc = cb_model_overlap_from_efficiency(c->t_compute_us * 1e-6, c->t_comm_us * 1e-6,
                                            (double)t->grad_bytes, (double)c->bucket_bytes,
                                            c->overlap_efficiency, &f);
  const char *why = rc == 0   ? "reproduces"
                    : rc == 1 ? (f == 0 ? "is the nearest to (communication slowed compute by "
                                          "more than its own time)"
                                        : "is the nearest to")
                              : NULL;
  if (why) {
    step->overlap = f;
    snprintf(step->overlap_from, sizeof step->overlap_from,
             "measured: %s's overlap efficiency %.2f at bucket %s, which this F %s", path,
             c->overlap_efficiency, cb_format_size(c->bucket_bytes, sz, sizeof sz), why);
  } else { /* one bucket: it is full only when compute ends; nothing overlaps */
    step->overlap = 1;
    snprintf(step->overlap_from, sizeof step->overlap_from,
             "assumed 1: %s's step has one bucket of %s, so its efficiency %.2f says nothing "
             "of overlap; tune with smaller buckets to measure it",
             path, cb_format_size(c->bucket_bytes, sz, sizeof sz), c->overlap_efficiency);
  }
  return CB_OK;
}

/* The step from a --tune --trials file: the tuned settings' T_compute,
 * the gradient bytes, and the measured overhead at the run's rank count. */
static int step_from_trials(const char *path, int overlap_measured, struct step_in *step,
                            struct cb_error *err) {
  struct cb_rep_data d = {0};
  const char *paths[1] = {path};
  int rc = read_all("--trials", paths, 1, &d, err);
  const struct cb_rep_tune *t = d.tunes ? &d.tunes[0] : NULL;
  if (rc == CB_OK && (!t || !t->has_summary || !t->grad_bytes))
    rc = cb_fail(err, CB_USAGE,
                 "--trials %s: no summary line with grad_bytes (a finished --tune --trials run "
                 "of this version writes one)",
                 path);
  if (rc == CB_OK) {
    const struct cb_rep_tune_cfg *c = &t->tuned;
    step->compute_s = c->t_compute_us * 1e-6;
    step->grad_bytes = t->grad_bytes;
    step->meas = (struct cb_plan_measured){
        1, t->nranks, c->bucket_bytes,
        cb_overhead_from_rho_ci(c->rho, c->rho_ci95), /* paired, as --tune judged it */
        path};
    if (overlap_measured)
      rc = overlap_from_trials(path, t, step, err);
  }
  cb_rep_free(&d);
  return rc;
}

/* Whether any row of the tables would hold a prediction: none, and the run
 * is refused before a table of dashes is printed. */
static int any_prediction(const struct cb_model_cli *m, struct source *src, int per_node) {
  for (int i = 0; i < m->nops; i++) {
    struct cb_system s = src->sys[m->ops[i]];
    s.ranks_per_node = per_node;
    for (int z = 0; z < m->nsizes; z++)
      for (int g = 0; g < m->ngpus; g++) {
        struct cb_prediction best;
        if (cb_model_best(m->ops[i], &s, (int)m->gpus[g], (double)m->sizes[z], &best) >= 0)
          return 1;
      }
  }
  return 0;
}

static int predict(const struct cb_model_cli *m, const struct cb_fit_groups *gs,
                   const struct cb_topology *topo, const struct held_out *ho,
                   const struct step_in *step, json_t *doc, struct cb_error *err) {
  struct source src = {0};
  /* ranks per node: told, else the topology's, else the fitted runs' */
  int fitted = cb_fit_groups_ranks_per_node(gs), per_node = fitted > 0 ? fitted : 8;
  const char *per_node_from = "the most any fitted run had on one node";
  if (topo)
    per_node = topo->ranks_per_node, per_node_from = "the topology's";
  if (m->gpus_per_node)
    per_node = (int)m->gpus_per_node, per_node_from = "--gpus-per-node";
  printf("# ranks per node: %d (%s)\n", per_node, per_node_from);
  for (int op = 0; op < CB_NMOPS; op++) {
    cb_fit_system(gs, topo, op, &src.sys[op], src.from[op]);
    src.reach[op] = reach_of(gs, op, ho);
  }
  if (!any_prediction(m, &src, per_node)) {
    const struct cb_system *s = &src.sys[m->ops[0]];
    int intra = per_node > 1 && !s->tier[CB_TIER_INTRA].set;
    if (intra)
      return cb_fail(err, CB_USAGE,
                     "--predict: no prediction possible: the intra-node tier is unknown (%s): "
                     "give a --topology FILE with an intra-node tier, or --fit runs on one node",
                     topo ? "the topology has none and no fitted run gives it"
                          : "no fitted run had 2 ranks on a node");
    return cb_fail(err, CB_USAGE,
                   "--predict: no prediction possible: the inter-node tier is unknown (%s): one "
                   "node predicts up to %d GPUs, its ranks per node (--gpus up to %d); "
                   "--gpus-per-node N extrapolates; a --topology FILE with an inter-node tier "
                   "adds the tier",
                   topo && !gs->n ? "the topology has none"
                   : topo         ? "the topology has none and the fitted runs are from one node"
                                  : "the fitted runs are from one node",
                   per_node, per_node);
  }
  /* issue 57: a training-step question (--compute-time) without --size is
   * answered by the step plan alone: the tables of collectives at the
   * default sizes buried it under 350 lines */
  int tables = !(step->compute_s > 0 && !m->sizes_given);
  if (!tables)
    printf("# the step plan below answers --compute-time; --size (with --gpus) adds the "
           "collectives' tables\n");
  /* issue 32: what NCCL itself would pick and its time, for a GPU
   * topology; issue 40: then that is the answer, and the alpha-beta
   * tables follow as the link-level view under it */
  json_t *nccl = tables ? cb_nccl_predict(m, topo, per_node, gs) : NULL;
  if (nccl)
    printf("\n# lower-level view, not NCCL's answer: the alpha-beta link model (no protocols, "
           "channels or in-switch\n# reduction; for alltoall, which NCCL runs as point-to-point "
           "sends, the only model here)\n");
  json_t *rows = json_array();
  int count = 0, nextra = 0;
  for (int i = 0; i < m->nops && tables; i++) {
    src.sys[m->ops[i]].ranks_per_node = per_node;
    json_t *op_rows = predict_op(m, &src, m->ops[i], &count, &nextra);
    json_array_extend(rows, op_rows);
    json_decref(op_rows);
  }
  json_t *pred = json_pack("{s:s?, s:i, s:s, s:o, s:s}", "topology", m->topology, "ranks_per_node",
                           per_node, "ranks_per_node_from", per_node_from, "rows", rows, "answer",
                           nccl ? "nccl" : "alpha-beta");
  if (nccl)
    json_object_set_new(pred, "nccl", nccl);
  json_object_set_new(doc, "predictions", pred);
  if (count == 0 && tables)
    return cb_fail(err, CB_USAGE,
                   "--predict: no prediction possible: the %s tier is unknown (fit data from one "
                   "node predicts up to %d GPUs, its ranks per node: --gpus up to %d; "
                   "--gpus-per-node N extrapolates; --topology FILE adds the tier)",
                   m->topology ? "intra-node" : "inter-node", per_node, per_node);
  if (nextra) /* said where it cannot be missed, not only on the rows */
    fprintf(stderr,
            "collbench: warning: --predict: %d row%s EXTRAPOLATED beyond what the fit measured "
            "(more ranks per node, or sizes more than %gx outside the fitted range): their "
            "error is unknown\n",
            nextra, nextra == 1 ? " is" : "s are", SIZE_FACTOR);
  if (step->compute_s > 0) {
    src.sys[CB_MOP_ALLREDUCE].ranks_per_node = per_node;
    struct cb_recorded *rec;
    int nrec = cb_fit_groups_recorded(gs, CB_MOP_ALLREDUCE, &rec);
    struct cb_step_opts opt = {step->overlap, rec, nrec, NULL, NULL};
    struct cb_nccl_ctx nctx; /* issue 32: a GPU topology's buckets at NCCL's own times */
    if (cb_nccl_ctx_init(topo, per_node, gs, m->dtype, m->redop, &nctx) == 0)
      opt.allreduce_s = cb_nccl_allreduce_s, opt.ctx = &nctx;
    json_object_set_new(doc, "step", predict_step(m, &src, step, &opt));
    free(rec);
  }
  return CB_OK;
}

/* ---- the whole mode ---- */

/* The JSON replaces PATH whole at the end (output/replace.c): a failed run
 * leaves an earlier file as it was. The path is checked first, so a bad
 * one stops everything before any work. */
static int dump_json(void *doc, FILE *f) {
  return json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(9)) != 0 || ferror(f);
}

int cb_model_run(const struct cb_model_cli *m) {
  struct cb_error err = {0};
  struct cb_rep_data fd = {0}, vd = {0};
  struct cb_fit_groups gs = {0};
  struct cb_topology topo;
  int want[CB_NMOPS] = {0}, rc = CB_OK;
  struct held_out ho[CB_NMOPS] = {0};
  for (int i = 0; i < m->nops; i++)
    want[m->ops[i]] = 1;
  json_t *doc = json_pack("{s:s}", "type", "model");
  if (m->json_path)
    rc = cb_output_check(m->json_path, "--json", CB_OUT_REPLACE, &err);
  if (!rc && m->topology)
    rc = cb_topology_load(m->topology, &topo, m->topology_part, &err);
  struct step_in step = {m->compute_s, m->grad_bytes, {0}, m->overlap, ""};
  snprintf(step.overlap_from, sizeof step.overlap_from, "%s",
           m->overlap == 1 ? "--overlap 1, the default: hidden for free" : "--overlap");
  if (!rc && m->trials) /* read first: a bad file stops everything before any output */
    rc = step_from_trials(m->trials, m->overlap_measured, &step, &err);
  uint64_t bad_bucket;
  if (!rc && m->trials && cb_model_buckets_fit(m, step.grad_bytes, &bad_bucket))
    rc = cb_fail(&err, CB_USAGE,
                 "--trials %s: grad_bytes %llu is over a million buckets of --bucket %llu: give "
                 "larger --bucket sizes",
                 m->trials, (unsigned long long)step.grad_bytes, (unsigned long long)bad_bucket);
  if (!rc && m->nfit)
    rc = read_all("--fit", m->fit, m->nfit, &fd, &err);
  if (!rc && m->nvalidate)
    rc = read_all("--validate", m->validate, m->nvalidate, &vd, &err);
  if (!rc && m->nfit) {
    cb_fit_groups_add(&gs, &fd, want, -1);
    cb_fit_groups_fit(&gs);
    if (gs.n == 0)
      rc = cb_fail(&err, CB_USAGE,
                   "--fit: no results of the chosen ops (allreduce, allgather, reducescatter, "
                   "broadcast, alltoall) with 2 or more ranks in the input");
    else
      json_object_set_new(doc, "fits", print_fits(&gs));
  }
  if (!rc && m->nvalidate) {
    json_t *v = NULL;
    printf("\n");
    rc = validate(&gs, &vd, want, ho, &v, &err);
    if (!rc)
      json_object_set_new(doc, "validation", v);
    struct cb_fit_groups held = {0}; /* issue 43: how far --fit moved NCCL's model */
    cb_fit_groups_add(&held, &vd, want, -1);
    int per = m->gpus_per_node ? (int)m->gpus_per_node : m->topology ? topo.ranks_per_node : 1;
    json_t *nv = rc || !m->topology ? NULL : cb_nccl_validate(&topo, per, &gs, &held);
    if (nv)
      json_object_set_new(doc, "nccl_validation", nv);
    cb_fit_groups_free(&held);
  }
  if (!rc && m->predict) {
    if (m->nfit)
      printf("\n");
    rc = predict(m, &gs, m->topology ? &topo : NULL, ho, &step, doc, &err);
  }
  if (!rc && m->json_path)
    rc = cb_replace_write(m->json_path, "--json", dump_json, doc, &err);
  if (rc)
    cb_error_print(&err);
  json_decref(doc);
  cb_fit_groups_free(&gs);
  cb_rep_free(&fd);
  cb_rep_free(&vd);
  return rc;
}

#else

int cb_model_run(const struct cb_model_cli *m) {
  (void)m;
  fprintf(stderr, "collbench: --fit and --predict need jansson, which this build lacks\n");
  return CB_USAGE;
}

#endif
