/* --plugin-out's rules file from the sweep's results: the fastest algorithm and protocol per
 * size (plugin.h says more). */
#include "plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "envfile.h"

/* Indices are NCCL's NCCL_ALGO_* and NCCL_PROTO_* numbers (NCCL's
 * src/include/plugin/nccl_tuner.h at v2.28.9-1; src/include/nccl_common.h in
 * 2.24 to 2.27, the same numbers). */
const char *const cb_nccl_algo_csv[CB_NCCL_NALGOS] = {
    "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
const char *const cb_nccl_algo_env[CB_NCCL_NALGOS] = {
    "Tree", "Ring", "CollnetDirect", "CollnetChain", "NVLS", "NVLSTree", "PAT"};
const char *const cb_nccl_proto_csv[CB_NCCL_NPROTOS] = {"ll", "ll128", "simple"};
const char *const cb_nccl_proto_env[CB_NCCL_NPROTOS] = {"LL", "LL128", "Simple"};

static const char *const colls[] = {"allreduce", "allgather", "reducescatter", "broadcast"};
#define NCOLLS (int)(sizeof colls / sizeof colls[0])

int cb_plugin_coll_ok(const char *coll) {
  for (int i = 0; i < NCOLLS; i++)
    if (coll && strcmp(coll, colls[i]) == 0)
      return 1;
  return 0;
}

#define LL128 1 /* index in cb_nccl_proto_env */

static int usable(const struct cb_plugin_point *p) {
  return cb_plugin_coll_ok(p->coll) && p->algo >= 0 && p->algo < CB_NCCL_NALGOS && p->proto >= 0 &&
         p->proto < CB_NCCL_NPROTOS && p->time_us > 0 && (p->proto != LL128 || p->checked) &&
         !p->not_applied;
}

int cb_plugin_unproven_ll128(const struct cb_plugin_point *pts, int n) {
  int k = 0;
  for (int i = 0; i < n; i++)
    k += pts[i].proto == LL128 && !pts[i].checked;
  return k;
}

int cb_plugin_ll128_proven(const struct cb_plugin_point *pts, int n, const char *coll, int algo) {
  int seen = 0;
  for (int i = 0; i < n; i++)
    if (pts[i].proto == LL128 && (algo < 0 || pts[i].algo == algo) && pts[i].coll &&
        !strcmp(pts[i].coll, coll)) {
      if (!pts[i].checked)
        return 0;
      seen = 1;
    }
  return seen;
}

/* The point of (coll, bytes, algo, proto), or NULL. */
static const struct cb_plugin_point *find(const struct cb_plugin_point *pts, int n,
                                          const char *coll, uint64_t bytes, int algo, int proto) {
  for (int i = 0; i < n; i++)
    if (usable(&pts[i]) && pts[i].bytes == bytes && pts[i].algo == algo && pts[i].proto == proto &&
        strcmp(pts[i].coll, coll) == 0)
      return &pts[i];
  return NULL;
}

static int by_bytes(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* cb_plugin_rule's margin_pct: at each measured size of the rule, how much
 * longer the fastest other pair took than the rule's pair. */
static double margin_of(const struct cb_plugin_point *pts, int n, const struct cb_plugin_rule *r) {
  double margin = NAN;
  for (int i = 0; i < n; i++) {
    const struct cb_plugin_point *own = &pts[i];
    if (!usable(own) || own->algo != r->algo || own->proto != r->proto ||
        strcmp(own->coll, r->coll) || own->bytes < r->min_bytes || own->bytes > r->max_bytes)
      continue;
    const struct cb_plugin_point *other = NULL;
    for (int j = 0; j < n; j++)
      if (usable(&pts[j]) && pts[j].bytes == own->bytes && !strcmp(pts[j].coll, r->coll) &&
          (pts[j].algo != r->algo || pts[j].proto != r->proto) &&
          (!other || pts[j].time_us < other->time_us))
        other = &pts[j];
    if (other) {
      double m = (other->time_us / own->time_us - 1) * 100;
      if (isnan(margin) || m < margin)
        margin = m;
    }
  }
  return margin;
}

int cb_plugin_rules(const struct cb_plugin_point *pts, int n, struct cb_plugin_rule *out, int max) {
  int nrules = 0;
  uint64_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
  for (int c = 0; c < NCOLLS; c++) {
    int nsizes = 0;
    for (int i = 0; i < n; i++)
      if (usable(&pts[i]) && strcmp(pts[i].coll, colls[c]) == 0)
        sizes[nsizes++] = pts[i].bytes;
    qsort(sizes, nsizes, sizeof *sizes, by_bytes);
    int prev_algo = -1, prev_proto = -1;
    for (int s = 0; s < nsizes; s++) {
      if (s > 0 && sizes[s] == sizes[s - 1])
        continue;
      const struct cb_plugin_point *best = NULL;
      for (int i = 0; i < n; i++)
        if (usable(&pts[i]) && pts[i].bytes == sizes[s] && strcmp(pts[i].coll, colls[c]) == 0 &&
            (!best || pts[i].time_us < best->time_us))
          best = &pts[i];
      /* keep the previous size's winner when it is not measurably slower */
      const struct cb_plugin_point *kept = find(pts, n, colls[c], sizes[s], prev_algo, prev_proto);
      if (kept && kept->time_us - kept->ci95_us <= best->time_us + best->ci95_us)
        best = kept;
      if (nrules > 0 && best->algo == prev_algo && best->proto == prev_proto &&
          strcmp(out[nrules - 1].coll, colls[c]) == 0)
        continue; /* the open rule goes on */
      if (nrules == max)
        goto done;
      if (prev_algo >= 0)
        out[nrules - 1].max_bytes = sizes[s] - 1;
      /* channels 0 (written -1): NCCL's own at each size. The sweep forced only the
       * algorithm and protocol (NCCL_ALGO, NCCL_PROTO), so NCCL lowered its channel
       * count for small sizes (topoGetAlgoInfo, enqueue.cc) while measuring; a
       * plugin's count would replace that at every size of the rule. */
      out[nrules++] = (struct cb_plugin_rule){
          colls[c], prev_algo >= 0 ? sizes[s] : 0, UINT64_MAX, best->algo, best->proto, 0, NAN, 0,
          0};
      prev_algo = best->algo, prev_proto = best->proto;
    }
  }
done:
  free(sizes);
  for (int i = 0; i < nrules; i++)
    out[i].margin_pct = margin_of(pts, n, &out[i]);
  return nrules ? nrules : -1;
}

/* A comment as lines of at most 200 bytes, broken at spaces: NCCL's example
 * plugin (a safe reader from NCCL 2.30 only: RULES.md) reads 255-byte pieces
 * (fgets into 256 bytes), and the rest of a longer line would not start with
 * '#'. */
static void comment(FILE *f, const char *text) {
  char piece[201];
  while (*text) {
    size_t n = strlen(text);
    if (n > 200) {
      n = 200;
      while (n > 100 && text[n] != ' ')
        n--;
    }
    memcpy(piece, text, n);
    piece[n] = 0;
    cb_env_comment(f, piece);
    text += n;
    while (*text == ' ')
      text++;
  }
}

static void write_file(FILE *f, const char *const *comments, int ncomments,
                       const struct cb_plugin_rule *rules, int nrules, int nnodes, int nranks) {
  int unknown = 0;
  for (int i = 0; i < nrules; i++)
    unknown += rules[i].channels <= 0;
  /* the version line first: collbench's plugin refuses a file without it */
  fputs(CB_PLUGIN_RULES_HEADER "\n", f);
  for (int i = 0; i < ncomments; i++)
    comment(f, comments[i]);
  comment(f, "format: collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,"
             "nRanks,numPipeOps,regBuff,margin (tuner/plugin/RULES.md)");
  comment(f, "use: NCCL_TUNER_PLUGIN=collbench (libnccl-tuner-collbench.so, installed "
             "beside collbench in lib/) COLLBENCH_TUNER_RULES=<this file>; NCCL_ALGO/NCCL_PROTO "
             "override any plugin");
  comment(f, "NCCL's example plugin (NCCL_TUNER_CONFIG_FILE) reads these columns, but before "
             "NCCL 2.30 it mis-indexes NCCL's cost table: use it from 2.30 only "
             "(tuner/plugin/RULES.md)");
  comment(f, "margin: % longer the fastest other algorithm/protocol took, the least over "
             "the rule's measured sizes (negative: kept within the noise); none: no other "
             "measured");
  if (unknown)
    comment(f, "channels -1: NCCL's own count at each size, as measured (only algorithm "
               "and protocol were forced); collbench's plugin keeps it, NCCL's example (2.30 "
               "on) runs ONE channel: set the column for it");
  else
    comment(f, "channels: forced at every size of the rule (the example plugin's -1 "
               "would mean one channel)");
  comment(f, "chunk: an optional 12th column, bytes, that NCCL 2.30.3 and later ask the plugin "
             "for (tuner v6 getChunkSize) once a rule's algorithm and protocol run; --tune does "
             "not search it: that needs NCCL 2.30 on a GPU, and NCCL 2.28 offers tuner v5 "
             "(tuner/plugin/RULES.md)");
  comment(f, "rules hold only for the measured nodes and ranks; collectives without "
             "a rule (reduce) keep NCCL's choice (one channel with the example plugin)");
  for (int i = 0; i < nrules; i++) {
    char margin[32] = "none";
    if (!isnan(rules[i].margin_pct))
      snprintf(margin, sizeof margin, "%.1f", rules[i].margin_pct);
    fprintf(f, "%s,%llu,%llu,%s,%s,%d,%d,%d,-1,-1,%s\n", rules[i].coll,
            (unsigned long long)rules[i].min_bytes, (unsigned long long)rules[i].max_bytes,
            cb_nccl_algo_csv[rules[i].algo], cb_nccl_proto_csv[rules[i].proto],
            rules[i].channels > 0 ? rules[i].channels : -1,
            rules[i].nranks > 0 ? rules[i].nnodes : nnodes,
            rules[i].nranks > 0 ? rules[i].nranks : nranks, margin);
  }
}

int cb_plugin_write(FILE *f, const char *const *comments, int ncomments,
                    const struct cb_plugin_rule *rules, int nrules, int nnodes, int nranks,
                    struct cb_error *err) {
  if (nrules <= 0)
    return cb_fail(err, CB_USAGE, "--plugin-out: no collective measured to derive rules from");
  write_file(f, comments, ncomments, rules, nrules, nnodes, nranks);
  return CB_OK;
}

void cb_plugin_write_each(FILE *f, const char *const *comments, int ncomments,
                          const struct cb_plugin_rule *rules, int nrules) {
  write_file(f, comments, ncomments, rules, nrules, -1, -1);
  if (nrules == 0)
    comment(f, "no rules: NCCL's own choice held everywhere it was measured");
}

void cb_plugin_scope(char *buf, size_t len, int nccl_nodes, int nranks, int machine_nodes,
                     int share_gpu) {
  snprintf(buf, len,
           "rules match only communicators of %d nodes and %d ranks as NCCL counts them "
           "(measured there; the machine had %d node(s)%s)",
           nccl_nodes, nranks, machine_nodes,
           share_gpu ? ": --share-gpu makes each rank a node to NCCL" : "");
}
