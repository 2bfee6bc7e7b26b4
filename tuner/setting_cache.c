/* Communicators shared by configurations that differ only in bucket size (setting_cache.h says
 * more). */
#include "setting_cache.h"

#include <stdlib.h>
#include <string.h>

void cb_setting_cache_init(struct cb_setting_cache *c, cb_setting_open open, cb_setting_close close,
                           void *ctx) {
  memset(c, 0, sizeof *c);
  c->open = open, c->close = close, c->ctx = ctx;
}

int cb_setting_acquire(struct cb_setting_cache *c, const struct cb_tune_config *cfg, void **setting,
                       struct cb_error *err) {
  struct cb_tune_config key = *cfg;
  key.bucket_bytes = 0; /* buckets only split the gradients differently */
  *setting = NULL;
  for (int i = 0; i < c->n; i++)
    if (cb_config_equal(&c->e[i].key, &key)) {
      c->e[i].refs++;
      *setting = c->e[i].setting;
      return CB_OK;
    }
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 16;
    struct cb_setting_entry *e = realloc(c->e, (size_t)cap * sizeof *e);
    if (!e)
      return cb_fail(err, CB_RUNTIME, "out of memory for the communicator table");
    c->e = e, c->cap = cap;
  }
  void *s = NULL;
  if (c->open(c->ctx, cfg, &s, err))
    return err->status;
  c->e[c->n++] = (struct cb_setting_entry){key, s, 1};
  if (c->n > c->peak)
    c->peak = c->n;
  *setting = s;
  return CB_OK;
}

void cb_setting_release(struct cb_setting_cache *c, void *setting) {
  for (int i = 0; setting && i < c->n; i++)
    if (c->e[i].setting == setting) {
      if (--c->e[i].refs > 0)
        return;
      c->close(c->ctx, setting);
      c->e[i] = c->e[--c->n];
      return;
    }
}

void cb_setting_cache_free(struct cb_setting_cache *c) {
  for (int i = 0; i < c->n; i++)
    c->close(c->ctx, c->e[i].setting);
  free(c->e);
  memset(c, 0, sizeof *c);
}
