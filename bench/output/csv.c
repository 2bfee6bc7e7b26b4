/* --csv FILE: a header, then one line per record, flushed as it comes. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "sink.h"

static void put_field(FILE *f, const struct cb_record *r, const struct cb_column *c) {
  const void *p = cb_column_ptr(r, c);
  switch (c->kind) {
  case CB_COL_STRING: fputs(*(const char *const *)p, f); break;
  case CB_COL_CHARS: fputs((const char *)p, f); break;
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
      fputs(*(const char *const *)p, f);
    break;
  }
}

static int put_record(FILE *f, const struct cb_record *r) {
  for (int i = 0; i < cb_ncolumns; i++) {
    if (i)
      fputc(',', f);
    put_field(f, r, &cb_columns[i]);
  }
  fputc('\n', f);
  return fflush(f);
}

static int csv_row(void *state, const struct cb_row *row, struct cb_error *err) {
  FILE *f = state;
  if ((row->outofplace && put_record(f, row->outofplace)) ||
      (row->inplace && put_record(f, row->inplace)))
    return cb_fail(err, CB_RUNTIME, "--csv: write failed");
  return CB_OK;
}

static void csv_close(void *state) {
  fclose(state);
}

int cb_sink_csv(const char *path, struct cb_sink *sink, struct cb_error *err) {
  FILE *f = fopen(path, "w");
  if (!f)
    return cb_fail(err, CB_USAGE, "--csv: cannot write '%s'", path);
  for (int i = 0; i < cb_ncolumns; i++)
    fprintf(f, "%s%s", i ? "," : "", cb_columns[i].name);
  fputc('\n', f);
  fflush(f);
  memset(sink, 0, sizeof *sink);
  sink->state = f;
  sink->row = csv_row;
  sink->close = csv_close;
  return CB_OK;
}
