#include "verdict.h"

#include <math.h>

const char *const cb_verdict_names[] = {"PASS", "WARN", "FAIL"};

void cb_verdict_judge(struct cb_verdict *v, int lower_is_better) {
  double sign = lower_is_better ? -1 : 1;
  v->margin = sign * (v->measured - v->fail) / v->fail;
  /* At the level itself counts as passing it: "at least 460 GB/s". */
  if (v->margin < 0)
    v->status = CB_FAIL;
  else if (!isnan(v->warn) && sign * (v->measured - v->warn) < 0)
    v->status = CB_WARN;
  else
    v->status = CB_PASS;
}
