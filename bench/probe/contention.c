/* The host's own contention per burn-in interval or check (contention.h). */
#include "contention.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* One line of /proc/stat into s; 0 when it was the aggregate cpu line. */
static int stat_line(const char *p, long hz, struct cb_cpu_stat *s) {
  unsigned long long v[10] = {0};
  int n;
  if (strncmp(p, "cpu ", 4) == 0) {
    /* user nice system idle iowait irq softirq steal guest guest_nice;
     * guest time is inside user already (proc(5)) */
    n = sscanf(p + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7]);
    if (n < 4 || hz <= 0)
      return -1;
    double busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]);
    s->busy_s = busy / hz;
    s->steal_s = (double)v[7] / hz;
    s->total_s = (busy + (double)(v[3] + v[4] + v[7])) / hz;
    return 0;
  }
  if (strncmp(p, "cpu", 3) == 0 && p[3] >= '0' && p[3] <= '9')
    s->ncpu++;
  else if (sscanf(p, "procs_running %d", &n) == 1)
    s->running = n;
  return -1;
}

int cb_cpu_stat_parse(const char *text, long hz, struct cb_cpu_stat *s) {
  memset(s, 0, sizeof *s);
  int found = -1;
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (stat_line(p, hz, s) == 0)
      found = 0;
  return found;
}

int cb_cpu_stat_read(FILE *f, long hz, struct cb_cpu_stat *s) {
  memset(s, 0, sizeof *s);
  int found = -1, rest = 0; /* rest: inside a line longer than the buffer */
  char line[512];           /* the lines read are short; intr's, thousands of counts, is not one */
  for (long n = 0; n < CB_CPU_STAT_MAX_LINES && fgets(line, sizeof line, f); n++) {
    int whole = strchr(line, '\n') != NULL;
    if (!rest && stat_line(line, hz, s) == 0)
      found = 0;
    rest = !whole;
  }
  return found;
}

/* What one rank sends rank 0 after each interval. */
struct sample {
  double own_s; /* this rank's CPU time, every thread */
  struct cb_cpu_stat st;
  int ok; /* /proc/stat read */
};

static void read_sample(struct sample *m) {
  memset(m, 0, sizeof *m);
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0)
    m->own_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
  FILE *f = fopen("/proc/stat", "r");
  if (!f)
    return;
  m->ok = cb_cpu_stat_read(f, sysconf(_SC_CLK_TCK), &m->st) == 0;
  fclose(f);
}

/* Every rank's sample, into per-node stat (the node's first rank's) and
 * own time (the node's ranks' sum), on rank 0. */
static int gather(const struct cb_cluster *cl, struct cb_cpu_stat *st, double *own, int *ok,
                  struct cb_error *err) {
  struct sample mine, *all = NULL;
  read_sample(&mine);
  if (cl->rank == 0 && !(all = malloc((size_t)cl->nranks * sizeof *all)))
    return cb_fail(err, CB_RUNTIME, "out of memory for %d ranks' CPU times", cl->nranks);
  MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, cl->comm);
  if (cl->rank != 0)
    return CB_OK;
  for (int i = 0; i < cl->nnodes; i++)
    own[i] = 0, ok[i] = 0;
  for (int r = 0; r < cl->nranks; r++) {
    int node = cl->node_of_rank[r];
    own[node] += all[r].own_s;
    if (!ok[node] && all[r].ok)
      st[node] = all[r].st, ok[node] = 1;
  }
  free(all);
  return CB_OK;
}

int cb_contention_start(const struct cb_cluster *cl, struct cb_contention *c,
                        struct cb_error *err) {
  memset(c, 0, sizeof *c);
  c->nnodes = cl->nnodes;
  c->names = (const char(*)[CB_HOSTNAME_MAX])cl->node_names;
  int *ok = NULL;
  if (cl->rank == 0) {
    c->node = calloc((size_t)cl->nnodes, sizeof *c->node);
    c->own_before = calloc((size_t)cl->nnodes, sizeof *c->own_before);
    c->before = calloc((size_t)cl->nnodes, sizeof *c->before);
    ok = calloc((size_t)cl->nnodes, sizeof *ok);
  }
  int bad = cl->rank == 0 && (!c->node || !c->own_before || !c->before || !ok);
  if (cb_cluster_agree(cl, bad)) {
    free(ok);
    cb_contention_free(c);
    return cb_fail(err, CB_RUNTIME, "out of memory for %d nodes' CPU times", cl->nnodes);
  }
  int rc = gather(cl, c->before, c->own_before, ok, err);
  for (int i = 0; cl->rank == 0 && i < cl->nnodes; i++)
    c->node[i].ranks = cl->ranks_on_node[i], c->node[i].ncpu = c->before[i].ncpu;
  free(ok);
  return rc;
}

void cb_node_load_add(struct cb_node_load *n, int k, double others, double steal, int running) {
  n->intervals++;
  int busy = others >= CB_CONTENTION_OTHERS || steal >= CB_CONTENTION_STEAL;
  if (busy) {
    if (n->busy++ == 0)
      n->first = k;
    n->last = k;
  } else if (others > n->quiet_others) {
    n->quiet_others = others;
  }
  if (others > n->max_others)
    n->max_others = others;
  if (steal > n->max_steal)
    n->max_steal = steal;
  if (running > n->max_running)
    n->max_running = running;
}

int cb_contention_interval(const struct cb_cluster *cl, int k, struct cb_contention *c, char *line,
                           size_t len, struct cb_error *err) {
  line[0] = '\0';
  int n = cl->rank == 0 ? cl->nnodes : 0;
  struct cb_cpu_stat *st = n ? calloc((size_t)n, sizeof *st) : NULL;
  double *own = n ? calloc((size_t)n, sizeof *own) : NULL;
  int *ok = n ? calloc((size_t)n, sizeof *ok) : NULL;
  int bad = n && (!st || !own || !ok);
  if (cb_cluster_agree(cl, bad)) {
    free(st), free(own), free(ok);
    return cb_fail(err, CB_RUNTIME, "out of memory for %d nodes' CPU times", cl->nnodes);
  }
  int rc = gather(cl, st, own, ok, err);
  for (int i = 0; !rc && i < n; i++) {
    double total = st[i].total_s - c->before[i].total_s;
    if (!ok[i] || !(total > 0))
      continue; /* no /proc/stat (not Linux), or no time passed: no figure */
    double busy = st[i].busy_s - c->before[i].busy_s, mine = own[i] - c->own_before[i];
    double others = (busy - mine) / total, steal = (st[i].steal_s - c->before[i].steal_s) / total;
    if (others < 0)
      others = 0; /* the clocks' ticks and rusage's microseconds differ a little */
    struct cb_node_load *nl = &c->node[i];
    cb_node_load_add(nl, k, others, steal, st[i].running);
    int now = others >= CB_CONTENTION_OTHERS || steal >= CB_CONTENTION_STEAL;
    size_t at = strlen(line);
    if (now != nl->was_busy && at + 1 < len)
      snprintf(line + at, len - at,
               now ? "%s%s: other processes took %.0f%% of its %d CPUs (steal %.0f%%), run queue "
                     "%d with %d ranks"
                   : "%s%s: its CPUs free again (other processes %.0f%% of %d, steal %.0f%%), "
                     "run queue %d with %d ranks",
               at ? "; " : "", c->names[i], 100 * others, nl->ncpu, 100 * steal, st[i].running,
               nl->ranks);
    nl->was_busy = now;
    c->before[i] = st[i];
    c->own_before[i] = own[i];
  }
  free(st), free(own), free(ok);
  return rc;
}

void cb_contention_causes(const struct cb_contention *c, struct cb_causes *out) {
  for (int i = 0; c->node && i < c->nnodes && out->n < CB_MAX_CAUSES; i++) {
    const struct cb_node_load *n = &c->node[i];
    if (!n->busy)
      continue;
    struct cb_cause *x = &out->c[out->n++];
    *x = (struct cb_cause){0};
    snprintf(x->host, sizeof x->host, "%s", c->names[i]);
    snprintf(x->device, sizeof x->device, "CPUs");
    x->rule = "host-contention";
    x->load = 1;
    x->source = c->step ? "/proc/stat and the ranks' own CPU time, around every check"
                        : "/proc/stat and the ranks' own CPU time, around every interval";
    char when[64];
    const char *step = c->step ? c->step : "interval";
    if (n->busy == 1)
      snprintf(when, sizeof when, "in %s %d", step, n->first);
    else
      snprintf(when, sizeof when, "in %d %ss, %d to %d", n->busy, step, n->first, n->last);
    snprintf(x->text, sizeof x->text,
             "other processes took up to %.0f%% of its %d CPUs %s of %d (%.0f%% at most in the "
             "others); steal up to %.0f%%; run queue up to %d with %d ranks",
             100 * n->max_others, n->ncpu, when, n->intervals, 100 * n->quiet_others,
             100 * n->max_steal, n->max_running, n->ranks);
  }
}

void cb_contention_free(struct cb_contention *c) {
  free(c->node), free(c->own_before), free(c->before);
  c->node = NULL, c->own_before = NULL, c->before = NULL;
}
