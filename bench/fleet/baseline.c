/* Building, writing and reading fleet baselines (baseline.h). */
#include "baseline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/units.h"
#include "config.h"
#include "gitversion.h"
#include "output/replace.h"
#include "readback/readback.h"

const char *const cb_bl_kind_names[] = {"result", "pair", "node"};

/* A node's share of its run's median pair moves with whichever pairs the
 * run's load slowed: 10-run baselines measured its spread at 9.7% and 10.6%
 * of the median, and a 4-run one at 3%, which then failed healthy nodes at
 * 0.7 of the median (tests/measured-2026.md). Its floor is that 10%. */
const struct cb_bl_metric_info cb_bl_metrics[CB_BL_NMETRICS] = {
    {"time_us", "us", 0, CB_BASELINE_FLOOR},      {"algbw_GBps", "GB/s", 1, CB_BASELINE_FLOOR},
    {"busbw_GBps", "GB/s", 1, CB_BASELINE_FLOOR}, {"bw_GBps", "GB/s", 1, CB_BASELINE_FLOOR},
    {"lat_us", "us", 0, CB_BASELINE_FLOOR},       {"share_of_run", "x", 1, CB_BASELINE_SHARE_FLOOR},
};

double cb_bl_median(double *v, int n) {
  if (n <= 0)
    return NAN;
  cb_sort_doubles(v, (size_t)n);
  return cb_median_sorted(v, (size_t)n);
}

static double upper_median_by(const struct cb_bl_link *l, int n, const char *host, int received,
                              double *v) {
  int k = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(received ? l[i].dst : l[i].src, host))
      v[k++] = l[i].bw_GBps;
  if (!k)
    return NAN;
  cb_sort_doubles(v, (size_t)k);
  return v[k / 2];
}

int cb_bl_nodes(const struct cb_bl_link *l, int n, struct cb_bl_node *out, double *run) {
  double *v = malloc((n + 1) * sizeof *v);
  for (int i = 0; i < n; i++)
    v[i] = l[i].bw_GBps;
  *run = cb_bl_median(v, n);
  int nh = 0;
  for (int i = 0; i < n; i++) {
    const char *hosts[2] = {l[i].src, l[i].dst};
    for (int h = 0; h < 2; h++) {
      int seen = 0;
      for (int j = 0; j < nh && !seen; j++)
        seen = !strcmp(out[j].host, hosts[h]);
      if (seen)
        continue;
      struct cb_bl_node *o = &out[nh++];
      o->host = hosts[h];
      o->in_GBps = upper_median_by(l, n, hosts[h], 1, v);
      o->out_GBps = upper_median_by(l, n, hosts[h], 0, v);
      o->bw_GBps = isnan(o->in_GBps)    ? o->out_GBps
                   : isnan(o->out_GBps) ? o->in_GBps
                                        : fmin(o->in_GBps, o->out_GBps);
      o->share = *run > 0 ? o->bw_GBps / *run : NAN;
    }
  }
  free(v);
  return nh;
}

int cb_bl_same_key(const struct cb_bl_entry *a, const struct cb_bl_entry *b) {
  if (a->kind != b->kind || a->bytes != b->bytes)
    return 0;
  if (a->kind != CB_BL_RESULT)
    return strcmp(a->src, b->src) == 0 && strcmp(a->dst, b->dst) == 0;
  return a->inplace == b->inplace && a->nranks == b->nranks && a->nnodes == b->nnodes &&
         !strcmp(a->op, b->op) && !strcmp(a->backend, b->backend) && !strcmp(a->mem, b->mem) &&
         !strcmp(a->transport, b->transport) && !strcmp(a->dtype, b->dtype) &&
         !strcmp(a->redop, b->redop);
}

void cb_bl_describe(const struct cb_bl_entry *e, char *buf, int size) {
  char sz[32];
  cb_format_size(e->bytes, sz, sizeof sz);
  if (e->kind == CB_BL_PAIR)
    snprintf(buf, size, "link %s->%s %s", e->src, e->dst, sz);
  else if (e->kind == CB_BL_NODE)
    snprintf(buf, size, "node %s %s", e->src, sz);
  else
    snprintf(buf, size, "%s %s %s %s %s %s %s, %ld ranks, %ld node%s, %s", e->op, e->backend,
             e->mem, e->transport, e->dtype, e->redop, e->inplace ? "in-place" : "out-of-place",
             e->nranks, e->nnodes, e->nnodes == 1 ? "" : "s", sz);
}

static void key_of_record(const struct cb_record *r, struct cb_bl_entry *k) {
  memset(k, 0, sizeof *k);
  k->kind = CB_BL_RESULT;
  snprintf(k->op, sizeof k->op, "%s", r->op ? r->op : "");
  snprintf(k->backend, sizeof k->backend, "%s", r->backend ? r->backend : "");
  snprintf(k->mem, sizeof k->mem, "%s", r->mem ? r->mem : "");
  snprintf(k->transport, sizeof k->transport, "%s", r->transport);
  snprintf(k->dtype, sizeof k->dtype, "%s", r->dtype ? r->dtype : "");
  snprintf(k->redop, sizeof k->redop, "%s", r->redop ? r->redop : "");
  k->inplace = r->inplace;
  k->bytes = r->bytes;
  k->nranks = r->nranks;
  k->nnodes = r->nnodes;
}

const struct cb_bl_entry *cb_baseline_find_entry(const struct cb_baseline *b,
                                                 const struct cb_bl_entry *key) {
  for (int i = 0; i < b->nentries; i++)
    if (cb_bl_same_key(&b->entries[i], key))
      return &b->entries[i];
  return NULL;
}

const struct cb_bl_entry *cb_baseline_find(const struct cb_baseline *b, const struct cb_record *r) {
  struct cb_bl_entry k;
  key_of_record(r, &k);
  return cb_baseline_find_entry(b, &k);
}

void cb_baseline_free(struct cb_baseline *b) {
  for (int i = 0; i < b->nentries; i++)
    free(b->entries[i].runs);
  free(b->entries);
  free(b->runs);
  memset(b, 0, sizeof *b);
}

void cb_baseline_summary(const struct cb_baseline *b, char *buf, int size) {
  int len = 0;
  buf[0] = '\0';
  for (int i = 0; i < b->nentries && len < size - 1; i++) {
    const struct cb_bl_entry *e = &b->entries[i];
    char item[128];
    if (e->kind == CB_BL_RESULT)
      snprintf(item, sizeof item, "%s %s %s %s", e->op, e->backend, e->mem, e->dtype);
    else
      snprintf(item, sizeof item, "matrix");
    if (strstr(buf, item))
      continue;
    len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "", item);
  }
  if (!buf[0])
    snprintf(buf, size, "nothing");
}

/* ---- building: samples per key, then their distributions ---- */

struct acc {
  struct cb_bl_entry key;
  double *v[CB_BL_NMETRICS];
  int n[CB_BL_NMETRICS], cap[CB_BL_NMETRICS];
  double ci95_one[CB_BL_NMETRICS];
};

struct builder {
  struct acc *a;
  int n, cap;
};

static struct acc *acc_of(struct builder *bd, const struct cb_bl_entry *key) {
  for (int i = 0; i < bd->n; i++)
    if (cb_bl_same_key(&bd->a[i].key, key))
      return &bd->a[i];
  if (bd->n == bd->cap) {
    bd->cap = bd->cap ? 2 * bd->cap : 64;
    bd->a = realloc(bd->a, bd->cap * sizeof *bd->a);
  }
  struct acc *a = &bd->a[bd->n++];
  memset(a, 0, sizeof *a);
  a->key = *key;
  return a;
}

static void acc_add(struct acc *a, int metric, double x, double ci95, int run) {
  if (!isfinite(x))
    return;
  if (a->n[metric] == a->cap[metric]) {
    a->cap[metric] = a->cap[metric] ? 2 * a->cap[metric] : 8;
    a->v[metric] = realloc(a->v[metric], a->cap[metric] * sizeof(double));
  }
  a->v[metric][a->n[metric]++] = x;
  a->ci95_one[metric] = ci95;
  struct cb_bl_entry *k = &a->key;
  for (int i = 0; i < k->nruns; i++)
    if (k->runs[i] == run)
      return;
  k->runs = realloc(k->runs, (k->nruns + 1) * sizeof *k->runs);
  k->runs[k->nruns++] = run;
}

static void add_results(struct builder *bd, const struct cb_rep_data *d) {
  for (int s = 0; s < d->nseries; s++)
    for (int p = 0; p < d->series[s].npts; p++) {
      const struct cb_record *r = &d->series[s].pts[p];
      struct cb_bl_entry k;
      key_of_record(r, &k);
      struct acc *a = acc_of(bd, &k);
      double t = r->time_us, rel = r->ci95_us > 0 && t > 0 ? r->ci95_us / t : 0;
      int run = d->series[s].file;
      acc_add(a, CB_BLM_TIME, t, r->ci95_us, run);
      a->key.noisy |= r->noisy;
      acc_add(a, CB_BLM_ALGBW, r->algbw_GBps, rel * r->algbw_GBps, run);
      acc_add(a, CB_BLM_BUSBW, r->busbw_GBps, rel * r->busbw_GBps, run);
    }
}

static void pair_key(struct cb_bl_entry *k, int kind, const char *src, const char *dst,
                     uint64_t bytes) {
  memset(k, 0, sizeof *k);
  k->kind = kind;
  snprintf(k->src, sizeof k->src, "%s", src);
  snprintf(k->dst, sizeof k->dst, "%s", dst);
  k->bytes = bytes;
}

/* Whether q is one of a run's MPI matrix pairs at a size, with a bandwidth. */
static int in_run(const struct cb_rep_pair *q, int file, uint64_t bytes) {
  return q->file == file && !q->matrix[0] && !isnan(q->bw_GBps) && q->bytes == bytes;
}

/* Each node's figure in one run at each matrix size (cb_bl_nodes). */
static void add_nodes(struct builder *bd, const struct cb_rep_data *d, int file) {
  struct cb_bl_link *links = malloc((d->npairs + 1) * sizeof *links);
  struct cb_bl_node *nodes = malloc((2 * d->npairs + 1) * sizeof *nodes);
  for (int i = 0; i < d->npairs; i++) {
    const struct cb_rep_pair *p = &d->pairs[i];
    int seen = !in_run(p, file, p->bytes); /* once per size: its first pair */
    for (int j = 0; j < i && !seen; j++)
      seen = in_run(&d->pairs[j], file, p->bytes);
    if (seen)
      continue;
    int n = 0;
    for (int j = i; j < d->npairs; j++)
      if (in_run(&d->pairs[j], file, p->bytes))
        links[n++] =
            (struct cb_bl_link){d->pairs[j].src_host, d->pairs[j].dst_host, d->pairs[j].bw_GBps};
    double run;
    int nn = cb_bl_nodes(links, n, nodes, &run);
    for (int k = 0; k < nn; k++) {
      struct cb_bl_entry key;
      for (int fleet = 0; fleet < 2; fleet++) {
        pair_key(&key, CB_BL_NODE, fleet ? "*" : nodes[k].host, "", p->bytes);
        struct acc *a = acc_of(bd, &key);
        acc_add(a, CB_BLM_BW, nodes[k].bw_GBps, 0, file);
        if (!isnan(nodes[k].share))
          acc_add(a, CB_BLM_SHARE, nodes[k].share, 0, file);
      }
    }
  }
  free(nodes);
  free(links);
}

static void add_pairs(struct builder *bd, const struct cb_rep_data *d) {
  for (int i = 0; i < d->npairs; i++) {
    const struct cb_rep_pair *p = &d->pairs[i];
    if (p->matrix[0]) /* copy matrices are a node's own GPUs: not pooled here */
      continue;
    struct cb_bl_entry k;
    for (int fleet = 0; fleet < 2; fleet++) {
      pair_key(&k, CB_BL_PAIR, fleet ? "*" : p->src_host, fleet ? "*" : p->dst_host, p->bytes);
      struct acc *a = acc_of(bd, &k);
      acc_add(a, CB_BLM_BW, p->bw_GBps, 0, p->file);
      acc_add(a, CB_BLM_LAT, p->lat_us, 0, p->file);
    }
  }
  for (int f = 0; f < d->nruns; f++)
    add_nodes(bd, d, f);
}

static void copy_run(const struct cb_rep_run *r, struct cb_bl_run *o) {
  memset(o, 0, sizeof *o);
  snprintf(o->file, sizeof o->file, "%s", r->path ? r->path : "");
  snprintf(o->start_time, sizeof o->start_time, "%s", r->start_time ? r->start_time : "");
  snprintf(o->git_commit, sizeof o->git_commit, "%s", r->git_commit ? r->git_commit : "");
  snprintf(o->hostnames, sizeof o->hostnames, "%s", r->hostnames ? r->hostnames : "");
  o->nranks = r->nranks;
  o->nnodes = r->nnodes;
}

int cb_baseline_build(const char *opt, const char *const *files, int nfiles, struct cb_baseline *b,
                      struct cb_error *err) {
  memset(b, 0, sizeof *b);
  struct cb_rep_data d = {0};
  d.runs = calloc(nfiles, sizeof *d.runs);
  d.nruns = nfiles;
  for (int i = 0; i < nfiles; i++) {
    if (cb_baseline_sniff(files[i])) {
      cb_rep_free(&d);
      return cb_fail(err, CB_USAGE,
                     "%s %s: a baseline, not a --json run: build from the runs themselves", opt,
                     files[i]);
    }
    int before = d.nseries + d.npairs;
    if (cb_rep_read_opt(opt, files[i], i, &d, err)) {
      cb_rep_free(&d);
      return err->status;
    }
    if (d.nseries + d.npairs == before) { /* a series only grows when it is new */
      int any = 0;
      for (int s = 0; s < d.nseries; s++)
        any |= d.series[s].file == i;
      if (!any) {
        cb_rep_free(&d);
        return cb_fail(err, CB_USAGE,
                       "%s %s: no result or pair lines in it: not a collbench --json run", opt,
                       files[i]);
      }
    }
  }
  struct builder bd = {0};
  add_results(&bd, &d);
  add_pairs(&bd, &d);
  b->runs = calloc(nfiles, sizeof *b->runs);
  b->nruns = nfiles;
  for (int i = 0; i < nfiles; i++)
    copy_run(&d.runs[i], &b->runs[i]);
  b->entries = calloc(bd.n ? bd.n : 1, sizeof *b->entries);
  for (int i = 0; i < bd.n; i++) {
    struct acc *a = &bd.a[i];
    struct cb_bl_entry *e = &b->entries[b->nentries++];
    *e = a->key;
    for (int m = 0; m < CB_BL_NMETRICS; m++) {
      cb_dist_compute(a->v[m], a->n[m], a->ci95_one[m], &e->d[m]);
      free(a->v[m]);
    }
  }
  free(bd.a);
  snprintf(b->collbench_version, sizeof b->collbench_version, "%s", CB_VERSION);
  cb_rep_free(&d);
  return CB_OK;
}

int cb_baseline_sniff(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  char head[256];
  size_t n = fread(head, 1, sizeof head - 1, f);
  fclose(f);
  head[n] = '\0';
  const char *p = head + strspn(head, " \t\r\n");
  return *p == '{' && strstr(p, "\"format\"") && strstr(p, CB_BASELINE_FORMAT);
}
