/* The search over a cb_space: coordinate descent with noise-aware moves, or the exhaustive grid
 * (search.h says more). */
#include "search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cb_search_better(const struct cb_score *a, const struct cb_score *b) {
  return b->median - a->median > sqrt(a->ci95 * a->ci95 + b->ci95 * b->ci95);
}

struct state {
  const struct cb_space *s;
  cb_measure_batch measure;
  void *user;
  struct cb_search_result *res;
  struct cb_tune_config inc; /* the incumbent */
  struct cb_score inc_score;
  struct cb_tune_config seen[CB_SPACE_MAX * CB_SPACE_MAX * 4];
  int nseen;
};

static void count(struct state *st, const struct cb_tune_config *c) {
  for (int i = 0; i < st->nseen; i++)
    if (cb_config_equal(&st->seen[i], c))
      return;
  if (st->nseen < (int)(sizeof st->seen / sizeof st->seen[0]))
    st->seen[st->nseen++] = *c;
  st->res->evaluations++;
}

/* Measures the incumbent with the candidates, interleaved, and moves to
 * the fastest candidate if it beats the incumbent by more than the noise.
 * Returns 1 when the incumbent changed, 0 when not, -1 on error. */
static int scan(struct state *st, const char *phase, const struct cb_tune_config *cands, int n,
                struct cb_error *err) {
  struct cb_tune_config batch[CB_SPACE_MAX * 4];
  struct cb_score scores[CB_SPACE_MAX * 4];
  int m = 0;
  batch[m++] = st->inc;
  for (int i = 0; i < n && m < (int)(sizeof batch / sizeof batch[0]); i++) {
    int dup = 0;
    for (int j = 0; j < m; j++)
      dup |= cb_config_equal(&batch[j], &cands[i]);
    if (!dup && cb_config_valid(st->s, &cands[i]))
      batch[m++] = cands[i];
  }
  if (m == 1 && st->res->measurements > 0)
    return 0; /* nothing new to compare with */
  if (st->measure(st->user, phase, batch, m, scores, err))
    return -1;
  st->res->measurements += m;
  for (int i = 0; i < m; i++)
    count(st, &batch[i]);
  st->inc_score = scores[0];
  int best = 0;
  for (int i = 1; i < m; i++)
    if (scores[i].median < scores[best].median)
      best = i;
  if (best == 0 || !cb_search_better(&scores[best], &scores[0]))
    return 0;
  /* The fastest of several noisy candidates looks faster than it is
   * (selection bias): a fresh interleaved duel must confirm it. */
  struct cb_tune_config duel[2] = {st->inc, batch[best]};
  struct cb_score again[2];
  char confirm[64];
  snprintf(confirm, sizeof confirm, "%s-confirm", phase);
  if (st->measure(st->user, confirm, duel, 2, again, err))
    return -1;
  st->res->measurements += 2;
  st->inc_score = again[0];
  if (!cb_search_better(&again[1], &again[0]))
    return 0;
  st->inc = duel[1];
  st->inc_score = again[1];
  return 1;
}

static int scan_buckets(struct state *st, struct cb_error *err) {
  struct cb_tune_config c[CB_SPACE_MAX];
  for (int b = 0; b < st->s->nbuckets; b++)
    c[b] = st->inc, c[b].bucket_bytes = st->s->buckets[b];
  return scan(st, "bucket", c, st->s->nbuckets, err);
}

static int scan_algorithms(struct state *st, struct cb_error *err) {
  struct cb_tune_config c[CB_SPACE_MAX];
  const struct cb_space *s = st->s;
  for (int a = 0; a < s->nalgorithms; a++) {
    c[a] = st->inc;
    c[a].algorithm = s->algorithms[a];
    c[a].segsize = 0;
    /* nccl: keep the protocol where the pair runs, else NCCL chooses it */
    if (s->kind == CB_SPACE_NCCL && !s->pair_ok[c[a].algorithm][c[a].protocol])
      c[a].protocol = 0;
    if (c[a].algorithm == CB_SEGMENTED_RING && s->nsegments > 0)
      c[a].segsize = st->inc.algorithm == CB_SEGMENTED_RING && st->inc.segsize ? st->inc.segsize
                                                                               : s->segments[0];
  }
  return scan(st, "algorithm", c, s->nalgorithms, err);
}

static int scan_segments(struct state *st, struct cb_error *err) {
  struct cb_tune_config c[CB_SPACE_MAX];
  for (int g = 0; g < st->s->nsegments; g++)
    c[g] = st->inc, c[g].segsize = st->s->segments[g];
  return scan(st, "segment", c, st->s->nsegments, err);
}

/* nccl: the protocol and the CTA count, each at the incumbent's algorithm. */
static int scan_protocols(struct state *st, struct cb_error *err) {
  struct cb_tune_config c[CB_SPACE_MAX];
  for (int p = 0; p < st->s->nprotocols; p++)
    c[p] = st->inc, c[p].protocol = st->s->protocols[p];
  return scan(st, "protocol", c, st->s->nprotocols, err);
}

static int scan_ctas(struct state *st, struct cb_error *err) {
  struct cb_tune_config c[CB_SPACE_MAX + 1];
  c[0] = st->inc, c[0].ctas = 0;
  for (int k = 0; k < st->s->nctas; k++)
    c[k + 1] = st->inc, c[k + 1].ctas = st->s->ctas[k];
  return scan(st, "ctas", c, st->s->nctas + 1, err);
}

/* After the algorithm moved, the best bucket may have moved too: climb to
 * a neighbouring bucket size while that is faster (sizes are ordered). */
static int climb_buckets(struct state *st, struct cb_error *err) {
  for (int moves = 0; moves < st->s->nbuckets; moves++) {
    int lo = -1, hi = -1;
    for (int b = 0; b < st->s->nbuckets; b++) {
      if (st->s->buckets[b] < st->inc.bucket_bytes)
        lo = b;
      if (st->s->buckets[b] > st->inc.bucket_bytes && hi < 0)
        hi = b;
    }
    struct cb_tune_config c[2];
    int n = 0;
    if (lo >= 0)
      c[n] = st->inc, c[n++].bucket_bytes = st->s->buckets[lo];
    if (hi >= 0)
      c[n] = st->inc, c[n++].bucket_bytes = st->s->buckets[hi];
    int moved = n ? scan(st, "bucket-climb", c, n, err) : 0;
    if (moved <= 0)
      return moved;
  }
  return 0;
}

static int exhaustive(struct state *st, struct cb_error *err) {
  int n = cb_space_grid(st->s, NULL);
  struct cb_tune_config *batch = malloc((size_t)(n + 1) * sizeof *batch);
  struct cb_score *scores = malloc((size_t)(n + 1) * sizeof *scores);
  if (!batch || !scores) {
    free(batch);
    free(scores);
    return cb_fail(err, CB_RUNTIME, "out of memory for a grid of %d", n);
  }
  batch[0] = st->inc; /* the baseline, measured alongside for comparison */
  cb_space_grid(st->s, batch + 1);
  int m = 1;
  for (int i = 1; i <= n; i++)
    if (!cb_config_equal(&batch[i], &batch[0]))
      batch[m++] = batch[i];
  int rc = st->measure(st->user, "exhaustive", batch, m, scores, err);
  if (rc == CB_OK) {
    st->res->measurements += m;
    int best = 0;
    for (int i = 0; i < m; i++) {
      count(st, &batch[i]);
      if (scores[i].median < scores[best].median)
        best = i;
    }
    st->inc = batch[best];
    st->inc_score = scores[best];
  }
  free(batch);
  free(scores);
  return rc;
}

int cb_search_run(const struct cb_space *s, const struct cb_tune_config *baseline, int exh,
                  cb_measure_batch measure, void *user, struct cb_search_result *res,
                  struct cb_error *err) {
  struct state *st = calloc(1, sizeof *st);
  if (!st)
    return cb_fail(err, CB_RUNTIME, "out of memory for the search");
  memset(res, 0, sizeof *res);
  st->s = s, st->measure = measure, st->user = user, st->res = res, st->inc = *baseline;
  res->grid = cb_space_grid(s, NULL);
  int rc = CB_OK;
  if (exh) {
    rc = exhaustive(st, err);
  } else {
    /* Buckets first at the launch algorithm, then the algorithm (and the
     * segment size only where the winner reads it; nccl: the protocol,
     * then the CTAs), then buckets again only as a local climb if any of
     * those changed. */
    struct cb_tune_config before;
    int moved = scan_buckets(st, err);
    before = st->inc;
    if (moved >= 0 && s->nalgorithms > 0)
      moved = scan_algorithms(st, err);
    if (moved >= 0 && s->kind == CB_SPACE_MPI && st->inc.algorithm == CB_SEGMENTED_RING &&
        s->nsegments > 1)
      moved = scan_segments(st, err);
    if (moved >= 0 && s->nprotocols > 1)
      moved = scan_protocols(st, err);
    if (moved >= 0 && s->nctas > 0)
      moved = scan_ctas(st, err);
    /* the scans after the bucket scan keep the bucket: any change is theirs */
    if (moved >= 0 && !cb_config_equal(&st->inc, &before))
      moved = climb_buckets(st, err);
    rc = moved < 0 ? err->status : CB_OK;
  }
  res->best = st->inc;
  res->best_score = st->inc_score;
  free(st);
  return rc;
}
