/* The result columns shared by JSON Lines and CSV: one table, so the two
 * can never disagree on names or order. */
#ifndef CB_COLUMNS_H
#define CB_COLUMNS_H

#include <stddef.h>

#include "results/record.h"

enum cb_column_kind {
  CB_COL_STRING, /* const char * */
  CB_COL_CHARS,  /* char[] inside the record */
  CB_COL_BOOL,   /* int */
  CB_COL_INT,    /* int */
  CB_COL_LONG,   /* long */
  CB_COL_UINT64, /* uint64_t */
  CB_COL_SIZE,   /* size_t */
  CB_COL_DOUBLE, /* double */
  CB_COL_WRONG,  /* long, -1 means not checked (null / empty) */
  CB_COL_KNOWN,  /* double, 0 means unknown (null / empty); may be absent */
  CB_COL_STAT,   /* double, NAN means unknown (null / empty); may be absent */
  CB_COL_OPTSTR, /* const char *, NULL means unknown (null / empty); may be absent */
  CB_COL_COUNT,  /* long, 0 means unknown (null / empty); may be absent */
  CB_COL_FLAG,   /* int 0/1, written as a boolean; may be absent (then 0) */
};

struct cb_column {
  const char *name;
  enum cb_column_kind kind;
  size_t offset;
};

extern const struct cb_column cb_columns[];
extern const int cb_ncolumns;

const void *cb_column_ptr(const struct cb_record *r, const struct cb_column *c);

/* Fills a record from a parsed JSON result object (a jansson json_t *), by
 * the same column table the JSON writer uses. String columns point into the
 * object: copy them if the record outlives it. Returns NULL, or the name of
 * the first column that is missing or of the wrong type. Files from before
 * --stat read as what they hold: stat "median" (time_us is the median),
 * source "collbench", the mean and p99 unknown (NAN). */
const char *cb_record_from_json(const void *json_object, struct cb_record *r);

#endif
