/* --csv FILE: a header, then one line per record, flushed as it comes. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/timer.h"
#include "columns.h"
#include "lines.h"
#include "sink.h"

/* A text field as RFC 4180 has it: quoted when it holds a comma, a quote or a
 * line break (quotes doubled), and a field a spreadsheet would run as a
 * formula (starting with = + - @, a tab or CR) kept as text by a leading
 * quote character, per OWASP's CSV-injection advice. Text reaches here from
 * input files (--import-nccl-tests' type and redop columns). */
static void put_text(FILE *f, const char *s) {
  int formula = strchr("=+-@\t\r", s[0]) && s[0];
  if (!formula && !strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  if (formula)
    fputc('\'', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void put_field(FILE *f, const struct cb_record *r, const struct cb_column *c) {
  const void *p = cb_column_ptr(r, c);
  switch (c->kind) {
  case CB_COL_STRING: put_text(f, *(const char *const *)p); break;
  case CB_COL_CHARS: put_text(f, (const char *)p); break;
  case CB_COL_BOOL: fputs(*(const int *)p ? "true" : "false", f); break;
  case CB_COL_INT: fprintf(f, "%d", *(const int *)p); break;
  case CB_COL_LONG: fprintf(f, "%ld", *(const long *)p); break;
  case CB_COL_UINT64: fprintf(f, "%" PRIu64, *(const uint64_t *)p); break;
  case CB_COL_SIZE: fprintf(f, "%zu", *(const size_t *)p); break;
  case CB_COL_DOUBLE: fprintf(f, "%.7g", *(const double *)p); break;
  case CB_COL_KNOWN:
    if (*(const double *)p > 0)
      fprintf(f, "%.7g", *(const double *)p);
    break;
  case CB_COL_WRONG:
    if (*(const long *)p >= 0)
      fprintf(f, "%ld", *(const long *)p);
    break;
  case CB_COL_STAT:
    if (!isnan(*(const double *)p))
      fprintf(f, "%.7g", *(const double *)p);
    break;
  case CB_COL_OPTSTR:
    if (*(const char *const *)p)
      put_text(f, *(const char *const *)p);
    break;
  case CB_COL_COUNT:
    if (*(const long *)p > 0)
      fprintf(f, "%ld", *(const long *)p);
    break;
  case CB_COL_FLAG: fputs(*(const int *)p ? "true" : "false", f); break;
  }
}

/* The file, and whether its header is out and has a burn-in's columns: the
 * header waits for the run record (a burn-in adds interval and
 * interval_start) or, where there is none (an import), the first line. */
struct csv {
  struct cb_lines l;
  int header, burnin;
};

static int put_header(struct csv *c, struct cb_error *err) {
  char head[4096];
  size_t n = 0;
  for (int i = 0; i < cb_ncolumns && n < sizeof head; i++)
    n += (size_t)snprintf(head + n, sizeof head - n, "%s%s", i ? "," : "", cb_columns[i].name);
  if (c->burnin && n < sizeof head)
    n += (size_t)snprintf(head + n, sizeof head - n, ",interval,interval_start");
  if (n >= sizeof head - 1)
    return cb_fail(err, CB_RUNTIME, "--csv: the header is too long");
  head[n++] = '\n';
  c->header = 1;
  return cb_lines_put(&c->l, head, n, err);
}

/* One record as one line, written whole. */
static int put_record(struct csv *c, const struct cb_record *r, struct cb_error *err) {
  struct cb_lines *l = &c->l;
  if (!c->header && put_header(c, err))
    return err->status;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return cb_fail(err, CB_RUNTIME, "--csv: out of memory writing '%s'", l->path);
  for (int i = 0; i < cb_ncolumns; i++) {
    if (i)
      fputc(',', f);
    put_field(f, r, &cb_columns[i]);
  }
  if (c->burnin) {
    char when[32] = "";
    if (r->interval > 0)
      cb_utc_text(r->interval_start, when, sizeof when);
    fprintf(f, ",%d,%s", r->interval, when);
  }
  fputc('\n', f);
  int bad = fclose(f) != 0;
  int rc = bad ? cb_fail(err, CB_RUNTIME, "--csv: out of memory writing '%s'", l->path)
               : cb_lines_put(l, text, len, err);
  free(text);
  return rc;
}

static int csv_row(void *state, const struct cb_row *row, struct cb_error *err) {
  if ((row->outofplace && put_record(state, row->outofplace, err)) ||
      (row->inplace && put_record(state, row->inplace, err)))
    return err->status;
  return CB_OK;
}

/* Every output opened: the run goes ahead. */
static int csv_start(void *state, struct cb_error *err) {
  return cb_lines_start(&((struct csv *)state)->l, err);
}

static int csv_run(void *state, const struct cb_run_info *ri, struct cb_error *err) {
  struct csv *c = state;
  c->burnin = ri->settings && ri->settings->duration > 0;
  return c->header ? CB_OK : put_header(c, err);
}

static int csv_finish(void *state, const struct cb_summary *sum, struct cb_error *err) {
  (void)sum; /* no line at all: the header still says what the columns are */
  struct csv *c = state;
  return c->header ? CB_OK : put_header(c, err);
}

static int csv_close(void *state, struct cb_error *err) {
  int rc = cb_lines_close(&((struct csv *)state)->l, err);
  free(state);
  return rc;
}

int cb_sink_csv(const char *path, struct cb_sink *sink, struct cb_error *err) {
  struct csv *c = calloc(1, sizeof *c);
  if (!c)
    return cb_fail(err, CB_RUNTIME, "out of memory");
  if (cb_lines_open(&c->l, path, "--csv", err)) {
    free(c);
    return err->status;
  }
  memset(sink, 0, sizeof *sink);
  sink->state = c;
  sink->start = csv_start;
  sink->run = csv_run;
  sink->row = csv_row;
  sink->finish = csv_finish;
  sink->close = csv_close;
  return CB_OK;
}
