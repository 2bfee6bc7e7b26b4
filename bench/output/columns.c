#include "columns.h"

#include <stddef.h>

#define COL(field, kind)                                                                           \
  { #field, kind, offsetof(struct cb_record, field) }

/* Exactly the keys the JSON result line promises, in order. */
const struct cb_column cb_columns[] = {
    COL(op, CB_COL_STRING),          COL(backend, CB_COL_STRING),
    COL(mem, CB_COL_STRING),         COL(transport, CB_COL_CHARS),
    COL(dtype, CB_COL_STRING),       COL(redop, CB_COL_STRING),
    COL(inplace, CB_COL_BOOL),       COL(bytes, CB_COL_UINT64),
    COL(count, CB_COL_SIZE),         COL(nranks, CB_COL_INT),
    COL(nnodes, CB_COL_INT),         COL(iters, CB_COL_LONG),
    COL(time_us, CB_COL_DOUBLE),     COL(time_us_min, CB_COL_DOUBLE),
    COL(time_us_max, CB_COL_DOUBLE), COL(time_us_p5, CB_COL_DOUBLE),
    COL(time_us_p95, CB_COL_DOUBLE), COL(ci95_us, CB_COL_DOUBLE),
    COL(algbw_GBps, CB_COL_DOUBLE),  COL(busbw_GBps, CB_COL_DOUBLE),
    COL(wrong, CB_COL_WRONG),
};
const int cb_ncolumns = sizeof cb_columns / sizeof cb_columns[0];

const void *cb_column_ptr(const struct cb_record *r, const struct cb_column *c) {
  return (const char *)r + c->offset;
}
