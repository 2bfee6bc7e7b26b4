/* What the tuner searches, and the grid of valid combinations (space.h says more). */
#include "space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/units.h"
#include "plugin.h"
#include "runtime/cluster.h"
#include "runtime/gpu.h"

const char *const cb_algorithm_names[CB_NALGORITHMS] = {
    "default decision", "basic linear", "nonoverlapping", "recursive doubling", "ring",
    "segmented ring",   "rabenseifner",
};

int cb_config_equal(const struct cb_tune_config *a, const struct cb_tune_config *b) {
  return a->algorithm == b->algorithm && a->segsize == b->segsize &&
         a->bucket_bytes == b->bucket_bytes && a->protocol == b->protocol && a->ctas == b->ctas;
}

int cb_config_valid(const struct cb_space *s, const struct cb_tune_config *c) {
  if (s->kind == CB_SPACE_NCCL)
    return c->segsize == 0 && c->algorithm >= 0 && c->algorithm < CB_NCCL_ALGOS &&
           c->protocol >= 0 && c->protocol < CB_NCCL_PROTOS &&
           s->pair_ok[c->algorithm][c->protocol];
  return c->protocol == 0 && c->ctas == 0 && (c->segsize == 0 || c->algorithm == CB_SEGMENTED_RING);
}

static const char *nccl_format(const struct cb_tune_config *c, const char *bucket, char *buf,
                               size_t len) {
  char ctas[32] = "";
  if (c->ctas)
    snprintf(ctas, sizeof ctas, " ctas %d", c->ctas);
  snprintf(buf, len, "algo %s proto %s%s bucket %s",
           c->algorithm > 0 && c->algorithm < CB_NCCL_ALGOS ? cb_nccl_algo_env[c->algorithm - 1]
                                                            : "(NCCL's)",
           c->protocol > 0 && c->protocol < CB_NCCL_PROTOS ? cb_nccl_proto_env[c->protocol - 1]
                                                           : "(NCCL's)",
           ctas, bucket);
  return buf;
}

const char *cb_config_format(int kind, const struct cb_tune_config *c, char *buf, size_t len) {
  char seg[32], bucket[32];
  cb_format_size(c->bucket_bytes, bucket, sizeof bucket);
  if (kind == CB_SPACE_NCCL)
    return nccl_format(c, bucket, buf, len);
  if (c->algorithm < 0)
    snprintf(buf, len, "algorithm (library's) bucket %s", bucket);
  else if (c->segsize)
    snprintf(buf, len, "algorithm %d (%s) segsize %s bucket %s", c->algorithm,
             cb_algorithm_names[c->algorithm],
             cb_format_size((uint64_t)c->segsize, seg, sizeof seg), bucket);
  else
    snprintf(buf, len, "algorithm %d (%s) bucket %s", c->algorithm,
             c->algorithm < CB_NALGORITHMS ? cb_algorithm_names[c->algorithm] : "?", bucket);
  return buf;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

int cb_space_launch_bucket(uint64_t grad_bytes, uint64_t *bucket, struct cb_error *err) {
  const char *v = getenv(CB_BUCKET_VAR);
  *bucket = CB_DDP_BUCKET_BYTES;
  if (v && cb_parse_size(v, CB_BUCKET_VAR, bucket, err))
    return err->status;
  if (*bucket > grad_bytes)
    *bucket = grad_bytes;
  return CB_OK;
}

void cb_space_cap_buckets(struct cb_space *s, uint64_t grad_bytes) {
  for (int i = 0; i < s->nbuckets; i++)
    if (s->buckets[i] > grad_bytes)
      s->buckets[i] = grad_bytes;
  qsort(s->buckets, (size_t)s->nbuckets, sizeof s->buckets[0], cmp_u64);
  int n = 0;
  for (int i = 0; i < s->nbuckets; i++)
    if (n == 0 || s->buckets[i] != s->buckets[n - 1])
      s->buckets[n++] = s->buckets[i];
  s->nbuckets = n;
}

/* One dimension's values, or the single value 0 (the library's choice)
 * when the space does not search it. */
static int dim(const int *vals, int n, int i) {
  return n ? vals[i] : 0;
}

int cb_space_grid(const struct cb_space *s, struct cb_tune_config *out) {
  int n = 0;
  int nalg = s->nalgorithms ? s->nalgorithms : 1;
  int nproto = s->nprotocols ? s->nprotocols : 1, nctas = s->nctas ? s->nctas : 1;
  for (int a = 0; a < nalg; a++) {
    int alg = s->nalgorithms ? s->algorithms[a] : -1;
    int segmented = s->kind == CB_SPACE_MPI && alg == CB_SEGMENTED_RING;
    int nseg = segmented ? s->nsegments : 1;
    for (int g = 0; g < nseg; g++)
      for (int p = 0; p < nproto; p++)
        for (int k = 0; k < nctas; k++)
          for (int b = 0; b < s->nbuckets; b++) {
            struct cb_tune_config c = {alg, segmented ? s->segments[g] : 0, s->buckets[b],
                                       dim(s->protocols, s->nprotocols, p),
                                       dim(s->ctas, s->nctas, k)};
            if (alg >= 0 && !cb_config_valid(s, &c))
              continue;
            if (out)
              out[n] = c;
            n++;
          }
  }
  return n;
}

/* NCCL 2.28's rules (src/graph/tuning.cc, src/enqueue.cc), as far as they
 * can be known before a communicator exists: NVLS needs NVLink SHARP,
 * CollNet a SHARP plugin, PAT one rank per node and only gathers and
 * scatters, broadcast only Ring; NVLS, CollNet and PAT run Simple only;
 * LL128 on any compute capability from 7.0 (ncclTopoTuneModel since 2.27:
 * "!(minCompCap < 70 ...)", then only the paths decide, which are not known
 * here; 2.24 to 2.26 listed 70, 80, 90, 100 and, from 2.25, 120). An unknown
 * capability (0) prunes nothing. */
static int pair_runs(const char *coll, const struct cb_nccl_view *v, int algo, int proto) {
  int allreduce = !strcmp(coll, "allreduce"),
      gather = !strcmp(coll, "allgather") || !strcmp(coll, "reducescatter");
  int simple = proto == 3;
  if (v->nranks < 2)
    return 0; /* NCCL copies locally: nothing to choose */
  if (proto == 2 && v->cc && v->cc < 70)
    return 0; /* LL128 before Volta */
  switch (algo) {
  case 1: return allreduce; /* Tree */
  case 2: return 1;         /* Ring */
  case 3:
  case 4: return (allreduce || gather) && v->collnet && simple;   /* CollNet */
  case 5: return (allreduce || gather) && v->nvls && simple;      /* NVLS */
  case 6: return allreduce && v->nvls && v->nnodes > 1 && simple; /* NVLSTree */
  case 7: return gather && v->ranks_per_node == 1 && simple;      /* PAT */
  default: return 0;
  }
}

int cb_nccl_prune(const char *coll, const struct cb_nccl_view *v,
                  unsigned char ok[CB_NCCL_ALGOS][CB_NCCL_PROTOS]) {
  int n = 0;
  memset(ok, 0, CB_NCCL_ALGOS * CB_NCCL_PROTOS);
  for (int a = 1; a < CB_NCCL_ALGOS; a++)
    for (int p = 1; p < CB_NCCL_PROTOS; p++)
      if (pair_runs(coll, v, a, p)) {
        /* forcing one of the two leaves NCCL the other: valid when any
         * named pair with it runs */
        ok[a][p] = ok[a][0] = ok[0][p] = 1;
        n++;
      }
  ok[0][0] = 1;
  return n;
}

/* A name from table[0..n-1] (case-insensitive) as 1 + its index, or
 * "default" as 0; -1 when neither. */
static int lookup_name(const char *tok, const char *const *table, int n) {
  if (!strcasecmp(tok, "default"))
    return 0;
  for (int i = 0; i < n; i++)
    if (!strcasecmp(tok, table[i]))
      return i + 1;
  return -1;
}

/* Parses a comma list into out[] (distinct, in order) with `one` turning
 * a token into a value or -1. */
static int parse_list(const char *arg, const char *option, int (*one)(const char *tok),
                      const char *expected, int *out, int *n, struct cb_error *err) {
  char copy[256], *save = NULL;
  if (snprintf(copy, sizeof copy, "%s", arg) >= (int)sizeof copy)
    return cb_fail(err, CB_USAGE, "%s: '%s' is too long", option, arg);
  if (cb_list_check(arg, option, err))
    return err->status;
  *n = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int v = one(tok);
    if (v < 0)
      return cb_fail(err, CB_USAGE, "%s: '%s' is not %s", option, tok, expected);
    int seen = 0;
    for (int i = 0; i < *n; i++)
      seen |= out[i] == v;
    if (!seen && *n < CB_SPACE_MAX)
      out[(*n)++] = v;
  }
  if (*n == 0)
    return cb_fail(err, CB_USAGE, "%s: empty list '%s'", option, arg);
  return CB_OK;
}

static int mpi_algorithm(const char *tok) {
  char *end;
  long v = strtol(tok, &end, 10);
  return *tok < '0' || *tok > '9' || *end || v >= CB_NALGORITHMS ? -1 : (int)v;
}

static int nccl_algorithm(const char *tok) {
  return lookup_name(tok, cb_nccl_algo_env, CB_NCCL_NALGOS);
}

static int nccl_protocol(const char *tok) {
  return lookup_name(tok, cb_nccl_proto_env, CB_NCCL_NPROTOS);
}

static int cta_count(const char *tok) {
  char *end;
  long v = strtol(tok, &end, 10);
  return *tok < '0' || *tok > '9' || *end || v < 1 || v > 64 ? -1 : (int)v;
}

int cb_space_parse_algorithms(const char *arg, struct cb_space *s, struct cb_error *err) {
  if (s->kind == CB_SPACE_NCCL)
    return parse_list(arg, "--tune-algorithms", nccl_algorithm,
                      "an NCCL algorithm (default, tree, ring, collnetdirect, collnetchain, nvls, "
                      "nvlstree, pat)",
                      s->algorithms, &s->nalgorithms, err);
  return parse_list(arg, "--tune-algorithms", mpi_algorithm,
                    "an allreduce algorithm 0-6 of coll/tuned", s->algorithms, &s->nalgorithms,
                    err);
}

int cb_space_parse_protocols(const char *arg, struct cb_space *s, struct cb_error *err) {
  return parse_list(arg, "--tune-protocols", nccl_protocol,
                    "an NCCL protocol (default, ll, ll128, simple)", s->protocols, &s->nprotocols,
                    err);
}

int cb_space_parse_ctas(const char *arg, struct cb_space *s, struct cb_error *err) {
  return parse_list(arg, "--tune-ctas", cta_count, "a CTA count 1-64", s->ctas, &s->nctas, err);
}

int cb_space_parse_sizes(const char *arg, const char *what, uint64_t *out, int *n,
                         struct cb_error *err) {
  /* MPI counts and segment sizes are ints */
  return cb_parse_size_list(arg, what, 1ull << 30, out, CB_SPACE_MAX, n, err);
}

void cb_space_defaults(struct cb_space *s) {
  memset(s, 0, sizeof *s);
  for (int a = 0; a < CB_NALGORITHMS; a++)
    s->algorithms[s->nalgorithms++] = a;
  static const long segs[] = {16 << 10, 64 << 10, 256 << 10, 1 << 20};
  for (size_t i = 0; i < sizeof segs / sizeof segs[0]; i++)
    s->segments[s->nsegments++] = segs[i];
  for (uint64_t b = 1 << 20; b <= 256u << 20; b *= 2) /* 1 MiB .. 256 MiB */
    s->buckets[s->nbuckets++] = b;
}

void cb_space_defaults_nccl(struct cb_space *s) {
  cb_space_defaults(s);
  s->kind = CB_SPACE_NCCL;
  s->nsegments = 0;
  s->nalgorithms = s->nprotocols = 0;
  for (int a = 0; a < CB_NCCL_ALGOS; a++)
    s->algorithms[s->nalgorithms++] = a;
  for (int p = 0; p < CB_NCCL_PROTOS; p++)
    s->protocols[s->nprotocols++] = p;
  s->pair_ok[0][0] = 1;
}

struct cb_nccl_view cb_tune_nccl_view(const struct cb_cluster *cl, int share_gpu) {
  int per_node = 0;
  for (int i = 0; i < cl->nnodes; i++)
    per_node = cl->ranks_on_node[i] > per_node ? cl->ranks_on_node[i] : per_node;
  const char *collnet = getenv("NCCL_COLLNET_ENABLE"), *nvls = getenv("NCCL_NVLS_ENABLE");
  struct cb_nccl_view v = {
      .nranks = cl->nranks,
      /* --share-gpu: NCCL_HOSTID makes each rank a node of its own */
      .nnodes = share_gpu ? cl->nranks : cl->nnodes,
      .ranks_per_node = share_gpu ? 1 : per_node,
      .cc = cb_gpu_compute_capability(),
      .collnet = collnet && !strcmp(collnet, "1"),
  };
  /* NVLink SHARP needs NVSwitch multicast, which only NCCL can see: tried
   * only when the user says it is there */
  v.nvls = nvls && !strcmp(nvls, "1") && v.ranks_per_node > 1 && v.cc >= 90;
  return v;
}

struct cb_nccl_view cb_nccl_group_view(const struct cb_nccl_view *w, const int *node_of_rank,
                                       const int *members, int n) {
  struct cb_nccl_view v = *w;
  v.nranks = n, v.nnodes = 0, v.ranks_per_node = 0;
  for (int i = 0; i < n; i++) {
    int first = 1, here = 0; /* a node counts at its first member */
    for (int j = 0; j < n; j++) {
      int same = !node_of_rank ? i == j : node_of_rank[members[i]] == node_of_rank[members[j]];
      first &= !(same && j < i);
      here += same;
    }
    v.nnodes += first;
    v.ranks_per_node = here > v.ranks_per_node ? here : v.ranks_per_node;
  }
  /* NVLink SHARP: the world's evidence, and GPUs of this group sharing a node */
  v.nvls = w->nvls && v.ranks_per_node > 1;
  return v;
}

int cb_nccl_pair_code(int algorithm, int protocol) {
  return 1 + (algorithm - 1) * (CB_NCCL_PROTOS - 1) + protocol - 1;
}

void cb_nccl_pair_of(int code, int *algorithm, int *protocol) {
  *algorithm = 1 + (code - 1) / (CB_NCCL_PROTOS - 1);
  *protocol = 1 + (code - 1) % (CB_NCCL_PROTOS - 1);
}

const char *cb_nccl_pair_name(int code) {
  static char names[1 + CB_NCCL_NPAIRS][32]; /* "Ring/Simple": from NCCL's two tables */
  if (code < 0 || code > CB_NCCL_NPAIRS)
    return NULL;
  if (!names[0][0])
    for (int c = 0; c <= CB_NCCL_NPAIRS; c++) {
      int a, p;
      cb_nccl_pair_of(c, &a, &p);
      if (c)
        snprintf(names[c], sizeof names[c], "%s/%s", cb_nccl_algo_env[a - 1],
                 cb_nccl_proto_env[p - 1]);
      else
        snprintf(names[c], sizeof names[c], "library");
    }
  return names[code];
}

int cb_nccl_pair_codes(const char *coll, const struct cb_nccl_view *v, int *codes) {
  unsigned char ok[CB_NCCL_ALGOS][CB_NCCL_PROTOS];
  int n = 0;
  cb_nccl_prune(coll, v, ok);
  for (int a = 1; a < CB_NCCL_ALGOS; a++)
    for (int p = 1; p < CB_NCCL_PROTOS; p++)
      if (ok[a][p])
        codes[n++] = cb_nccl_pair_code(a, p);
  return n;
}
