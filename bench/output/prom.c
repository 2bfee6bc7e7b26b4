/* --prom FILE: the Prometheus node_exporter textfile format, for periodic
 * health checks. Written once at the end, to a temporary file renamed over
 * FILE, so the collector never reads half a file and a failed run leaves
 * the previous one in place. Base units in names, HELP and TYPE lines,
 * low-cardinality labels. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replace.h"
#include "sink.h"

struct prom_verdict {
  char *name;
  int status;
};

struct prom {
  char *path;
  const struct cb_run_info *ri;
  const struct cb_summary *sum; /* set when the run finishes */
  struct cb_record *records;
  int n, cap;
  struct prom_verdict *verdicts;
  int nverdicts, verdicts_cap;
};

/* Label values escape backslash, double quote and newline. */
void cb_prom_escape(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '\\' || *s == '"')
      fputc('\\', f), fputc(*s, f);
    else if (*s == '\n')
      fputs("\\n", f);
    else
      fputc(*s, f);
  }
}

static void put_labels(FILE *f, const struct cb_record *r) {
  const char *names[] = {"op", "backend", "mem", "transport", "dtype", "redop"};
  const char *values[] = {r->op, r->backend, r->mem, r->transport, r->dtype, r->redop};
  fputc('{', f);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    fprintf(f, "%s=\"", names[i]);
    cb_prom_escape(f, values[i]);
    fputs("\",", f);
  }
  fprintf(f, "inplace=\"%s\",size_bytes=\"%" PRIu64 "\"}", r->inplace ? "true" : "false", r->bytes);
}

static int same_text(const char *a, const char *b) {
  return a == b || (a && b && !strcmp(a, b));
}

/* Whether a later record has the same labels: two acceptance checks of one
 * op and size measure it twice, and a series written twice makes the
 * scrape drop both; the later figure (re-measured last) stands. */
static int superseded(const struct prom *p, int i) {
  const struct cb_record *a = &p->records[i];
  for (int j = i + 1; j < p->n; j++) {
    const struct cb_record *b = &p->records[j];
    if (same_text(a->op, b->op) && same_text(a->backend, b->backend) && same_text(a->mem, b->mem) &&
        same_text(a->transport, b->transport) && same_text(a->dtype, b->dtype) &&
        same_text(a->redop, b->redop) && a->inplace == b->inplace && a->bytes == b->bytes)
      return 1;
  }
  return 0;
}

/* Each metric family: name, help, and its value from a record. */
static double busbw(const struct cb_record *r) {
  return r->busbw_GBps * 1e9;
}
static double algbw(const struct cb_record *r) {
  return r->algbw_GBps * 1e9;
}
static double seconds(const struct cb_record *r) {
  return r->time_us * 1e-6;
}
static double ci95(const struct cb_record *r) {
  return r->ci95_us * 1e-6;
}
static double wrong(const struct cb_record *r) {
  return (double)r->wrong;
}

static const struct {
  const char *name, *help;
  double (*value)(const struct cb_record *r);
  int checked_only;
} metrics[] = {
    {"collbench_busbw_bytes_per_second",
     "Bus bandwidth (nccl-tests definition) at the --stat time (default median).", busbw, 0},
    {"collbench_algbw_bytes_per_second",
     "Algorithm bandwidth: bytes / --stat time (default median).", algbw, 0},
    {"collbench_time_seconds", "Time of one operation: the --stat statistic (default median).",
     seconds, 0},
    {"collbench_time_ci95_seconds", "Half-width of the 95% confidence interval of the median.",
     ci95, 0},
    {"collbench_wrong_values", "Wrong elements found by the result check, over all ranks.", wrong,
     1},
};

static int write_all(void *state, FILE *f) {
  const struct prom *p = state;
  const struct cb_run_info *ri = p->ri;
  const struct cb_summary *sum = p->sum;
  fprintf(f, "# HELP collbench_run_info The run that produced these figures.\n"
             "# TYPE collbench_run_info gauge\ncollbench_run_info{version=\"");
  cb_prom_escape(f, ri->version);
  fputs("\",git_commit=\"", f);
  cb_prom_escape(f, ri->git_commit);
  fputs("\",mpi_library=\"", f);
  cb_prom_escape(f, ri->mpi_library);
  fprintf(f, "\",nranks=\"%d\",nnodes=\"%d\"} 1\n", ri->cluster->nranks, ri->cluster->nnodes);
  fprintf(f,
          "# HELP collbench_run_timestamp_seconds When the run finished (Unix time).\n"
          "# TYPE collbench_run_timestamp_seconds gauge\n"
          "collbench_run_timestamp_seconds %lld\n",
          (long long)time(NULL));
  fprintf(f,
          "# HELP collbench_check_failed_values Wrong values in the whole run.\n"
          "# TYPE collbench_check_failed_values gauge\ncollbench_check_failed_values %ld\n",
          sum->wrong);
  for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++) {
    fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", metrics[m].name, metrics[m].help,
            metrics[m].name);
    for (int i = 0; i < p->n; i++) {
      if ((metrics[m].checked_only && p->records[i].wrong < 0) || superseded(p, i) ||
          isnan(metrics[m].value(&p->records[i]))) /* no interval: no series, not a NaN */
        continue;
      fputs(metrics[m].name, f);
      put_labels(f, &p->records[i]);
      fprintf(f, " %.9g\n", metrics[m].value(&p->records[i]));
    }
  }
  if (p->nverdicts)
    fputs("# HELP collbench_acceptance_verdict Acceptance verdict per check: 0 pass, 1 warn, 2 "
          "fail, 3 inconclusive (the interval contains the level).\n# TYPE "
          "collbench_acceptance_verdict gauge\n",
          f);
  for (int i = 0; i < p->nverdicts; i++) {
    fputs("collbench_acceptance_verdict{check=\"", f);
    cb_prom_escape(f, p->verdicts[i].name);
    fprintf(f, "\"} %d\n", p->verdicts[i].status);
  }
  return ferror(f);
}

static int prom_run(void *state, const struct cb_run_info *ri, struct cb_error *err) {
  (void)err;
  ((struct prom *)state)->ri = ri;
  return CB_OK;
}

static int keep(struct prom *p, const struct cb_record *r, struct cb_error *err) {
  if (!r)
    return CB_OK;
  for (int i = 0; i < p->n; i++) /* measured again (a burn-in's next interval): replaced */
    if (r->interval > 0 && same_text(r->op, p->records[i].op) &&
        same_text(r->backend, p->records[i].backend) && same_text(r->mem, p->records[i].mem) &&
        !strcmp(r->transport, p->records[i].transport) &&
        same_text(r->dtype, p->records[i].dtype) && same_text(r->redop, p->records[i].redop) &&
        r->inplace == p->records[i].inplace && r->bytes == p->records[i].bytes) {
      p->records[i] = *r;
      return CB_OK;
    }
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 64;
    struct cb_record *more = realloc(p->records, (size_t)cap * sizeof *more);
    if (!more)
      return cb_fail(err, CB_RUNTIME, "--prom: out of memory");
    p->records = more;
    p->cap = cap;
  }
  p->records[p->n++] = *r;
  return CB_OK;
}

static int prom_row(void *state, const struct cb_row *row, struct cb_error *err) {
  struct prom *p = state;
  if (keep(p, row->outofplace, err) || keep(p, row->inplace, err))
    return err->status;
  return CB_OK;
}

static int prom_verdict(void *state, const struct cb_verdict *v, struct cb_error *err) {
  struct prom *p = state;
  /* one sample per check (Prometheus refuses a series twice in a file):
   * two verdicts of one name, as two straggling ranks of one host give,
   * keep the worse */
  for (int i = 0; i < p->nverdicts; i++)
    if (strcmp(p->verdicts[i].name, v->name) == 0) {
      if (cb_verdict_severity(v->status) > cb_verdict_severity(p->verdicts[i].status))
        p->verdicts[i].status = v->status;
      return CB_OK;
    }
  if (p->nverdicts == p->verdicts_cap) {
    int cap = p->verdicts_cap ? 2 * p->verdicts_cap : 16;
    struct prom_verdict *more = realloc(p->verdicts, (size_t)cap * sizeof *more);
    if (!more)
      return cb_fail(err, CB_RUNTIME, "--prom: out of memory");
    p->verdicts = more;
    p->verdicts_cap = cap;
  }
  struct prom_verdict *pv = &p->verdicts[p->nverdicts];
  if (!(pv->name = strdup(v->name)))
    return cb_fail(err, CB_RUNTIME, "--prom: out of memory");
  pv->status = v->status;
  p->nverdicts++;
  return CB_OK;
}

static int prom_finish(void *state, const struct cb_summary *sum, struct cb_error *err) {
  struct prom *p = state;
  p->sum = sum;
  return cb_replace_write(p->path, "--prom", write_all, p, err);
}

static int prom_close(void *state, struct cb_error *err) {
  (void)err;
  struct prom *p = state;
  free(p->records);
  for (int i = 0; i < p->nverdicts; i++)
    free(p->verdicts[i].name);
  free(p->verdicts);
  free(p->path);
  free(p);
  return CB_OK;
}

int cb_sink_prom(const char *path, struct cb_sink *sink, struct cb_error *err) {
  if (cb_output_check(path, "--prom", CB_OUT_REPLACE, err))
    return err->status;
  struct prom *p = calloc(1, sizeof *p);
  if (!p || !(p->path = strdup(path))) {
    free(p);
    return cb_fail(err, CB_RUNTIME, "out of memory");
  }
  *sink = (struct cb_sink){.state = p,
                           .run = prom_run,
                           .row = prom_row,
                           .verdict = prom_verdict,
                           .finish = prom_finish,
                           .interval = prom_finish, /* the same file, so far */
                           .close = prom_close};
  return CB_OK;
}
