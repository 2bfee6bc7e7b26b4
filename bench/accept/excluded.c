/* --exclude-out FILE (excluded.h). */
#include "excluded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hostlist.h"
#include "output/replace.h"

int cb_excluded_add(struct cb_excluded *x, const char *host, const char *why) {
  for (int i = 0; i < x->n; i++)
    if (strcmp(x->e[i].host, host) == 0)
      return 0;
  if (x->n == x->cap) {
    int cap = x->cap ? 2 * x->cap : 8;
    struct cb_excluded_host *more = realloc(x->e, (size_t)cap * sizeof *more);
    if (!more)
      return -1;
    x->e = more, x->cap = cap;
  }
  x->e[x->n].host = host;
  snprintf(x->e[x->n].why, sizeof x->e[x->n].why, "%s", why);
  /* one line a host: a reason never breaks it */
  for (char *c = x->e[x->n].why; *c; c++)
    if (*c == '\n' || *c == '\t')
      *c = ' ';
  x->n++;
  return 0;
}

int cb_excluded_from(struct cb_excluded *x, const struct cb_accept_result *res) {
  for (int i = 0; res->probe && res->hosts && i < res->probe->nnodes; i++) {
    const struct cb_host_outcome *h = &res->hosts[i];
    if (!h->failed)
      continue;
    char why[sizeof x->e->why];
    snprintf(why, sizeof why, "FAIL %.80s%s%.110s", h->checks, h->cause[0] ? ": " : "", h->cause);
    if (cb_excluded_add(x, res->probe->nodes[i].hostname, why))
      return -1;
  }
  return 0;
}

const char *cb_excluded_hostlist(const struct cb_excluded *x, char *buf, size_t len) {
  const char **names = malloc((size_t)(x->n ? x->n : 1) * sizeof *names);
  for (int i = 0; names && i < x->n; i++)
    names[i] = x->e[i].host;
  cb_hostlist(names, names ? x->n : 0, buf, len);
  free(names);
  return buf;
}

static int write_lines(void *state, FILE *f) {
  const struct cb_excluded *x = state;
  for (int i = 0; i < x->n; i++)
    fprintf(f, "%s\t%s\n", x->e[i].host, x->e[i].why);
  return ferror(f);
}

int cb_excluded_write(const struct cb_excluded *x, const char *path, struct cb_error *err) {
  return cb_replace_write(path, "--exclude-out", write_lines, (void *)x, err);
}

void cb_excluded_free(struct cb_excluded *x) {
  free(x->e);
  *x = (struct cb_excluded){0};
}
