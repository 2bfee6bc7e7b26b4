/* Check patterns through the ops' own fill() and check(): every collective
 * is simulated in plain memory, reductions done in the element type's real
 * arithmetic (float adds in float, int8 wraps), and check() must find no
 * wrong element in a correct result and some in typical broken ones. */
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "ops/op.h"
#include "ops/skew.h"
#include "tap.h"

#define MAXR 8
#define BLOCK 37 /* elements per rank block: no modulus divides it */

/* acc[i] = acc[i] (op) in[i] in the type's arithmetic; integers wrap. */
#define INT_REDUCE(name, T, U)                                                                     \
  static void name(void *acc, const void *in, size_t n, int redop) {                               \
    T *a = acc;                                                                                    \
    const T *b = in;                                                                               \
    for (size_t i = 0; i < n; i++)                                                                 \
      a[i] = redop == CB_SUM    ? (T)(U)((U)a[i] + (U)b[i])                                        \
             : redop == CB_PROD ? (T)(U)((U)a[i] * (U)b[i])                                        \
             : redop == CB_MIN  ? (b[i] < a[i] ? b[i] : a[i])                                      \
                                : (b[i] > a[i] ? b[i] : a[i]);                                      \
  }
#define FLT_REDUCE(name, T)                                                                        \
  static void name(void *acc, const void *in, size_t n, int redop) {                               \
    T *a = acc;                                                                                    \
    const T *b = in;                                                                               \
    for (size_t i = 0; i < n; i++)                                                                 \
      a[i] = redop == CB_SUM    ? a[i] + b[i]                                                      \
             : redop == CB_PROD ? a[i] * b[i]                                                      \
             : redop == CB_MIN  ? (b[i] < a[i] ? b[i] : a[i])                                      \
                                : (b[i] > a[i] ? b[i] : a[i]);                                      \
  }
INT_REDUCE(reduce_int8, int8_t, uint8_t)
INT_REDUCE(reduce_int32, int32_t, uint32_t)
INT_REDUCE(reduce_int64, int64_t, uint64_t)
FLT_REDUCE(reduce_float, float)
FLT_REDUCE(reduce_double, double)
/* fp8: every step rounded back to fp8, as a reduction in fp8 would be */
#define FP8_REDUCE(name, to_float, from_float)                                                     \
  static void name(void *acc, const void *in, size_t n, int redop) {                               \
    uint8_t *a = acc;                                                                              \
    const uint8_t *b = in;                                                                         \
    for (size_t i = 0; i < n; i++) {                                                               \
      float x = to_float(a[i]), y = to_float(b[i]);                                                \
      a[i] = from_float(redop == CB_SUM    ? x + y                                                 \
                        : redop == CB_PROD ? x * y                                                 \
                        : redop == CB_MIN  ? (y < x ? y : x)                                       \
                                           : (y > x ? y : x));                                      \
    }                                                                                              \
  }
FP8_REDUCE(reduce_e4m3, cb_e4m3_to_float, cb_float_to_e4m3)
FP8_REDUCE(reduce_e5m2, cb_e5m2_to_float, cb_float_to_e5m2)
typedef void (*reducer)(void *, const void *, size_t, int);
static const reducer reducers[CB_NDTYPES] = {
    [CB_INT8] = reduce_int8,     [CB_INT32] = reduce_int32,   [CB_INT64] = reduce_int64,
    [CB_FLOAT] = reduce_float,   [CB_DOUBLE] = reduce_double, [CB_FP8_E4M3] = reduce_e4m3,
    [CB_FP8_E5M2] = reduce_e5m2, /* no 16-bit: nothing to simulate them with */
};

/* What a broken backend might do to one rank's result. */
enum fault { OK_RUN, SHIFTED, WRONG_RANK, STALE, NEVER_RAN };
static const char *const fault_names[] = {"correct", "shifted", "wrong rank", "stale", "poison"};

struct world {
  const struct cb_op *op;
  int n, dt, redop, inplace, root;
  struct cb_pattern p, p0; /* check seed 1; seed 0 as the timing runs use */
  struct cb_shape sh;
  size_t es;
  unsigned char *send[MAXR], *out[MAXR]; /* in place: send[r] == out[r] */
  struct cb_skew *skew;                  /* alltoallv: zipf:1.2, so rows differ in size */
  struct cb_skew_layout lay[MAXR];
};

/* The rank's input as fill() left it, and where its result lands. */
static unsigned char *input(const struct world *w, int r) {
  if (w->inplace && w->op->id == CB_OP_ALLGATHER)
    return w->out[r] + (size_t)r * w->sh.count * w->es;
  return w->send[r];
}
static unsigned char *result(const struct world *w, int r) {
  size_t off = w->inplace ? w->op->inplace_result_offset(w->sh.count, r) : 0;
  return w->out[r] + off * w->es;
}

static struct cb_op_ctx ctx(const struct world *w, const struct cb_pattern *p, int r) {
  return (struct cb_op_ctx){p,
                            r,
                            w->n,
                            w->root,
                            cb_p2p_peer(r, w->n),
                            w->sh.count,
                            w->inplace,
                            NULL,
                            w->op->skewed ? &w->lay[r] : NULL};
}

/* Allocates, poisons the outputs and fills the inputs, as the engine does. */
static void setup(struct world *w, const struct cb_pattern *p) {
  w->es = cb_dtypes[w->dt].size;
  w->op->shape((uint64_t)BLOCK * w->es * (uint64_t)w->n, w->es, w->n, w->skew, &w->sh);
  for (int r = 0; r < w->n; r++) {
    if (w->op->skewed) {
      cb_skew_layout_alloc(&w->lay[r], w->n);
      cb_skew_layout_fill(w->skew, w->n, r, w->sh.count, &w->lay[r]);
    }
    size_t out = w->inplace ? w->sh.inplace_elems : w->sh.recv_elems;
    w->out[r] = malloc(out * w->es + 1);
    cb_pattern_poison(w->dt, w->out[r], out);
    w->send[r] = w->inplace ? w->out[r] : malloc(w->sh.send_elems * w->es + 1);
    struct cb_op_ctx c = ctx(w, p, r);
    w->op->fill(&c, w->send[r]);
  }
}

static void teardown(struct world *w) {
  for (int r = 0; r < w->n; r++) {
    if (!w->inplace)
      free(w->send[r]);
    free(w->out[r]);
    cb_skew_layout_free(&w->lay[r]);
  }
}

/* The collective itself. WRONG_RANK swaps the data of ranks 0 and 1 (and
 * 2 and 3...), or drops the last rank from an allreduce. Results go to
 * scratch first so in-place inputs are read before being overwritten. */
static void simulate(struct world *w, enum fault f) {
  size_t c = w->sh.count, es = w->es, R = w->sh.recv_elems;
  unsigned char *tmp[MAXR], *acc = malloc(w->sh.send_elems * es + 1);
  int got[MAXR];
  for (int r = 0; r < w->n; r++) {
    int src = f == WRONG_RANK && (r ^ 1) < w->n ? r ^ 1 : r;
    tmp[r] = malloc(R * es + 1);
    got[r] = 1;
    switch (w->op->id) {
    case CB_OP_ALLREDUCE:
    case CB_OP_REDUCESCATTER: {
      size_t len = w->op->id == CB_OP_ALLREDUCE ? c : c * (size_t)w->n;
      int last = f == WRONG_RANK && w->op->id == CB_OP_ALLREDUCE ? w->n - 1 : w->n;
      memcpy(acc, input(w, 0), len * es);
      for (int q = 1; q < last; q++)
        reducers[w->dt](acc, input(w, q), len, w->redop);
      memcpy(tmp[r], acc + (w->op->id == CB_OP_ALLREDUCE ? 0 : (size_t)src * c * es), c * es);
      break;
    }
    case CB_OP_ALLGATHER:
    case CB_OP_ALLTOALL:
      for (int j = 0; j < w->n; j++) {
        int from = f == WRONG_RANK && (j ^ 1) < w->n ? j ^ 1 : j;
        size_t at = w->op->id == CB_OP_ALLTOALL ? (size_t)r * c * es : 0;
        memcpy(tmp[r] + (size_t)j * c * es, input(w, from) + at, c * es);
      }
      break;
    case CB_OP_BROADCAST: memcpy(tmp[r], input(w, f == WRONG_RANK ? r : w->root), c * es); break;
    case CB_OP_ALLTOALLV: /* zipf rows are alike, so a swapped sender's part has the same size */
      for (int j = 0; j < w->n; j++) {
        int from = f == WRONG_RANK && (j ^ 1) < w->n ? j ^ 1 : j;
        const struct cb_skew_layout *l = &w->lay[r];
        memcpy(tmp[r] + l->recv_displs[j] * es, input(w, from) + l->src_offsets[j] * es,
               l->recv_counts[j] * es);
      }
      break;
    default: { /* p2p: whoever receives gets the peer's data */
      int peer = cb_p2p_peer(r, w->n);
      got[r] = peer >= 0 && (w->op->id != CB_OP_P2P_BW || r % 2 == 1);
      if (got[r])
        memcpy(tmp[r], input(w, f == WRONG_RANK ? r : peer), c * es);
    }
    }
  }
  for (int r = 0; r < w->n; r++) {
    if (got[r])
      memcpy(result(w, r), tmp[r], R * es);
    free(tmp[r]);
  }
  free(acc);
}

/* Runs one case with one fault; returns what check() counts on rank t. */
static size_t run_case(struct world *w, enum fault f, int t, size_t *total) {
  setup(w, f == STALE ? &w->p0 : &w->p);
  if (f != NEVER_RAN)
    simulate(w, f);
  if (f == SHIFTED) /* off by one element: result[k] = expected[k-1] */
    memmove(result(w, t) + w->es, result(w, t), (w->sh.recv_elems - 1) * w->es);
  size_t wrong = 0, at_t = 0;
  for (int r = 0; r < w->n; r++) {
    struct cb_op_ctx c = ctx(w, &w->p, r);
    size_t k = w->op->check(&c, result(w, r));
    wrong += k;
    if (r == t)
      at_t = k;
  }
  teardown(w);
  if (total)
    *total = wrong;
  return at_t;
}

static void test_case(const struct cb_op *op, int n, int dt, int redop, int inplace,
                      struct cb_skew *skew) {
  struct world w = {.op = op,
                    .n = n,
                    .dt = dt,
                    .redop = redop,
                    .inplace = inplace,
                    .root = n > 2 ? n - 1 : 0,
                    .skew = skew};
  char name[128];
  snprintf(name, sizeof name, "%s n=%d %s%s%s%s", op->name, n, cb_dtypes[dt].name,
           op->uses_redop ? " " : "", op->uses_redop ? cb_redop_name(redop) : "",
           inplace ? " in-place" : "");
  struct cb_error err = {0};
  if (cb_pattern_init(&w.p, dt, redop, n, 1, &err) ||
      cb_pattern_init(&w.p0, dt, redop, n, 0, &err)) {
    ok(0, "%s: pattern: %s", name, err.msg);
    return;
  }
  size_t total;
  run_case(&w, OK_RUN, 0, &total);
  is_long((long)total, 0, "%s: correct result, 0 wrong", name);

  /* The faults, on rank 1 (a non-root receiver) where there is one. A
   * prod result is 2 everywhere, so a shift, stale data or another rank's
   * block cannot show; under min/max a dropped rank shows only where it
   * was the extreme, which a short buffer may never contain. */
  int t = n > 1 ? 1 : 0, prod = op->uses_redop && redop == CB_PROD;
  int minmax = op->uses_redop && (redop == CB_MIN || redop == CB_MAX);
  int rank_shows =
      !(minmax && op->id == CB_OP_ALLREDUCE) && !(prod && op->id == CB_OP_REDUCESCATTER);
  /* fp8 holds so few exact integers (e5m2: 1..8) that over enough ranks
   * every element reduces to the same value: then, as for prod, only
   * unwritten or numerically wrong results can show. */
  int constant = op->uses_redop && !prod;
  for (uint64_t b = 1; constant && b < w.p.modulus; b++)
    constant = w.p.reduced[b] == w.p.reduced[0];
  if (constant)
    snprintf(name + strlen(name), sizeof name - strlen(name), " (constant result)");
  int flat = prod || constant;
  int want[] = {0, !flat, n > 1 && rank_shows && !constant, !flat, !inplace};
  char seen[160] = "";
  int caught = 1;
  for (int f = SHIFTED; f <= NEVER_RAN; f++) {
    if (!want[f])
      continue;
    size_t k = run_case(&w, (enum fault)f, t, NULL);
    caught &= k > 0;
    snprintf(seen + strlen(seen), sizeof seen - strlen(seen), " %s %zu", fault_names[f], k);
  }
  ok(caught, "%s: faults caught:%s", name, seen);
  cb_pattern_free(&w.p);
  cb_pattern_free(&w.p0);
}

static void test_all_ops(void) {
  const int ns[] = {1, 2, 3, 4, 7};
  struct cb_skew zipf;
  struct cb_error err = {0};
  cb_skew_parse("zipf:1.2", &zipf, &err);
  for (int o = 0; o < CB_NOPS; o++)
    for (int k = 0; k < 5; k++)
      for (int dt = 0; dt < CB_NDTYPES; dt++) {
        const struct cb_op *op = cb_ops[o];
        int n = ns[k], half = dt == CB_HALF || dt == CB_BFLOAT16;
        if (n < op->min_ranks || (half && op->uses_redop))
          continue; /* no 16-bit reductions: nothing to simulate them with */
        for (int redop = 0; redop < (op->uses_redop ? CB_NREDOPS : 1); redop++)
          for (int inplace = 0; inplace <= op->has_inplace; inplace++) {
            cb_skew_bind(&zipf, n, &err);
            test_case(op, n, dt, op->uses_redop ? redop : CB_NOREDOP, inplace, &zipf);
          }
      }
  cb_skew_free(&zipf);
}

/* Many ranks: the rank-ordered sum stays exact (float) or wraps exactly
 * (int8), and a shifted or stale result still shows. */
static void test_many_ranks(int dt, int n, size_t count) {
  size_t es = cb_dtypes[dt].size;
  struct cb_pattern p, p0;
  struct cb_error err = {0};
  cb_pattern_init(&p, dt, CB_SUM, n, 1, &err);
  cb_pattern_init(&p0, dt, CB_SUM, n, 0, &err);
  unsigned char *acc = malloc(count * es), *in = malloc(count * es), *stale = malloc(count * es);
  int64_t *wide = calloc(count, sizeof *wide), widest = 0;
  for (int r = 0; r < n; r++) {
    struct cb_op_ctx c = {&p, r, n, 0, -1, count, 0, NULL, NULL},
                     c0 = {&p0, r, n, 0, -1, count, 0, NULL, NULL};
    cb_ops[CB_OP_ALLREDUCE]->fill(&c, r ? in : acc);
    for (size_t i = 0; i < count; i++) /* the true sum, for the wrap test */
      wide[i] += cb_pattern_value(&p, r, i);
    if (r)
      reducers[dt](acc, in, count, CB_SUM);
    cb_ops[CB_OP_ALLREDUCE]->fill(&c0, r ? in : stale);
    if (r)
      reducers[dt](stale, in, count, CB_SUM);
  }
  for (size_t i = 0; i < count; i++)
    widest = wide[i] > widest ? wide[i] : widest;
  struct cb_op_ctx c = {&p, 0, n, 0, -1, count, 0, NULL, NULL};
  const struct cb_op *ar = cb_ops[CB_OP_ALLREDUCE];
  is_long((long)ar->check(&c, acc), 0, "%s sum over %d ranks, %zu elements: 0 wrong (largest %lld)",
          cb_dtypes[dt].name, n, count, (long long)widest);
  if (dt == CB_INT8 && n >= 25)
    ok(widest > INT8_MAX, "int8 sum over %d ranks really wrapped", n);
  if (dt == CB_INT8 && n < 25) /* no overflow for an MPI that saturates */
    ok(widest <= INT8_MAX && p.modulus >= 5,
       "int8 sum over %d ranks stays <= 127 (largest %lld), "
       "%llu values",
       n, (long long)widest, (unsigned long long)p.modulus);
  ok(ar->check(&c, stale) > 0, "%s sum over %d ranks: stale seed caught (%zu)", cb_dtypes[dt].name,
     n, ar->check(&c, stale));
  memmove(acc + es, acc, (count - 1) * es);
  ok(ar->check(&c, acc) > 0, "%s sum over %d ranks: shift caught (%zu)", cb_dtypes[dt].name, n,
     ar->check(&c, acc));
  free(acc), free(in), free(stale), free(wide);
  cb_pattern_free(&p), cb_pattern_free(&p0);
}

/* A reseeded copy holds what a pattern built for that seed holds. */
static void test_reseeded(void) {
  const int dts[] = {CB_INT8, CB_INT32, CB_FLOAT, CB_DOUBLE, CB_HALF};
  const int redops[] = {CB_SUM, CB_PROD, CB_MIN, CB_NOREDOP};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
    for (size_t r = 0; r < sizeof redops / sizeof redops[0]; r++) {
      struct cb_error err = {0};
      struct cb_pattern base, fresh;
      cb_pattern_init(&base, dts[d], redops[r], 3, 0, &err);
      cb_pattern_init(&fresh, dts[d], redops[r], 3, 7, &err);
      struct cb_pattern q = cb_pattern_reseeded(&base, 7);
      int same = q.modulus == fresh.modulus && q.reduced == base.reduced, moved = 0;
      for (uint64_t i = 0; i < 1000 && same; i++) {
        for (int rank = 0; rank < 3; rank++) {
          same &= cb_pattern_value(&q, rank, i) == cb_pattern_value(&fresh, rank, i);
          moved |= cb_pattern_value(&q, rank, i) != cb_pattern_value(&base, rank, i);
        }
        if (redops[r] != CB_NOREDOP)
          same &= cb_pattern_reduced(&q, i) == cb_pattern_reduced(&fresh, i);
      }
      ok(same && moved, "%s %s: reseeded to 7 = built for 7, tables shared, values moved",
         cb_dtypes[dts[d]].name, cb_redop_name(redops[r]));
      cb_pattern_free(&base), cb_pattern_free(&fresh);
    }
}

int main(void) {
  test_all_ops();
  test_reseeded();
  test_many_ranks(CB_FLOAT, 1000, 4096);
  test_many_ranks(CB_INT8, 300, 4096);
  test_many_ranks(CB_INT8, 64, 4096);  /* int8 sums once collapsed to all-equal values */
  test_many_ranks(CB_INT8, 254, 4096); /* 2 * 127: a full cycle of residues per element */
  test_many_ranks(CB_INT8, 2, 4096);   /* Open MPI 4.1 saturates int8 sums: none overflow */
  test_many_ranks(CB_INT8, 24, 4096);  /* the most ranks whose sums stay under 128 */
  test_many_ranks(CB_INT8, 25, 4096);  /* 127 / 25 leaves 3 values: wraps */
  test_many_ranks(CB_INT32, 1000, 4096);
  done_testing();
  return exit_status();
}
