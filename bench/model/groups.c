/* Grouping measured points for the fit: same op, backend, memory,
 * transport, dtype, redop, in-place and tier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groups.h"
#include "topology/topology.h"

/* A run over several nodes with ranks sharing nodes is labelled
 * "INTRA+INTER" (e.g. "shm+tcp"); its tier's part is what its points
 * measure, so "shm+tcp" at the inter-node tier matches a "tcp" fit. */
static const char *tier_part(const char *t, int tier, size_t *len) {
  const char *plus = strchr(t, '+');
  if (plus && tier == CB_TIER_INTER)
    t = plus + 1;
  *len = plus && tier != CB_TIER_INTER ? (size_t)(plus - t) : strlen(t);
  return t;
}

static int same_transport(const char *a, const char *b, int tier) {
  size_t alen, blen;
  a = tier_part(a, tier, &alen), b = tier_part(b, tier, &blen);
  return alen == blen && strncmp(a, b, alen) == 0;
}

static int same_labels(const struct cb_fit_group *g, const struct cb_rep_series *s) {
  return g->inplace == s->inplace && strcmp(g->backend, s->backend) == 0 &&
         strcmp(g->mem, s->mem) == 0 && same_transport(g->transport, s->transport, g->tier) &&
         strcmp(g->dtype, s->dtype) == 0 && strcmp(g->redop, s->redop) == 0;
}

static int same_group(const struct cb_fit_group *g, int op, const struct cb_rep_series *s, int tier,
                      const char *algo, const char *proto) {
  return g->op == op && g->tier == tier && strcmp(g->algo, algo) == 0 &&
         strcmp(g->proto, proto) == 0 && same_labels(g, s);
}

static struct cb_fit_group *group_for(struct cb_fit_groups *gs, int op,
                                      const struct cb_rep_series *s, int share_gpu, int tier,
                                      const char *algo, const char *proto) {
  for (int i = 0; i < gs->n; i++)
    if (gs->g[i].share_gpu == share_gpu && same_group(&gs->g[i], op, s, tier, algo, proto))
      return &gs->g[i];
  if (gs->n == gs->cap) {
    gs->cap = gs->cap ? 2 * gs->cap : 16;
    gs->g = realloc(gs->g, gs->cap * sizeof *gs->g);
  }
  struct cb_fit_group *g = &gs->g[gs->n++];
  *g = (struct cb_fit_group){.op = op,
                             .tier = tier,
                             .share_gpu = share_gpu,
                             .inplace = s->inplace,
                             .backend = s->backend,
                             .mem = s->mem,
                             .transport = s->transport,
                             .dtype = s->dtype,
                             .redop = s->redop,
                             .shape = cb_model_shape_of(op, algo)};
  snprintf(g->algo, sizeof g->algo, "%s", algo);
  snprintf(g->proto, sizeof g->proto, "%s", algo[0] ? proto : "");
  return g;
}

static void add_point(struct cb_fit_group *g, const struct cb_record *r) {
  if (g->npts == g->cap) {
    g->cap = g->cap ? 2 * g->cap : 32;
    g->pts = realloc(g->pts, g->cap * sizeof *g->pts);
  }
  g->pts[g->npts++] = (struct cb_fit_point){r->nranks, r->nnodes, (double)r->bytes,
                                            r->time_us * 1e-6, g->shape < 0 ? 0 : g->shape};
  int seen = 0;
  for (int i = 0; i < g->nranks; i++)
    seen |= g->ranks[i] == r->nranks;
  if (!seen && g->nranks < (int)(sizeof g->ranks / sizeof g->ranks[0]))
    g->ranks[g->nranks++] = r->nranks;
}

void cb_fit_groups_add(struct cb_fit_groups *gs, const struct cb_rep_data *d, const int *want,
                       int file) {
  for (int i = 0; i < d->nseries; i++) {
    const struct cb_rep_series *s = &d->series[i];
    int op = cb_mop_find(s->op);
    if (op < 0 || (want && !want[op]) || (file >= 0 && s->file != file))
      continue;
    int share = s->file >= 0 && s->file < d->nruns && d->runs[s->file].share_gpu;
    for (int k = 0; k < s->npts; k++)
      if (s->pts[k].time_us > 0 && s->pts[k].nranks > 1)
        add_point(group_for(gs, op, s, share, cb_point_tier(&s->pts[k]), cb_point_algo(&s->pts[k]),
                            cb_point_algo(&s->pts[k])[0] ? cb_point_proto(&s->pts[k]) : ""),
                  &s->pts[k]);
  }
}

/* Open MPI's rules switch algorithm by size and rank count, so an
 * algorithm may have too few sizes to be fitted alone, or appear only in
 * the held-out run. The link is the same whatever the algorithm: a group
 * "*" per op, labels and tier fits it on every algorithm's points, each
 * through its own shape; algorithms without a fit of their own use it. */
static int same_link(const struct cb_fit_group *a, const struct cb_fit_group *b) {
  return a->op == b->op && a->tier == b->tier && a->inplace == b->inplace &&
         a->share_gpu == b->share_gpu && strcmp(a->backend, b->backend) == 0 &&
         strcmp(a->mem, b->mem) == 0 && strcmp(a->transport, b->transport) == 0 &&
         strcmp(a->dtype, b->dtype) == 0 && strcmp(a->redop, b->redop) == 0;
}

static int find_pool(const struct cb_fit_groups *gs, const struct cb_fit_group *g) {
  for (int i = 0; i < gs->n; i++)
    if (same_link(&gs->g[i], g) && strcmp(gs->g[i].algo, CB_ALL_ALGOS) == 0)
      return i;
  return -1;
}

static void add_pools(struct cb_fit_groups *gs) {
  int n = gs->n;
  for (int i = 0; i < n; i++) {
    if (!gs->g[i].algo[0] || find_pool(gs, &gs->g[i]) >= 0)
      continue;
    struct cb_fit_group pool = gs->g[i];
    snprintf(pool.algo, sizeof pool.algo, "%s", CB_ALL_ALGOS);
    pool.proto[0] = '\0';
    pool.pts = NULL, pool.npts = pool.cap = pool.nranks = 0, pool.shape = -1;
    for (int j = 0; j < n; j++)
      for (int k = 0; same_link(&gs->g[j], &pool) && k < gs->g[j].npts; k++) {
        if (pool.npts == pool.cap)
          pool.cap = pool.cap ? 2 * pool.cap : 32,
          pool.pts = realloc(pool.pts, pool.cap * sizeof *pool.pts);
        pool.pts[pool.npts++] = gs->g[j].pts[k];
      }
    for (int j = 0; j < n; j++)
      for (int k = 0; same_link(&gs->g[j], &pool) && k < gs->g[j].nranks; k++) {
        int seen = 0;
        for (int m = 0; m < pool.nranks; m++)
          seen |= pool.ranks[m] == gs->g[j].ranks[k];
        if (!seen && pool.nranks < (int)(sizeof pool.ranks / sizeof pool.ranks[0]))
          pool.ranks[pool.nranks++] = gs->g[j].ranks[k];
      }
    if (gs->n == gs->cap)
      gs->cap = 2 * gs->cap, gs->g = realloc(gs->g, gs->cap * sizeof *gs->g);
    gs->g[gs->n++] = pool;
  }
}

/* At 2 ranks every algorithm exchanges with one peer over one connection
 * both ways: a step's go-ahead then travels behind the peer's own data on
 * that connection, and whether it waits for the whole message is a race
 * (2 shaped nodes: 1.07 to 1.97 times the shaped time, size by size, where
 * 4 and 8 nodes agree with each other; bench/model/PLANNING.md). A
 * group that also has points at 3 ranks or more is fitted on those. */
static void drop_pairs(struct cb_fit_group *g) {
  int more = 0, k = 0;
  for (int i = 0; i < g->npts; i++)
    more |= g->pts[i].nranks > 2;
  if (!more)
    return;
  for (int i = 0; i < g->npts; i++)
    if (g->pts[i].nranks > 2)
      g->pts[k++] = g->pts[i];
  g->npts = k, k = 0;
  for (int i = 0; i < g->nranks; i++)
    if (g->ranks[i] > 2)
      g->ranks[k++] = g->ranks[i];
  g->nranks = k;
}

void cb_fit_groups_fit(struct cb_fit_groups *gs) {
  add_pools(gs);
  for (int i = 0; i < gs->n; i++)
    drop_pairs(&gs->g[i]);
  for (int i = 0; i < gs->n; i++)
    gs->g[i].fitted = cb_model_fit(gs->g[i].op, gs->g[i].pts, gs->g[i].npts, &gs->g[i].fit) == 0;
  for (int i = 0; i < gs->n; i++) {
    int p = gs->g[i].algo[0] ? find_pool(gs, &gs->g[i]) : -1;
    if (!gs->g[i].fitted && p >= 0 && gs->g[p].fitted)
      gs->g[i].fit = gs->g[p].fit, gs->g[i].fitted = 1, gs->g[i].pooled = 1;
  }
}

const struct cb_fit_group *cb_fit_groups_match(const struct cb_fit_groups *gs,
                                               const struct cb_rep_series *s,
                                               const struct cb_record *r) {
  int op = cb_mop_find(s->op);
  const char *algo = cb_point_algo(r), *proto = algo[0] ? cb_point_proto(r) : "";
  for (int i = 0; i < gs->n; i++)
    if (gs->g[i].fitted && same_group(&gs->g[i], op, s, cb_point_tier(r), algo, proto))
      return &gs->g[i];
  /* an algorithm the fit never saw: the link's pooled fit, through its shape */
  for (int i = 0; algo[0] && cb_model_shape_of(op, algo) >= 0 && i < gs->n; i++)
    if (gs->g[i].fitted && same_group(&gs->g[i], op, s, cb_point_tier(r), CB_ALL_ALGOS, ""))
      return &gs->g[i];
  return NULL;
}

/* the shape a point is costed through: its own algorithm's in a `*` group */
static int point_shape(const struct cb_fit_group *g, const struct cb_record *r) {
  int shape =
      strcmp(g->algo, CB_ALL_ALGOS) == 0 ? cb_model_shape_of(g->op, cb_point_algo(r)) : g->shape;
  return shape < 0 ? 0 : shape;
}

double cb_fit_group_time(const struct cb_fit_group *g, const struct cb_record *r) {
  return cb_model_time(g->op, point_shape(g, r), r->nranks, r->nnodes, (double)r->bytes,
                       &g->fit.link);
}

int cb_fit_group_races(const struct cb_fit_groups *gs, const struct cb_fit_group *g,
                       const struct cb_record *r) {
  struct cb_link l = g->fit.link;
  for (int i = 0; i < gs->n; i++) {
    const struct cb_link *o = &gs->g[i].fit.link;
    if (gs->g[i].fitted && gs->g[i].tier == g->tier && strcmp(gs->g[i].backend, g->backend) == 0 &&
        same_transport(gs->g[i].transport, g->transport, g->tier) && o->gamma > 0 &&
        (!(l.gamma > 0) || o->rndv < l.rndv))
      l.gamma = o->gamma, l.rndv = o->rndv, l.queue = o->queue;
  }
  return cb_model_races(g->op, point_shape(g, r), r->nranks, r->nnodes, (double)r->bytes, &l);
}

const struct cb_fit_group *cb_fit_groups_pick(const struct cb_fit_groups *gs, int op, int tier) {
  const struct cb_fit_group *best = NULL;
  for (int i = 0; i < gs->n; i++) {
    const struct cb_fit_group *g = &gs->g[i];
    if (g->fitted && g->op == op && g->tier == tier &&
        (!best || g->inplace < best->inplace ||
         (g->inplace == best->inplace && g->npts > best->npts)))
      best = g;
  }
  return best;
}

int cb_fit_groups_ranks_per_node(const struct cb_fit_groups *gs) {
  int most = 0;
  for (int i = 0; i < gs->n; i++)
    for (int k = 0; gs->g[i].fitted && k < gs->g[i].npts; k++) {
      const struct cb_fit_point *pt = &gs->g[i].pts[k];
      int nodes = pt->nnodes > 0 ? pt->nnodes : 1, per = (pt->nranks + nodes - 1) / nodes;
      most = per > most ? per : most;
    }
  return most;
}

void cb_fit_groups_free(struct cb_fit_groups *gs) {
  for (int i = 0; i < gs->n; i++)
    free(gs->g[i].pts);
  free(gs->g);
  *gs = (struct cb_fit_groups){0};
}

void cb_fit_system(const struct cb_fit_groups *gs, const struct cb_topology *topo, int op,
                   struct cb_system *s, char from[CB_NTIERS][200]) {
  for (int k = 0; k < CB_NTIERS; k++) {
    const struct cb_tier *tier =
        topo ? cb_topology_tier(topo, k == CB_TIER_INTRA ? CB_SCOPE_INTRA : CB_SCOPE_INTER) : NULL;
    const struct cb_fit_group *g = cb_fit_groups_pick(gs, op, k);
    if (g) {
      s->tier[k] = g->fit.link;
      snprintf(from[k], 200, "fit of %s/%s/%s/%s %s", g->backend, g->mem, g->transport, g->dtype,
               g->inplace ? "in-place" : "out-of-place");
    } else if (tier && tier->bandwidth_Bps > 0) {
      /* an inter-node tier's bandwidth is per NIC: a node has nics_per_node */
      int nics = k == CB_TIER_INTER && tier->nics_per_node > 0 ? tier->nics_per_node : 1;
      s->tier[k] = (struct cb_link){
          .set = 1, .alpha = tier->latency_s, .beta = 1 / (tier->bandwidth_Bps * nics)};
      snprintf(from[k], 200, "topology tier '%s'", tier->name);
    }
  }
}

const char *cb_fit_group_label(const struct cb_fit_group *g, char *buf, size_t len) {
  if (!g->algo[0])
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, "%s%s%s", g->algo, g->proto[0] ? "/" : "", g->proto);
  return buf;
}

int cb_fit_groups_recorded(const struct cb_fit_groups *gs, int op, struct cb_recorded **out) {
  int n = 0, cap = 0;
  *out = NULL;
  for (int tier = 0; tier < CB_NTIERS; tier++) {
    const struct cb_fit_group *pick = cb_fit_groups_pick(gs, op, tier);
    for (int i = 0; pick && i < gs->n; i++) {
      const struct cb_fit_group *g = &gs->g[i];
      if (!g->fitted || !g->algo[0] || strcmp(g->algo, CB_ALL_ALGOS) == 0 || !same_link(g, pick))
        continue;
      for (int k = 0; k < g->npts; k++) {
        int seen = 0; /* one entry per size and rank count (repeats, in-place) */
        for (int j = 0; j < n; j++)
          seen |= (*out)[j].tier == tier && (*out)[j].bytes == g->pts[k].bytes &&
                  (*out)[j].nranks == g->pts[k].nranks && strcmp((*out)[j].algo, g->algo) == 0 &&
                  strcmp((*out)[j].proto, g->proto) == 0;
        if (seen)
          continue;
        if (n == cap)
          cap = cap ? 2 * cap : 32, *out = realloc(*out, cap * sizeof **out);
        struct cb_recorded *e = &(*out)[n++];
        *e = (struct cb_recorded){.tier = tier,
                                  .nranks = g->pts[k].nranks,
                                  .bytes = g->pts[k].bytes,
                                  .shape = g->shape < 0 ? CB_SHAPE_RING : g->shape,
                                  .link = g->fit.link};
        snprintf(e->algo, sizeof e->algo, "%s", g->algo);
        snprintf(e->proto, sizeof e->proto, "%s", g->proto);
      }
    }
  }
  return n;
}
