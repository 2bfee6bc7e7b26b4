/* What to run: settings' defaults and names (settings.h says more). */
#include "settings.h"

#include <string.h>

const char *const cb_mode_names[] = {"throughput", "latency"};
const char *const cb_stat_names[] = {"median", "mean", "min"};
const char *const cb_variant_names[] = {"both", "out-of-place", "in-place"};

int cb_stat_find(const char *name) {
  for (int i = 0; i < CB_NSTATS; i++)
    if (strcmp(name, cb_stat_names[i]) == 0)
      return i;
  return -1;
}

void cb_settings_defaults(struct cb_settings *s) {
  memset(s, 0, sizeof *s);
  s->ops[s->nops++] = CB_OP_ALLREDUCE;
  s->backends[s->nbackends++] = CB_BACKEND_MPI;
  s->mems[s->nmems++] = CB_MEM_HOST;
  s->transports[s->ntransports++] = "auto";
  s->dtypes[s->ndtypes++] = CB_FLOAT;
  s->redops[s->nredops++] = CB_SUM;
  s->min_bytes = 8;
  s->max_bytes = 64 << 20;
  s->step_factor = 2;
  s->warmup = -1;
  s->check = 1;
  s->precision = 0.05; /* reached by 91-93% of the default sweep's records on a 2-core VM;
                          tests/measured-2026.md */
  s->max_time = 1.0;
  s->timeout = 300.0;
  s->mode = CB_MODE_THROUGHPUT;
  s->stat = CB_STAT_MEDIAN;
  s->window = 64;
  s->window_bytes = 64 << 20;
  s->gid_index = -1;
}

int cb_settings_sizes(const struct cb_settings *s, uint64_t *sizes, int max) {
  int n = 0;
  for (uint64_t size = s->min_bytes; size <= s->max_bytes && n < max;) {
    sizes[n++] = size;
    uint64_t next = s->step_bytes ? size + s->step_bytes : size * (uint64_t)s->step_factor;
    if (next <= size) /* overflow */
      break;
    size = next;
  }
  return n;
}

int cb_settings_window(const struct cb_settings *s, uint64_t bytes) {
  uint64_t fits = bytes ? s->window_bytes / bytes : (uint64_t)s->window;
  if (fits < 1)
    fits = 1;
  return fits < (uint64_t)s->window ? (int)fits : s->window;
}
