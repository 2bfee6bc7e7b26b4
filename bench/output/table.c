/* The stdout table, modelled on nccl-tests: one line per size with the
 * out-of-place then in-place figures, a header naming what ran and the
 * units, and a footer with the average bus bandwidth and check status. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"

struct table {
  FILE *out;
  const struct cb_run_info *ri;
  double busbw_sum;
  long busbw_n;
  int verdicts; /* printed so far: the first one brings a header */
};

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
  fprintf(t->out, "# %s; %s\n", ri->mpi_library, ri->cpu_model);
  char warmup[32] = "auto";
  if (s->warmup >= 0)
    snprintf(warmup, sizeof warmup, "%ld", s->warmup);
  if (s->iters)
    fprintf(t->out, "# mode %s, %ld iterations per size, warm-up %s\n", cb_mode_names[s->mode],
            s->iters, warmup);
  else
    fprintf(t->out,
            "# mode %s, iterations auto (until the 95%% CI of the median is within %g%% or "
            "%g s per size), warm-up %s\n",
            cb_mode_names[s->mode], s->precision * 100.0, s->max_time, warmup);
  fprintf(t->out, "# time: median per op (us); algbw, busbw: GB/s with GB = 1e9 B; "
                  "#wrong: wrong elements over all ranks\n");
  return CB_OK;
}

static int table_series_begin(void *state, const struct cb_series *s, struct cb_error *err) {
  struct table *t = state;
  (void)err;
  t->busbw_sum = 0.0;
  t->busbw_n = 0;
  fprintf(t->out, "#\n# %s: backend %s, memory %s, transport %s, %d rank%s, %d node%s\n", s->op,
          s->backend, s->mem, s->transport, s->nranks, s->nranks == 1 ? "" : "s", s->nnodes,
          s->nnodes == 1 ? "" : "s");
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
  fprintf(t->out, " %9.2f %8.2f %8.2f", r->time_us, r->algbw_GBps, r->busbw_GBps);
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
  put_figures(t, row->inplace);
  fputc('\n', t->out);
  fflush(t->out);
  return CB_OK;
}

static int table_series_end(void *state, const struct cb_series *s, struct cb_error *err) {
  struct table *t = state;
  (void)s;
  (void)err;
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
  if (t->verdicts++ == 0)
    fprintf(t->out,
            "#\n# acceptance (margin: headroom over the fail level; negative fails)\n"
            "# %-7s %-24s %16s %10s %10s %8s  %s\n",
            "verdict", "check", "measured", "warn", "fail", "margin", "what");
  char measured[32], warn[16] = "-", margin[16] = "-";
  snprintf(measured, sizeof measured, "%.4g %s", v->measured, v->unit);
  if (isnan(v->measured))
    snprintf(measured, sizeof measured, "none");
  if (!isnan(v->warn))
    snprintf(warn, sizeof warn, "%.4g", v->warn);
  if (!isnan(v->margin))
    snprintf(margin, sizeof margin, "%+.0f%%", v->margin * 100);
  fprintf(t->out, "  %-7s %-24s %16s %10s %10.4g %8s  %s", cb_verdict_names[v->status], v->name,
          measured, warn, v->fail, margin, v->what);
  if (v->line)
    fprintf(t->out, " (line %d)", v->line);
  fputc('\n', t->out);
  fflush(t->out);
  return CB_OK;
}

static int table_finish(void *state, const struct cb_summary *sum, struct cb_error *err) {
  struct table *t = state;
  (void)err;
  fprintf(t->out, "#\n# Out of bounds values : %ld %s\n", sum->wrong, sum->wrong ? "FAILED" : "OK");
  fprintf(t->out, "# %ld rows, %ld records (%ld not checked), %ld skipped\n", sum->rows,
          sum->records, sum->unchecked, sum->skipped);
  if (sum->wrong)
    fprintf(t->out, "# FAILED: %ld wrong values\n", sum->wrong);
  fflush(t->out);
  return CB_OK;
}

static void table_close(void *state) {
  free(state);
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
                           .finish = table_finish,
                           .close = table_close};
  return CB_OK;
}
