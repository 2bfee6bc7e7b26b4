/* Communicators shared by configurations that differ only in bucket size.
 * A setting (an MPI or NCCL communicator made with one algorithm,
 * protocol, segment size and CTA count) does not depend on the bucket, so
 * a batch opens one per distinct rest of the configuration and closes it
 * when the last configuration using it is released. Memory bound: at most
 * as many live communicators as a batch has distinct (algorithm, protocol,
 * CTAs[, segment size]) settings: the exhaustive NCCL grid of two ranks on
 * an H100 (12 pairs x 9 buckets = 108 configurations) holds 12, not 108;
 * with --tune-ctas, 12 x the number of CTA counts. Pure: unit-tested with
 * a stand-in open/close. */
#ifndef CB_SETTING_CACHE_H
#define CB_SETTING_CACHE_H

#include "base/error.h"
#include "space.h"

typedef int (*cb_setting_open)(void *ctx, const struct cb_tune_config *cfg, void **setting,
                               struct cb_error *err);
typedef void (*cb_setting_close)(void *ctx, void *setting);

struct cb_setting_entry {
  struct cb_tune_config key; /* the configuration with bucket_bytes 0 */
  void *setting;
  int refs;
};

struct cb_setting_cache {
  cb_setting_open open;
  cb_setting_close close;
  void *ctx;
  struct cb_setting_entry *e;
  int n, cap;
  int peak; /* most settings alive at once */
};

void cb_setting_cache_init(struct cb_setting_cache *c, cb_setting_open open, cb_setting_close close,
                           void *ctx);
/* The setting for cfg: the one already open for its key, else a new one. */
int cb_setting_acquire(struct cb_setting_cache *c, const struct cb_tune_config *cfg, void **setting,
                       struct cb_error *err);
/* Drops one use; the last use closes it. NULL is ignored. */
void cb_setting_release(struct cb_setting_cache *c, void *setting);
/* Closes whatever is still open and frees the table. */
void cb_setting_cache_free(struct cb_setting_cache *c);

#endif
