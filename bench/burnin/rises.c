/* Error counters per burn-in interval (rises.h). */
#include "rises.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/counters.h"

static const char *host_of(const struct cb_probe *probe, int node) {
  return probe && node < probe->nnodes ? probe->nodes[node].hostname : "?";
}

int cb_rises_start(const struct cb_cluster *cl, struct cb_rises *rs, struct cb_error *err) {
  memset(rs, 0, sizeof *rs);
  int nodes = cl->rank == 0 ? cl->nnodes : 1;
  rs->before = calloc((size_t)nodes, sizeof *rs->before);
  if (!rs->before)
    return cb_fail(err, CB_RUNTIME, "out of memory for %d nodes' counters", nodes);
  cb_counters_gather(cl, rs->before);
  return CB_OK;
}

static void keep(struct cb_rises *rs, int node, const struct cb_counter *c, int k) {
  for (int i = 0; i < rs->n; i++) {
    struct cb_rise *r = &rs->r[i];
    if (r->node == node && r->c.port == c->port && !strcmp(r->c.dev, c->dev) &&
        !strcmp(r->c.name, c->name)) {
      r->c.value += c->value, r->last = k, r->nintervals++;
      return;
    }
  }
  if (rs->n < (int)(sizeof rs->r / sizeof rs->r[0]))
    rs->r[rs->n++] = (struct cb_rise){node, *c, k, k, 1};
  else
    rs->more++;
}

int cb_rises_interval(const struct cb_cluster *cl, const struct cb_probe *probe, int k,
                      struct cb_rises *rs, char *line, size_t len, struct cb_error *err) {
  line[0] = '\0';
  int nodes = cl->rank == 0 ? cl->nnodes : 1;
  struct cb_counters *after = malloc((size_t)nodes * sizeof *after);
  if (!after)
    return cb_fail(err, CB_RUNTIME, "out of memory for %d nodes' counters", nodes);
  cb_counters_gather(cl, after);
  for (int i = 0; cl->rank == 0 && i < cl->nnodes; i++) {
    struct cb_counters rose;
    cb_counters_delta(&rs->before[i], &after[i], &rose);
    for (int c = 0; c < rose.n; c++) {
      keep(rs, i, &rose.c[c], k);
      size_t at = strlen(line);
      if (at + 1 < len)
        snprintf(line + at, len - at, "%s%s %s port %d %s +%llu", at ? ", " : "", host_of(probe, i),
                 rose.c[c].dev, rose.c[c].port, rose.c[c].name,
                 (unsigned long long)rose.c[c].value);
    }
  }
  if (cl->rank == 0)
    memcpy(rs->before, after, (size_t)cl->nnodes * sizeof *after);
  free(after);
  return CB_OK;
}

void cb_rises_causes(const struct cb_rises *rs, const struct cb_probe *probe,
                     struct cb_causes *out) {
  memset(out, 0, sizeof *out);
  for (int i = 0; i < rs->n && out->n < CB_MAX_CAUSES; i++) {
    const struct cb_rise *r = &rs->r[i];
    struct cb_cause *c = &out->c[out->n++];
    *c = (struct cb_cause){0};
    snprintf(c->host, sizeof c->host, "%s", host_of(probe, r->node));
    snprintf(c->device, sizeof c->device, "%s", r->c.dev);
    c->rule = "counters-rose-in-burn-in";
    c->source = "error counters read after every interval";
    if (r->nintervals == 1)
      snprintf(c->text, sizeof c->text, "port %d %s rose by %llu in interval %d", r->c.port,
               r->c.name, (unsigned long long)r->c.value, r->first);
    else
      snprintf(c->text, sizeof c->text, "port %d %s rose by %llu in %d intervals, %d to %d",
               r->c.port, r->c.name, (unsigned long long)r->c.value, r->nintervals, r->first,
               r->last);
  }
  if (rs->more && out->n < CB_MAX_CAUSES) {
    struct cb_cause *c = &out->c[out->n++];
    *c = (struct cb_cause){0};
    snprintf(c->host, sizeof c->host, "-");
    snprintf(c->device, sizeof c->device, "-");
    c->rule = "counters-rose-in-burn-in";
    c->source = "error counters read after every interval";
    snprintf(c->text, sizeof c->text, "%d more counters rose, past the %d listed", rs->more,
             (int)(sizeof rs->r / sizeof rs->r[0]));
  }
}

void cb_rises_free(struct cb_rises *rs) {
  free(rs->before);
  rs->before = NULL;
}
