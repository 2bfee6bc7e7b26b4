/* --plugin-out's sweep: each collective over every NCCL algorithm and protocol pair, through
 * the engine (plugin_sweep.h says more). */
#include "plugin_sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "output/replace.h"
#include "plugin.h"
#include "space.h"

/* The records of one forced pair, kept by a sink on rank 0. */
struct capture {
  const char *coll;
  int algo, proto;
  struct cb_plugin_point *pts;
  int n, cap;
  long wrong;
  int not_applied; /* rows NCCL ran with another algorithm than forced */
};

static int capture_row(void *state, const struct cb_row *row, struct cb_error *err) {
  struct capture *c = state;
  const struct cb_record *r = row->outofplace ? row->outofplace : row->inplace;
  if (!r)
    return CB_OK;
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 64;
    struct cb_plugin_point *p = realloc(c->pts, (size_t)cap * sizeof *p);
    if (!p)
      return cb_fail(err, CB_RUNTIME, "--plugin-out: out of memory");
    c->pts = p, c->cap = cap;
  }
  c->pts[c->n++] = (struct cb_plugin_point){
      c->coll,          r->bytes,   c->algo,          c->proto,
      r->time_us,       r->ci95_us, r->nccl_channels, r->wrong == 0 /* -1: not checked */,
      r->nccl_ran_other};
  c->not_applied += r->nccl_ran_other;
  c->wrong += r->wrong > 0 ? r->wrong : 0;
  return CB_OK;
}

/* One engine run of one collective with NCCL_ALGO and NCCL_PROTO forced
 * (the nccl backend makes its communicator after they are set). */
static int sweep_pair(const struct cb_cluster *cl, const struct cb_settings *base, int op,
                      const struct cb_run_info *ri, struct capture *c, struct cb_error *err) {
  struct cb_settings s = *base;
  s.nops = 1, s.ops[0] = op;
  s.nbackends = 1, s.backends[0] = cb_backend_lookup("nccl");
  s.nskipped_backends = 0;
  s.nmems = 1, s.mems[0] = CB_MEM_DEVICE;
  s.ndtypes = 1, s.dtypes[0] = CB_FLOAT;
  s.nredops = 1, s.redops[0] = CB_SUM;
  if (s.check < 1)
    s.check = 1; /* a forced pair must prove its results */
  /* the user's values come back afterwards (--env-out reads them) */
  const char *a = getenv("NCCL_ALGO"), *p = getenv("NCCL_PROTO");
  char *algo = a ? strdup(a) : NULL, *proto = p ? strdup(p) : NULL;
  setenv("NCCL_ALGO", cb_nccl_algo_env[c->algo], 1);
  setenv("NCCL_PROTO", cb_nccl_proto_env[c->proto], 1);
  struct cb_sink sink = {.state = c, .row = capture_row};
  struct cb_summary sum = {0};
  int rc = cb_engine_run(cl, &s, ri, &sink, cl->rank == 0, &sum, err);
  if (algo)
    setenv("NCCL_ALGO", algo, 1);
  else
    unsetenv("NCCL_ALGO");
  if (proto)
    setenv("NCCL_PROTO", proto, 1);
  else
    unsetenv("NCCL_PROTO");
  free(algo), free(proto);
  return rc;
}

struct rules_file {
  const char *const *comments;
  int ncomments;
  const struct cb_plugin_rule *rules;
  int nrules;
  const struct cb_nccl_view *view;
  struct cb_error *err; /* cb_plugin_write's own reason */
};

static int write_rules_file(void *state, FILE *f) {
  const struct rules_file *r = state;
  return cb_plugin_write(f, r->comments, r->ncomments, r->rules, r->nrules, r->view->nnodes,
                         r->view->nranks, r->err);
}

static int write_rules(const struct cb_cluster *cl, const struct cb_settings *s,
                       const struct cb_nccl_view *v, const char *path,
                       const struct cb_plugin_point *pts, int n, struct cb_error *err) {
  struct cb_plugin_rule rules[256];
  int nrules = cb_plugin_rules(pts, n, rules, (int)(sizeof rules / sizeof rules[0]));
  if (nrules < 0)
    return cb_fail(err, CB_RUNTIME, "--plugin-out %s: no collective measured", path);
  char lines[5][512], when[40];
  const char *comments[5] = {lines[0], lines[1], lines[2], lines[3], lines[4]};
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  snprintf(lines[0], sizeof lines[0], "collbench --tune --plugin-out, %s, %d ranks on %d node(s)%s",
           when, cl->nranks, cl->nnodes, s->share_gpu ? " (--share-gpu: ranks share one GPU)" : "");
  snprintf(
      lines[1], sizeof lines[1],
      "fastest NCCL_ALGO x NCCL_PROTO per size (float sum, device memory, %llu to %llu bytes); "
      "a neighbour's winner kept within the noise",
      (unsigned long long)s->min_bytes, (unsigned long long)s->max_bytes);
  snprintf(lines[2], sizeof lines[2],
           "use: NCCL_TUNER_PLUGIN=collbench COLLBENCH_TUNER_RULES=%s "
           "(NCCL_ALGO/NCCL_PROTO override any plugin: leave them unset)",
           path);
  cb_plugin_scope(lines[3], sizeof lines[3], v->nnodes, v->nranks, cl->nnodes, s->share_gpu);
  int unproven = cb_plugin_unproven_ll128(pts, n);
  snprintf(lines[4], sizeof lines[4],
           "%d LL128 measurements left out: their results were not checked on this run, and "
           "forcing LL128 where NCCL does not enable it itself can corrupt data",
           unproven);
  struct rules_file file = {comments, unproven ? 5 : 4, rules, nrules, v, err};
  if (cb_replace_write(path, "--plugin-out", write_rules_file, &file, err))
    return err->status;
  printf("# --plugin-out: %d rules from %d measured points\n", nrules, n);
  for (int i = 0; i < nrules; i++)
    printf("  %-13s %12llu .. %-20llu %s %s\n", rules[i].coll,
           (unsigned long long)rules[i].min_bytes, (unsigned long long)rules[i].max_bytes,
           cb_nccl_algo_env[rules[i].algo], cb_nccl_proto_env[rules[i].proto]);
  printf("wrote %s\n", path);
  return CB_OK;
}

int cb_plugin_sweep(const struct cb_cluster *cl, const struct cb_settings *s, const char *path,
                    int argc, char **argv, unsigned char ll128_proven[CB_NCCL_ALGOS],
                    struct cb_error *err) {
  static const char *const colls[] = {"allreduce", "allgather", "reducescatter", "broadcast"};
  struct cb_nccl_view v = cb_tune_nccl_view(cl, s->share_gpu);
  struct cb_run_info ri;
  cb_run_info_collect(&ri, argc, argv, cl, s);
  struct cb_plugin_point *all = NULL;
  int nall = 0, rc = CB_OK, pairs = 0;
  long wrong = 0;
  char bad[128] = "";
  for (size_t k = 0; k < sizeof colls / sizeof colls[0] && rc == CB_OK; k++) {
    unsigned char ok[CB_NCCL_ALGOS][CB_NCCL_PROTOS];
    cb_nccl_prune(colls[k], &v, ok);
    for (int a = 1; a < CB_NCCL_ALGOS && rc == CB_OK; a++)
      for (int p = 1; p < CB_NCCL_PROTOS && rc == CB_OK; p++) {
        if (!ok[a][p])
          continue;
        struct capture c = {.coll = colls[k], .algo = a - 1, .proto = p - 1};
        if (cl->rank == 0) {
          printf("# --plugin-out: %s with NCCL_ALGO=%s NCCL_PROTO=%s\n", colls[k],
                 cb_nccl_algo_env[a - 1], cb_nccl_proto_env[p - 1]);
          fflush(stdout);
        }
        rc = sweep_pair(cl, s, cb_op_lookup(colls[k]), &ri, &c, err);
        pairs++;
        if (c.not_applied && cl->rank == 0) /* reported, never a measured gain */
          printf("# --plugin-out: %s with NCCL_ALGO=%s: %d of %d sizes ran another algorithm "
                 "(nccl_ran): not applied, left out of the rules\n",
                 colls[k], cb_nccl_algo_env[a - 1], c.not_applied, c.n);
        if (c.wrong && !bad[0])
          snprintf(bad, sizeof bad, "%s with NCCL_ALGO=%s NCCL_PROTO=%s", colls[k],
                   cb_nccl_algo_env[a - 1], cb_nccl_proto_env[p - 1]);
        wrong += c.wrong;
        struct cb_plugin_point *grown =
            c.n ? realloc(all, (size_t)(nall + c.n) * sizeof *all) : all;
        if (c.n && !grown)
          rc = cb_fail(err, CB_RUNTIME, "--plugin-out: out of memory");
        else if (c.n) {
          all = grown;
          memcpy(all + nall, c.pts, (size_t)c.n * sizeof *all);
          nall += c.n;
        }
        free(c.pts);
      }
  }
  if (rc == CB_OK && pairs == 0)
    rc = cb_fail(err, CB_USAGE, "--plugin-out: no (algorithm, protocol) pair runs on %d rank(s)",
                 cl->nranks);
  for (int a = 0; a < CB_NCCL_ALGOS; a++)
    ll128_proven[a] =
        rc == CB_OK && !wrong && cb_plugin_ll128_proven(all, nall, "allreduce", a - 1);
  if (rc == CB_OK && cl->rank == 0) {
    if (wrong)
      rc = cb_fail(err, CB_FAILED,
                   "--plugin-out %s: %ld wrong elements (first: %s): no file "
                   "written",
                   path, wrong, bad);
    else
      rc = write_rules(cl, s, &v, path, all, nall, err);
  }
  free(all);
  cb_run_info_free(&ri);
  int agreed = cb_cluster_agree(cl, rc);
  if (agreed != CB_OK && rc == CB_OK)
    return cb_fail(err, agreed, "--plugin-out: rank 0 could not write %s (it says why)", path);
  return rc;
}
