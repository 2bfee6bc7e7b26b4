/* What to run: settings' names, windows and sizes (settings.h says more;
 * the defaults are the engine's, engine/defaults.c). */
#include "settings.h"

#include <string.h>

const char *const cb_timing_names[] = {"throughput", "latency"};
const char *const cb_stat_names[] = {"median", "mean", "min"};
const char *const cb_variant_names[] = {"both", "out-of-place", "in-place"};
const char *const cb_register_names[] = {"none", "local", "symmetric"};

int cb_stat_find(const char *name) {
  for (int i = 0; i < CB_NSTATS; i++)
    if (strcmp(name, cb_stat_names[i]) == 0)
      return i;
  return -1;
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
