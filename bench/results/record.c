/* The measurement record every output reads, and --stat's choice of its figure (record.h says
 * more). */
#include "record.h"

#include <math.h>
#include <stddef.h>

#include "runtime/settings.h"

/* Where each --stat statistic lives in the record (enum cb_stat order). */
static const size_t stat_field[CB_NSTATS] = {
    offsetof(struct cb_record, time_us_median),
    offsetof(struct cb_record, time_us_mean),
    offsetof(struct cb_record, time_us_min),
};

void cb_record_choose(struct cb_record *r, int stat, uint64_t algbw_bytes, double busbw_factor) {
  r->stat = cb_stat_names[stat];
  r->time_us = *(const double *)((const char *)r + stat_field[stat]);
  r->algbw_GBps = r->busbw_GBps = 0;
  if (r->time_us > 0) {
    r->algbw_GBps = (double)algbw_bytes / (r->time_us * 1e-6) / 1e9;
    r->busbw_GBps = r->algbw_GBps * busbw_factor;
  }
}
