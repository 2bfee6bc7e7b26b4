/* libnccl-tuner-collbench.so: NCCL's tuner plugin interface (nccl_abi.h)
 * applying the per-size choices `collbench --tune --plugin-out` measured.
 *
 * At communicator init it reads the rules file named by
 * COLLBENCH_TUNER_RULES (rules.h, RULES.md). Per collective call, the first
 * rule matching the collective, NCCL's nBytes, the communicator's ranks and
 * nodes (and numPipeOps, regBuff where the rule names them) has its
 * (algorithm, protocol) made the cheapest in NCCL's cost table, and its
 * channel count handed back, but only where NCCL's table says the choice is
 * possible here (cost >= 0): otherwise the table is left as NCCL made it.
 * Under NCCL 2.30+ (tuner v6) a rule's chunk size goes to getChunkSize too.
 *
 * A plugin must never fail a job: init returns success whatever happens (a
 * failure there fails ncclCommInitRank, src/init.cc NCCLCHECKs it), with no
 * rules and one line in NCCL's log saying why; getCollInfo never fails. Each
 * communicator has its own context, so communicators made at the same time
 * from several threads share nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "nccl_abi.h"
#include "rules.h"

#define EXPORT __attribute__((visibility("default")))
#define RULES_ENV "COLLBENCH_TUNER_RULES"

/* The collectives getCollInfo saw lately, newest last: NCCL asks
 * getChunkSize per channel part, with the part's bytes, not the
 * collective's (src/enqueue.cc:717-737 at v2.30.7-1), so the rule a part
 * follows is the one its collective took. A group of up to this many
 * collectives is told apart. */
#define SEEN 64
struct seen {
  cb_nccl_func_t coll;
  size_t nbytes;
  const struct cbt_rule *rule; /* NULL: no rule */
};

struct ctx {
  struct cbt_rules rules;
  size_t nranks, nnodes;
  cb_nccl_logger_t log;
  struct seen seen[SEEN];
  unsigned long nseen;
};

#define LOG(c, level, ...)                                                                         \
  do {                                                                                             \
    if ((c)->log)                                                                                  \
      (c)->log(level, CB_NCCL_SUBSYS_TUNING, __FILE__, __LINE__, "TUNER/collbench: " __VA_ARGS__); \
  } while (0)

static cb_nccl_result_t tuner_init(struct ctx **out, size_t nranks, size_t nnodes,
                                   cb_nccl_logger_t log, uint64_t comm_id, int version) {
  *out = NULL;
  struct ctx *c = calloc(1, sizeof *c);
  if (!c) {
    if (log)
      log(CB_NCCL_LOG_WARN, CB_NCCL_SUBSYS_TUNING, __FILE__, __LINE__,
          "TUNER/collbench: out of memory: no rules, NCCL's own choices");
    return CB_NCCL_SUCCESS; /* a NULL context: getCollInfo leaves every table alone */
  }
  c->nranks = nranks, c->nnodes = nnodes, c->log = log;
  const char *path = getenv(RULES_ENV);
  char why[512];
  if (!path || !*path)
    LOG(c, CB_NCCL_LOG_INFO, RULES_ENV " not set: no rules, NCCL's own choices");
  else if (cbt_rules_load(path, &c->rules, why, sizeof why))
    LOG(c, CB_NCCL_LOG_WARN, "rules file refused, NCCL's own choices: %s", why);
  else
    LOG(c, CB_NCCL_LOG_INFO,
        "v%d, comm %llx (%zu ranks, %zu nodes): %d rules from %s, %d for this communicator's "
        "ranks and nodes",
        version, (unsigned long long)comm_id, nranks, nnodes, c->rules.n, path,
        cbt_rules_for_comm(&c->rules, nranks, nnodes));
  *out = c;
  return CB_NCCL_SUCCESS;
}

static cb_nccl_result_t get_coll_info(void *context, cb_nccl_func_t coll, size_t nbytes,
                                      int pipe_ops, float **table, int nalgo, int nproto,
                                      int reg_buff, int *nchannels) {
  struct ctx *c = context;
  if (!c || !table || c->rules.n == 0)
    return CB_NCCL_SUCCESS;
  const struct cbt_rule *r =
      cbt_rules_match(&c->rules, coll, nbytes, c->nranks, c->nnodes, pipe_ops, reg_buff);
  c->seen[c->nseen++ % SEEN] = (struct seen){coll, nbytes, r};
  if (!r) {
    LOG(c, CB_NCCL_LOG_INFO, "%s %zu bytes (%zu ranks, %zu nodes, %d ops): no rule, NCCL's choice",
        cbt_coll_name(coll), nbytes, c->nranks, c->nnodes, pipe_ops);
    return CB_NCCL_SUCCESS;
  }
  /* NCCL's table is numAlgo rows of numProto floats (nccl_abi.h) */
  float *cost =
      r->algo < nalgo && r->proto < nproto ? (float *)table + r->algo * nproto + r->proto : NULL;
  if (!cost || *cost < 0) {
    LOG(c, CB_NCCL_LOG_INFO,
        "%s %zu bytes: rule of line %d (%s/%s) not possible here (%s): "
        "NCCL's choice",
        cbt_coll_name(coll), nbytes, r->line, cbt_algo_name(r->algo), cbt_proto_name(r->proto),
        cost ? "its cost in NCCL's table is negative" : "not in NCCL's table");
    return CB_NCCL_SUCCESS;
  }
  float was = *cost;
  *cost = 0.0f; /* NCCL takes the cheapest; no possible choice costs less than 0 */
  if (r->channels > 0 && nchannels)
    *nchannels = r->channels;
  char margin[32] = "not measured", channels[16] = "NCCL's";
  if (r->channels > 0)
    snprintf(channels, sizeof channels, "%d", r->channels);
  if (!isnan(r->margin_pct))
    snprintf(margin, sizeof margin, "%.1f%%", r->margin_pct);
  LOG(c, CB_NCCL_LOG_INFO,
      "%s %zu bytes: %s/%s by the rule of line %d [%llu, %llu] (cost %.1f -> 0), channels %s, "
      "measured margin over the runner-up %s",
      cbt_coll_name(coll), nbytes, cbt_algo_name(r->algo), cbt_proto_name(r->proto), r->line,
      (unsigned long long)r->min_bytes, (unsigned long long)r->max_bytes, (double)was, channels,
      margin);
  return CB_NCCL_SUCCESS;
}

/* The rule the newest collective of `coll` at least `part` bytes took in
 * getCollInfo (a part is never more than its collective); NULL, with
 * *found 0, when none was seen. */
static const struct cbt_rule *part_rule(const struct ctx *c, cb_nccl_func_t coll, size_t part,
                                        int *found) {
  unsigned long n = c->nseen < SEEN ? c->nseen : SEEN;
  for (unsigned long i = 1; i <= n; i++) {
    const struct seen *s = &c->seen[(c->nseen - i) % SEEN];
    if (s->coll == coll && s->nbytes >= part)
      return *found = 1, s->rule;
  }
  return *found = 0, NULL;
}

/* NCCL 2.30's tuner v6: called once NCCL has chosen the algorithm,
 * protocol and channels, per channel part (nChannels 1, the part's bytes),
 * with the chunk size it computed. The rule the part's collective took in
 * getCollInfo gives its chunk size when NCCL runs that rule's own
 * algorithm and protocol; each call logs what NCCL chose, which is how a
 * user sees what ran. Never fails (NCCL NCCLCHECKs it). */
static cb_nccl_result_t get_chunk_size(void *context, cb_nccl_func_t coll, size_t nbytes, int algo,
                                       int proto, int nchannels, size_t *chunk) {
  struct ctx *c = context;
  if (!c || !chunk)
    return CB_NCCL_SUCCESS;
  /* below the protocol's grain NCCL would round the chunk down to 0 grains
   * (src/include/device.h ncclProtoGrainSize at v2.30.7-1: LL 16; LL128
   * 32 threads x 8 elements / 16 a line x 15 data elements x 8 bytes =
   * 1920; Simple 512) */
  static const int grain[CB_NCCL_NUM_PROTOCOLS] = {16, 1920, 512};
  int found = 0;
  const struct cbt_rule *r = c->rules.n ? part_rule(c, coll, nbytes, &found) : NULL;
  size_t was = *chunk;
  const char *why = c->rules.n && !found ? "no collective of it seen in getCollInfo"
                                         : "no rule with a chunk size";
  if (r && r->chunk > 0 && (r->algo != algo || r->proto != proto))
    why = "the rule's chunk size is for another algorithm or protocol";
  else if (r && r->chunk > 0 && proto >= 0 && proto < CB_NCCL_NUM_PROTOCOLS &&
           r->chunk < grain[proto])
    why = "the rule's chunk size is under the protocol's grain";
  else if (r && r->chunk > 0) {
    *chunk = (size_t)r->chunk;
    LOG(c, CB_NCCL_LOG_INFO,
        "%s part of %zu bytes ran %s/%s on %d channels: chunk %zu -> %d by the rule of line %d",
        cbt_coll_name(coll), nbytes, cbt_algo_name(algo), cbt_proto_name(proto), nchannels, was,
        r->chunk, r->line);
    return CB_NCCL_SUCCESS;
  }
  LOG(c, CB_NCCL_LOG_INFO, "%s part of %zu bytes ran %s/%s on %d channels: chunk %zu, NCCL's (%s)",
      cbt_coll_name(coll), nbytes, cbt_algo_name(algo), cbt_proto_name(proto), nchannels, was, why);
  return CB_NCCL_SUCCESS;
}

static cb_nccl_result_t finalize(void *context) {
  struct ctx *c = context;
  if (c) {
    cbt_rules_free(&c->rules);
    free(c);
  }
  return CB_NCCL_SUCCESS;
}

static cb_nccl_result_t init_v5(void **context, uint64_t comm_id, size_t nranks, size_t nnodes,
                                cb_nccl_logger_t log, cb_nccl_nvl_domain_info_v5 *nvl,
                                cb_nccl_tuner_constants_v5 *constants) {
  (void)nvl, (void)constants; /* NCCL's constants are left as they are */
  return tuner_init((struct ctx **)context, nranks, nnodes, log, comm_id, 5);
}

static cb_nccl_result_t init_v6(void **context, uint64_t comm_id, size_t nranks, size_t nnodes,
                                cb_nccl_logger_t log, cb_nccl_nvl_domain_info_v5 *nvl,
                                cb_nccl_tuner_constants_v5 *constants) {
  (void)nvl, (void)constants;
  return tuner_init((struct ctx **)context, nranks, nnodes, log, comm_id, 6);
}

static cb_nccl_result_t init_v4(size_t nranks, size_t nnodes, cb_nccl_logger_t log,
                                void **context) {
  return tuner_init((struct ctx **)context, nranks, nnodes, log, 0, 4);
}

EXPORT const cb_nccl_tuner_v6 ncclTunerPlugin_v6 = {"collbench", init_v6, get_coll_info, finalize,
                                                    get_chunk_size};
EXPORT const cb_nccl_tuner_v5 ncclTunerPlugin_v5 = {"collbench", init_v5, get_coll_info, finalize};
EXPORT const cb_nccl_tuner_v4 ncclTunerPlugin_v4 = {"collbench", init_v4, get_coll_info, finalize};
