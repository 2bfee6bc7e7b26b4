/* The rules file of collbench's NCCL tuner plugin (RULES.md beside this
 * file): what `collbench --tune --plugin-out FILE` writes, read by the
 * plugin at communicator init. Self-contained (libc only): the plugin is
 * loaded into other programs' processes and links nothing of collbench's,
 * so it has its own small bounded reader.
 *
 * A file is taken whole or not at all: any bad line refuses it, with one
 * message naming the line and the value. */
#ifndef CB_TUNER_RULES_H
#define CB_TUNER_RULES_H

#include <stddef.h>
#include <stdint.h>

#define CBT_RULES_HEADER "# collbench-tuner-rules 1"
#define CBT_RULES_MAX_LINE 1024        /* bytes, without the newline */
#define CBT_RULES_MAX_BYTES (1L << 20) /* a whole file */
#define CBT_RULES_MAX 4096             /* rules in a file */
#define CBT_MAX_CHANNELS 64            /* NCCL's MAXCHANNELS (src/include/device.h, 2.28) */
#define CBT_MAX_CHUNK (1 << 30)        /* bytes; NCCL clamps to its buffer's maximum anyway */

struct cbt_rule {
  int coll;                      /* ncclFunc_t: 0 broadcast .. 4 allreduce */
  uint64_t min_bytes, max_bytes; /* NCCL's nBytes, both ends included */
  int algo, proto;               /* NCCL_ALGO_*, NCCL_PROTO_* */
  int channels;                  /* -1: leave NCCL's count */
  int nnodes, nranks;            /* -1: any */
  int pipe_ops;                  /* -1: any */
  int reg_buff;                  /* -1: any, else 0 or 1 */
  double margin_pct;             /* how much faster than the runner-up; NaN: unknown */
  int chunk;                     /* bytes, NCCL 2.30's getChunkSize (tuner v6); -1: NCCL's */
  int line;                      /* in the file */
};

struct cbt_rules {
  struct cbt_rule *rule;
  int n;
};

/* Loads `path` into *out (empty on failure). Returns 0, or -1 with the
 * reason in why ("FILE line N: ..."). */
int cbt_rules_load(const char *path, struct cbt_rules *out, char *why, size_t whylen);
void cbt_rules_free(struct cbt_rules *r);

/* The first rule, in file order, for this call and communicator; NULL when
 * none matches. */
const struct cbt_rule *cbt_rules_match(const struct cbt_rules *r, int coll, uint64_t nbytes,
                                       size_t nranks, size_t nnodes, int pipe_ops, int reg_buff);

/* How many rules could match a communicator of nranks on nnodes. */
int cbt_rules_for_comm(const struct cbt_rules *r, size_t nranks, size_t nnodes);

/* The names the file uses (NCCL's example plugin's names); "?" out of range. */
const char *cbt_coll_name(int coll);
const char *cbt_algo_name(int algo);
const char *cbt_proto_name(int proto);

#endif
