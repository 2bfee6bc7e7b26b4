/* The stdout table, modelled on nccl-tests: one line per size with the
 * out-of-place then in-place figures, a header naming what ran and the
 * units, and a footer with the average bus bandwidth and check status. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/units.h"
#include "sink.h"

#define TABLE_COPY_MAX 16 /* GPUs per node shown in the copy matrices */

struct table {
  FILE *out;
  const struct cb_run_info *ri;
  double busbw_sum;
  long busbw_n;
  /* this series' columns: no in-place block where the op has none (p2p),
   * no bandwidths for a latency */
  int oop_only, latency;
  int one_rank; /* nothing crosses a link: no average bus bandwidth */
  long pairs;   /* --matrix pairs measured: its summary counts them, not rows */
  int verdicts; /* printed so far: the first one brings a header */
  /* --matrix with few ranks: the whole matrix, printed before the verdicts */
  int matrix_n;
  double *matrix_bw, *matrix_lat; /* [src * n + dst] */
  /* --op copy: the cells of one kind on one node, [src + 1][dst + 1] (0: host) */
  char copy_kind[24], copy_host[CB_HOSTNAME_MAX];
  double copy[TABLE_COPY_MAX + 1][TABLE_COPY_MAX + 1];
  int copy_used;
};

/* Larger matrices are for --json and reports; the table names outliers. */
#define TABLE_MATRIX_MAX 16

static void put_matrix(struct table *t, const double *cells, const char *what, const char *fmt) {
  int n = t->matrix_n;
  fprintf(t->out, "#\n# %s, row: sending rank, column: receiving rank\n#    ", what);
  for (int c = 0; c < n; c++)
    fprintf(t->out, " %8d", c);
  fputc('\n', t->out);
  for (int r = 0; r < n; r++) {
    fprintf(t->out, "  %3d", r);
    for (int c = 0; c < n; c++) {
      if (r == c || isnan(cells[r * n + c]))
        fprintf(t->out, " %8s", "-");
      else
        fprintf(t->out, fmt, cells[r * n + c]);
    }
    fputc('\n', t->out);
  }
}

static void flush_matrix(struct table *t) {
  if (!t->matrix_bw)
    return;
  const struct cb_cluster *cl = t->ri->cluster;
  fprintf(t->out, "#\n# ranks:");
  for (int r = 0; r < t->matrix_n; r++)
    fprintf(t->out, " %d=%s", r, cl->node_names[cl->node_of_rank[r]]);
  fputc('\n', t->out);
  put_matrix(t, t->matrix_bw, "bandwidth (GB/s), all pairs of a round at once", " %8.3g");
  put_matrix(t, t->matrix_lat, "latency (us), half a round trip of 8 B", " %8.3g");
  free(t->matrix_bw);
  free(t->matrix_lat);
  t->matrix_bw = t->matrix_lat = NULL;
}

static const char *copy_what(const char *kind) {
  static const char *const what[][2] = {
      {"copy_ce", "copy engine (cudaMemcpyPeerAsync), one way"},
      {"copy_ce_bidir", "copy engine, both ways at once (sum)"},
      {"copy_sm", "SM copy kernel on the source GPU, one way"},
      {"copy_sm_bidir", "SM copy kernels, both ways at once (sum)"},
      {"copy_h2d", "pinned host memory to GPU (copy engine)"},
      {"copy_d2h", "GPU to pinned host memory (copy engine)"}};
  for (size_t i = 0; i < sizeof what / sizeof what[0]; i++)
    if (strcmp(kind, what[i][0]) == 0)
      return what[i][1];
  return kind;
}

static void flush_copy(struct table *t) {
  if (!t->copy_used)
    return;
  int rows[TABLE_COPY_MAX + 1] = {0}, cols[TABLE_COPY_MAX + 1] = {0};
  for (int r = 0; r <= TABLE_COPY_MAX; r++)
    for (int c = 0; c <= TABLE_COPY_MAX; c++)
      if (!isnan(t->copy[r][c]))
        rows[r] = cols[c] = 1;
  fprintf(t->out, "#\n# %s on %s: %s, GB/s, median; row: source, column: destination\n#     ",
          t->copy_kind, t->copy_host, copy_what(t->copy_kind));
  char label[16];
  for (int c = 0; c <= TABLE_COPY_MAX; c++)
    if (cols[c]) {
      snprintf(label, sizeof label, c ? "GPU%d" : "host", c - 1);
      fprintf(t->out, " %8s", label);
    }
  fputc('\n', t->out);
  for (int r = 0; r <= TABLE_COPY_MAX; r++) {
    if (!rows[r])
      continue;
    snprintf(label, sizeof label, r ? "GPU%d" : "host", r - 1);
    fprintf(t->out, "  %-5s", label);
    for (int c = 0; c <= TABLE_COPY_MAX; c++)
      if (cols[c] && isnan(t->copy[r][c]))
        fprintf(t->out, " %8s", "-");
      else if (cols[c])
        fprintf(t->out, " %8.1f", t->copy[r][c]);
    fputc('\n', t->out);
  }
  t->copy_used = 0;
  fflush(t->out);
}

/* Copy cells arrive grouped by node and kind: a new group prints the last. */
static void copy_pair(struct table *t, const struct cb_pair *p) {
  if (p->src >= TABLE_COPY_MAX || p->dst >= TABLE_COPY_MAX)
    return; /* --json has every cell */
  if (t->copy_used &&
      (strcmp(t->copy_kind, p->matrix) != 0 || strcmp(t->copy_host, p->src_host) != 0))
    flush_copy(t);
  if (!t->copy_used) {
    snprintf(t->copy_kind, sizeof t->copy_kind, "%s", p->matrix);
    snprintf(t->copy_host, sizeof t->copy_host, "%s", p->src_host);
    for (int r = 0; r <= TABLE_COPY_MAX; r++)
      for (int c = 0; c <= TABLE_COPY_MAX; c++)
        t->copy[r][c] = NAN;
    t->copy_used = 1;
  }
  t->copy[p->src + 1][p->dst + 1] = p->bw_GBps;
}

static int table_pair(void *state, const struct cb_pair *p, struct cb_error *err) {
  struct table *t = state;
  if (p->matrix) {
    copy_pair(t, p);
    return CB_OK;
  }
  int n = t->ri->cluster->nranks;
  (void)err;
  t->pairs += p->round > 0;
  if (n > TABLE_MATRIX_MAX || p->round == 0) /* retests are notes already */
    return CB_OK;
  if (!t->matrix_bw) {
    t->matrix_n = n;
    t->matrix_bw = malloc(sizeof(double) * (size_t)(n * n));
    t->matrix_lat = malloc(sizeof(double) * (size_t)(n * n));
    if (!t->matrix_bw || !t->matrix_lat) {
      free(t->matrix_bw);
      free(t->matrix_lat);
      t->matrix_bw = t->matrix_lat = NULL;
      return CB_OK; /* the table can do without; --json has every pair */
    }
    for (int i = 0; i < n * n; i++)
      t->matrix_bw[i] = t->matrix_lat[i] = NAN;
  }
  if (!isnan(p->bw_GBps))
    t->matrix_bw[p->src * n + p->dst] = p->bw_GBps;
  if (!isnan(p->lat_us))
    t->matrix_lat[p->src * n + p->dst] = p->lat_us;
  return CB_OK;
}

static int table_run(void *state, const struct cb_run_info *ri, struct cb_error *err) {
  struct table *t = state;
  const struct cb_cluster *cl = ri->cluster;
  const struct cb_settings *s = ri->settings;
  (void)err;
  t->ri = ri;
  fprintf(t->out, "# collbench %s (%s), %s\n", ri->version, ri->git_commit, ri->start_time);
  fprintf(t->out, "# %d rank%s on %d node%s:", cl->nranks, cl->nranks == 1 ? "" : "s", cl->nnodes,
          cl->nnodes == 1 ? "" : "s");
  for (int n = 0; n < cl->nnodes && n < 8; n++)
    fprintf(t->out, " %s (%d)", cl->node_names[n], cl->ranks_on_node[n]);
  fprintf(t->out, "%s\n", cl->nnodes > 8 ? " ..." : "");
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores > 0 && cl->local_size > cores) /* busy-polling ranks then take turns on a core */
    fprintf(t->out,
            "# warning: %d ranks share %ld cores on %s: times include waiting for a core, "
            "not the links alone (mpirun --oversubscribe; fewer ranks give the links' figures)\n",
            cl->local_size, cores, cl->hostname);
  if (cl->nranks == 1)
    fprintf(t->out, "# one rank (mpirun -np 1, or no mpirun): nothing crosses a link, so a "
                    "bandwidth here is of a local path; run under mpirun -np 2 or more\n");
  fprintf(t->out, "# %s; %s\n", ri->mpi_library, ri->cpu_model);
  char warmup[32] = "auto";
  if (s->warmup >= 0)
    snprintf(warmup, sizeof warmup, "%ld", s->warmup);
  if (s->iters)
    fprintf(t->out, "# mode %s, %ld iterations per size, warm-up %s\n", cb_timing_names[s->timing],
            s->iters, warmup);
  else
    fprintf(t->out,
            "# mode %s, iterations auto (until this launch's 95%% CI of the median is within "
            "%g%% or %g s per size; repeated launches can differ by more), warm-up %s\n",
            cb_timing_names[s->timing], s->precision * 100.0, s->max_time, warmup);
  /* which statistic the time columns hold, and the bandwidths follow (--stat) */
  static const char *const stat_what[CB_NSTATS] = {"median", "mean (total time / iterations)",
                                                   "min (fastest sample)"};
  fprintf(t->out,
          "# time: %s per op (us); algbw, busbw: GB/s from it, GB = 1e9 B; "
          "#wrong: wrong elements over all ranks\n",
          stat_what[s->stat]);
  if (!s->iters)
    fprintf(t->out,
            "# ~ ending a row: noisy, the 95%% CI of the median (+-, of the median) stayed wider "
            "than %g%% within %g s\n",
            s->precision * 100.0, s->max_time);
  fprintf(t->out, "# ~ n=K: K samples, too few for a 95%% interval (6 needed): no interval, "
                  "a figure to repeat, not to trust\n");
  return CB_OK;
}

static int table_series_begin(void *state, const struct cb_series *s, struct cb_error *err) {
  struct table *t = state;
  (void)err;
  t->busbw_sum = 0.0;
  t->busbw_n = 0;
  t->oop_only = !s->has_inplace;
  t->latency = s->latency;
  t->one_rank = s->nranks == 1;
  fprintf(t->out, "#\n# %s: backend %s, memory %s, transport %s, %d rank%s, %d node%s%s%s\n", s->op,
          s->backend, s->mem, s->transport, s->nranks, s->nranks == 1 ? "" : "s", s->nnodes,
          s->nnodes == 1 ? "" : "s", s->skew ? ", skew " : "", s->skew ? s->skew : "");
  if (s->concurrent) /* the figures are together; each row adds the time alone */
    fprintf(t->out,
            "# on each %s group, at once with %s (time: together, the slowest group's; "
            "\"alone\": the same op alone in the same rounds, and together/alone)\n",
            s->comm, s->concurrent);
  if (t->oop_only) { /* point to point: one variant; a latency has no bandwidth */
    fprintf(t->out, "#%11s %13s %9s %7s %6s %9s", "size", "count", "type", "redop", "root", "time");
    if (!t->latency)
      fprintf(t->out, " %8s %8s", "algbw", "busbw");
    fprintf(t->out, " %6s\n#%11s %13s %9s %7s %6s %9s", "#wrong", "(B)", "(elements)", "", "", "",
            "(us)");
    if (!t->latency)
      fprintf(t->out, " %8s %8s", "(GB/s)", "(GB/s)");
    fprintf(t->out, " %6s\n", "");
    return CB_OK;
  }
  /* centred over the two 35-character blocks of figures */
  fprintf(t->out, "#%50s%23s%35s\n", "", "out-of-place", "in-place");
  fprintf(t->out, "#%11s %13s %9s %7s %6s %9s %8s %8s %6s %9s %8s %8s %6s\n", "size", "count",
          "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw",
          "#wrong");
  fprintf(t->out, "#%11s %13s %9s %7s %6s %9s %8s %8s %6s %9s %8s %8s %6s\n", "(B)", "(elements)",
          "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  return CB_OK;
}

static void put_figures(struct table *t, const struct cb_record *r) {
  if (!r) {
    fprintf(t->out, " %9s %8s %8s %6s", "N/A", "N/A", "N/A", "N/A");
    return;
  }
  fprintf(t->out, " %9.2f", r->time_us);
  if (!t->latency) /* a figure past 99999.99 keeps its 8 columns in e notation */
    for (int i = 0; i < 2; i++) {
      double bw = i ? r->busbw_GBps : r->algbw_GBps;
      fprintf(t->out, bw < 99999.995 ? " %8.2f" : " %8.2e", bw);
    }
  if (r->wrong >= 0)
    fprintf(t->out, " %6ld", r->wrong);
  else
    fprintf(t->out, " %6s", "N/A");
  t->busbw_sum += r->busbw_GBps;
  t->busbw_n++;
}

static int table_row(void *state, const struct cb_row *row, struct cb_error *err) {
  struct table *t = state;
  const struct cb_record *r = row->outofplace ? row->outofplace : row->inplace;
  (void)err;
  fprintf(t->out, " %11" PRIu64 " %13zu %9s %7s %6d", r->bytes, r->count, r->dtype, r->redop,
          r->root);
  put_figures(t, row->outofplace);
  if (!t->oop_only)
    put_figures(t, row->inplace);
  /* the noise mark: which variant missed --precision, by how much */
  const struct cb_record *v[2] = {row->outofplace, row->inplace};
  for (int i = 0, marks = 0; i < 2; i++)
    if (v[i] && v[i]->noisy && isnan(v[i]->ci95_us)) /* too few samples: no width to show */
      fprintf(t->out, "%s%sn=%ld: no interval", marks++ ? ", " : "  ~ ", i ? "in place " : "",
              v[i]->samples);
    else if (v[i] && v[i]->noisy && v[i]->time_us_median > 0)
      fprintf(t->out, "%s%s+-%.1f%%", marks++ ? ", " : "  ~ ", i ? "in place " : "",
              100 * v[i]->ci95_us / v[i]->time_us_median);
  if (r->concurrent[0]) /* --concurrent: alone, and the paired slowdown with its interval */
    fprintf(t->out,
            isnan(r->slowdown_lo) ? "  alone %.2f us, x%.2f"
                                  : "  alone %.2f us, x%.2f [%.2f, %.2f]",
            r->time_us_alone, r->slowdown, r->slowdown_lo, r->slowdown_hi);
  /* NCCL ran another algorithm than NCCL_ALGO asked (the profiler plugin) */
  for (int i = 0; i < 2; i++)
    if (v[i] && v[i]->nccl_ran_other)
      fprintf(t->out, "  ! %sran %s, not NCCL_ALGO=%s", i ? "in place " : "", v[i]->nccl_ran,
              getenv("NCCL_ALGO") ? getenv("NCCL_ALGO") : "?");
  fputc('\n', t->out);
  fflush(t->out);
  return CB_OK;
}

static int table_series_end(void *state, const struct cb_series *s, struct cb_error *err) {
  struct table *t = state;
  (void)s;
  (void)err;
  if (!t->latency && t->one_rank) /* a broadcast to itself times a no-op: no link's figure */
    fprintf(t->out, "# Avg bus bandwidth    : none with one rank (nothing crosses a link; run "
                    "under mpirun -np 2 or more)\n");
  else if (!t->latency)
    fprintf(t->out, "# Avg bus bandwidth    : %.4g GB/s\n",
            t->busbw_n ? t->busbw_sum / (double)t->busbw_n : 0.0);
  return CB_OK;
}

static int table_note(void *state, const char *text, struct cb_error *err) {
  struct table *t = state;
  (void)err;
  fprintf(t->out, "# %s\n", text);
  fflush(t->out);
  return CB_OK;
}

static int table_verdict(void *state, const struct cb_verdict *v, struct cb_error *err) {
  struct table *t = state;
  (void)err;
  flush_matrix(t);
  if (t->verdicts++ == 0)
    fprintf(t->out,
            "#\n# acceptance (margin: headroom over the fail level; negative fails)\n"
            "# %-7s %-24s %28s %10s %10s %8s  %s\n",
            "verdict", "check", "measured [95% CI]", "warn", "fail", "margin", "what");
  char measured[64], warn[16] = "-", fail[16] = "-", margin[16] = "-";
  if (v->interval) /* the interval judged, beside the point it holds */
    snprintf(measured, sizeof measured, "%.4g %s [%.4g, %.4g]", v->measured, v->unit, v->lo, v->hi);
  else
    snprintf(measured, sizeof measured, "%.4g %s", v->measured, v->unit);
  if (isnan(v->measured))
    snprintf(measured, sizeof measured, "none");
  if (!isnan(v->warn))
    snprintf(warn, sizeof warn, "%.4g", v->warn);
  if (!isnan(v->fail))
    snprintf(fail, sizeof fail, "%.4g", v->fail);
  if (!isnan(v->margin) && v->status != CB_INCONCLUSIVE) /* its interval straddles the level */
    snprintf(margin, sizeof margin, "%+.0f%%", v->margin * 100);
  fprintf(t->out, "  %-7s %-24s %28s %10s %10s %8s  %s", cb_verdict_names[v->status], v->name,
          measured, warn, fail, margin, v->what);
  if (v->line)
    fprintf(t->out, " (line %d)", v->line);
  fputc('\n', t->out);
  if (v->expected) { /* a model level: what the model expected, and how sure it is */
    const struct cb_expected *e = v->expected;
    fprintf(t->out, "          expected: %.4g %s (%s, pick %s, %d rank%s on %d node%s)", e->value,
            v->unit, e->source, e->pick, e->ranks, e->ranks == 1 ? "" : "s", e->nodes,
            e->nodes == 1 ? "" : "s");
    if (!isnan(e->lo))
      fprintf(t->out, "; band [%.4g, %.4g]: %s", e->lo, e->hi, e->band);
    else
      fprintf(t->out, "; band %s", e->band);
    char a[32], b[32];
    if (!isnan(e->alarm_fail) || !isnan(e->alarm_warn))
      fprintf(t->out, "; healthy systems past fail: %s, past warn: %s",
              isnan(e->alarm_fail) ? "-" : cb_chance_text(e->alarm_fail, a, sizeof a),
              isnan(e->alarm_warn) ? "-" : cb_chance_text(e->alarm_warn, b, sizeof b));
    if (e->beyond[0])
      fprintf(t->out, "; EXTRAPOLATED: %s", e->beyond);
    if (e->newer[0])
      fprintf(t->out, "; %s", e->newer);
    fputc('\n', t->out);
  }
  if (v->cost) { /* issue 58: what the shortfall costs a training step at scale */
    char text[320];
    fprintf(t->out, "          cost: %s\n", cb_cost_text(v->cost, text, sizeof text));
  }
  /* issue 41: the likely causes under the verdict, most likely first */
  for (int i = 0; v->causes && i < v->causes->n; i++) {
    const struct cb_cause *c = &v->causes->c[i];
    fprintf(t->out, "          cause: %s %s: %s [%s]\n", c->host, c->device, c->text, c->rule);
  }
  if (v->causes && v->causes->n == 0)
    fprintf(t->out, "          cause: none found in the evidence gathered\n");
  fflush(t->out);
  return CB_OK;
}

static int table_finish(void *state, const struct cb_summary *sum, struct cb_error *err) {
  struct table *t = state;
  (void)err;
  flush_matrix(t);
  flush_copy(t);
  fprintf(t->out, "#\n# Out of bounds values : %ld %s\n", sum->wrong, sum->wrong ? "FAILED" : "OK");
  if (t->pairs && !sum->records) /* a --matrix run: pairs, no rows */
    fprintf(t->out, "# %ld pair%s measured\n", t->pairs, t->pairs == 1 ? "" : "s");
  else
    fprintf(t->out, "# %ld rows, %ld records (%ld not checked), %ld skipped\n", sum->rows,
            sum->records, sum->unchecked, sum->skipped);
  if (sum->wrong)
    fprintf(t->out, "# FAILED: %ld wrong values\n", sum->wrong);
  fflush(t->out);
  return CB_OK;
}

static int table_close(void *state, struct cb_error *err) {
  struct table *t = state;
  (void)err;
  free(t->matrix_bw);
  free(t->matrix_lat);
  free(t);
  return CB_OK;
}

int cb_sink_table(FILE *out, struct cb_sink *sink, struct cb_error *err) {
  struct table *t = calloc(1, sizeof *t);
  if (!t)
    return cb_fail(err, CB_RUNTIME, "out of memory");
  t->out = out;
  *sink = (struct cb_sink){.state = t,
                           .run = table_run,
                           .series_begin = table_series_begin,
                           .row = table_row,
                           .series_end = table_series_end,
                           .note = table_note,
                           .verdict = table_verdict,
                           .pair = table_pair,
                           .finish = table_finish,
                           .close = table_close};
  return CB_OK;
}
