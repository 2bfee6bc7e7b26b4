/* The result columns shared by JSON Lines and CSV (columns.h says more). */
#include "columns.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/timer.h"
#include "config.h"
#if CB_HAVE_JANSSON
#include <jansson.h>
#endif

#define COL(field, kind)                                                                           \
  { #field, kind, offsetof(struct cb_record, field) }

/* Exactly the keys the JSON result line promises, in order. Issue 17's
 * statistics (from stat on) come after the older keys, so CSV columns keep
 * their places. */
const struct cb_column cb_columns[] = {
    COL(op, CB_COL_STRING),           COL(backend, CB_COL_STRING),
    COL(mem, CB_COL_STRING),          COL(transport, CB_COL_CHARS),
    COL(dtype, CB_COL_STRING),        COL(redop, CB_COL_STRING),
    COL(inplace, CB_COL_BOOL),        COL(bytes, CB_COL_UINT64),
    COL(count, CB_COL_SIZE),          COL(nranks, CB_COL_INT),
    COL(nnodes, CB_COL_INT),          COL(iters, CB_COL_LONG),
    COL(time_us, CB_COL_DOUBLE),      COL(time_us_min, CB_COL_STAT),
    COL(time_us_max, CB_COL_STAT),    COL(time_us_p5, CB_COL_STAT),
    COL(time_us_p95, CB_COL_STAT),    COL(ci95_us, CB_COL_STAT),
    COL(algbw_GBps, CB_COL_DOUBLE),   COL(busbw_GBps, CB_COL_DOUBLE),
    COL(wrong, CB_COL_WRONG),         COL(line_gbps, CB_COL_KNOWN),
    COL(line_rate_pct, CB_COL_KNOWN), COL(stat, CB_COL_OPTSTR),
    COL(time_us_median, CB_COL_STAT), COL(time_us_mean, CB_COL_STAT),
    COL(time_us_p99, CB_COL_STAT),    COL(source, CB_COL_OPTSTR),
    COL(samples, CB_COL_COUNT),       COL(batch_min, CB_COL_COUNT),
    COL(batch_max, CB_COL_COUNT),     COL(noisy, CB_COL_FLAG),
};
const int cb_ncolumns = sizeof cb_columns / sizeof cb_columns[0];

const void *cb_column_ptr(const struct cb_record *r, const struct cb_column *c) {
  return (const char *)r + c->offset;
}

#if CB_HAVE_JANSSON
const char *cb_record_from_json(const void *json_object, struct cb_record *r) {
  const json_t *o = json_object;
  memset(r, 0, sizeof *r);
  for (int i = 0; i < cb_ncolumns; i++) {
    const struct cb_column *c = &cb_columns[i];
    json_t *v = json_object_get(o, c->name);
    void *p = (char *)r + c->offset;
    switch (c->kind) {
    case CB_COL_STRING:
      if (!json_is_string(v))
        return c->name;
      *(const char **)p = json_string_value(v);
      break;
    case CB_COL_CHARS:
      if (!json_is_string(v))
        return c->name;
      snprintf(p, sizeof r->transport, "%s", json_string_value(v));
      break;
    case CB_COL_BOOL:
      if (!json_is_boolean(v))
        return c->name;
      *(int *)p = json_is_true(v);
      break;
    case CB_COL_INT:
    case CB_COL_LONG:
    case CB_COL_UINT64:
    case CB_COL_SIZE:
      if (!json_is_integer(v))
        return c->name;
      if (c->kind == CB_COL_INT)
        *(int *)p = (int)json_integer_value(v);
      else if (c->kind == CB_COL_LONG)
        *(long *)p = (long)json_integer_value(v);
      else if (c->kind == CB_COL_UINT64)
        *(uint64_t *)p = (uint64_t)json_integer_value(v);
      else
        *(size_t *)p = (size_t)json_integer_value(v);
      break;
    case CB_COL_DOUBLE:
      if (!json_is_number(v))
        return c->name;
      *(double *)p = json_number_value(v);
      break;
    case CB_COL_WRONG:
      if (!json_is_null(v) && !json_is_integer(v))
        return c->name;
      *(long *)p = json_is_null(v) ? -1 : (long)json_integer_value(v);
      break;
    case CB_COL_KNOWN: /* absent in files from before these columns */
      if (v && !json_is_null(v) && !json_is_number(v))
        return c->name;
      *(double *)p = json_is_number(v) ? json_number_value(v) : 0;
      break;
    case CB_COL_STAT:
      if (v && !json_is_null(v) && !json_is_number(v))
        return c->name;
      *(double *)p = json_is_number(v) ? json_number_value(v) : NAN;
      break;
    case CB_COL_OPTSTR:
      if (v && !json_is_null(v) && !json_is_string(v))
        return c->name;
      *(const char **)p = json_string_value(v);
      break;
    case CB_COL_COUNT:
      if (v && !json_is_null(v) && !json_is_integer(v))
        return c->name;
      *(long *)p = json_is_integer(v) ? (long)json_integer_value(v) : 0;
      break;
    case CB_COL_FLAG: /* absent in files from before the column */
      if (v && !json_is_null(v) && !json_is_boolean(v))
        return c->name;
      *(int *)p = json_is_true(v);
      break;
    }
  }
  if (!r->stat) { /* before --stat, time_us was the median */
    r->stat = "median";
    if (isnan(r->time_us_median))
      r->time_us_median = r->time_us;
  }
  if (!r->source)
    r->source = "collbench";
  /* optional: only where NCCL's log said */
  const char *algo = json_string_value(json_object_get(o, "nccl_algo"));
  const char *proto = json_string_value(json_object_get(o, "nccl_proto"));
  snprintf(r->nccl_algo, sizeof r->nccl_algo, "%s", algo ? algo : "");
  snprintf(r->nccl_proto, sizeof r->nccl_proto, "%s", proto ? proto : "");
  const char *calgo = json_string_value(json_object_get(o, "algo"));
  const char *by = json_string_value(json_object_get(o, "algo_by"));
  snprintf(r->algo, sizeof r->algo, "%s", calgo ? calgo : "");
  snprintf(r->algo_by, sizeof r->algo_by, "%s", calgo && by ? by : "");
  /* a burn-in's (--duration): both or neither */
  json_t *iv = json_object_get(o, "interval");
  if (iv && !json_is_null(iv)) {
    if (!json_is_integer(iv) || json_integer_value(iv) < 1 || json_integer_value(iv) > 100000000)
      return "interval";
    r->interval = (int)json_integer_value(iv);
    r->interval_start = cb_utc_parse(json_string_value(json_object_get(o, "interval_start")));
    if (r->interval_start < 0)
      return "interval_start";
  }
  r->rotate = json_is_true(json_object_get(o, "rotate"));
  const char *reg = json_string_value(json_object_get(o, "register"));
  snprintf(r->reg, sizeof r->reg, "%s", reg ? reg : "");
  const char *skew = json_string_value(json_object_get(o, "skew"));
  snprintf(r->skew, sizeof r->skew, "%s", skew ? skew : "");
  const char *conc = json_string_value(json_object_get(o, "concurrent"));
  if (conc) { /* --concurrent's: the rest of its figures are read with it */
    const char *comm = json_string_value(json_object_get(o, "comm")),
               *layout = json_string_value(json_object_get(o, "parallel"));
    snprintf(r->concurrent, sizeof r->concurrent, "%s", conc);
    snprintf(r->comm, sizeof r->comm, "%s", comm ? comm : "");
    snprintf(r->parallel, sizeof r->parallel, "%s", layout ? layout : "");
    json_t *v;
    r->time_us_alone =
        (v = json_object_get(o, "time_us_alone")) && json_is_number(v) ? json_number_value(v) : NAN;
    r->slowdown =
        (v = json_object_get(o, "slowdown")) && json_is_number(v) ? json_number_value(v) : NAN;
  }
  const char *ran = json_string_value(json_object_get(o, "nccl_ran"));
  snprintf(r->nccl_ran, sizeof r->nccl_ran, "%s", ran ? ran : "");
  r->nccl_ran_other = ran && json_is_true(json_object_get(o, "nccl_ran_other"));
  json_t *channels = json_object_get(o, "nccl_channels");
  r->nccl_channels = json_is_integer(channels) ? (int)json_integer_value(channels) : 0;
  return NULL;
}
#else
const char *cb_record_from_json(const void *json_object, struct cb_record *r) {
  (void)json_object, (void)r;
  return "JSON support";
}
#endif
