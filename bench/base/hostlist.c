/* Slurm's hostlist form (hostlist.h). */
#include "hostlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name split into its prefix and numeric suffix (width 0: none). */
struct split {
  const char *name;
  size_t plen;
  int width;
  unsigned long num;
};

static struct split split_of(const char *s) {
  struct split p = {s, strlen(s), 0, 0};
  while (p.plen > 0 && s[p.plen - 1] >= '0' && s[p.plen - 1] <= '9' && p.width < 18)
    p.plen--, p.width++;
  if (p.width)
    p.num = strtoul(s + p.plen, NULL, 10);
  return p;
}

static int by_prefix_num(const void *a, const void *b) {
  struct split x = split_of(*(const char *const *)a), y = split_of(*(const char *const *)b);
  size_t n = x.plen < y.plen ? x.plen : y.plen;
  int c = strncmp(x.name, y.name, n);
  if (c || x.plen != y.plen)
    return c ? c : (x.plen > y.plen) - (x.plen < y.plen);
  if (x.width != y.width)
    return x.width - y.width;
  return (x.num > y.num) - (x.num < y.num);
}

static int same_group(struct split a, struct split b) {
  return a.width && b.width && a.plen == b.plen && a.width == b.width &&
         strncmp(a.name, b.name, a.plen) == 0;
}

char *cb_hostlist(const char **names, int n, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = '\0';
  qsort(names, (size_t)n, sizeof *names, by_prefix_num);
#define PUT(...)                                                                                   \
  do {                                                                                             \
    if (at < len)                                                                                  \
      at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__);                                     \
  } while (0)
  for (int i = 0; i < n;) {
    struct split g = split_of(names[i]);
    int j = i + 1;
    while (j < n && same_group(g, split_of(names[j])))
      j++;
    if (i && at < len)
      PUT(",");
    if (j - i == 1 && !(i + 1 < n && strcmp(names[i], names[i + 1]) == 0)) {
      PUT("%s", names[i]);
      i = j;
      continue;
    }
    PUT("%.*s[", (int)g.plen, g.name);
    int first = 1;
    for (int k = i; k < j;) {
      unsigned long lo = split_of(names[k]).num, hi = lo;
      int m = k + 1;
      while (m < j && split_of(names[m]).num <= hi + 1)
        hi = split_of(names[m]).num > hi ? split_of(names[m]).num : hi, m++;
      PUT("%s%0*lu", first ? "" : ",", g.width, lo);
      if (hi > lo)
        PUT("-%0*lu", g.width, hi);
      first = 0;
      k = m;
    }
    PUT("]");
    i = j;
  }
#undef PUT
  if (at >= len && len > 4)
    memcpy(buf + len - 4, "...", 4);
  return buf;
}
