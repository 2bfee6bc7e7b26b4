/* The closest known name to a mistyped word (suggest.h). */
#include "suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define MAXW 64

/* Optimal string alignment distance (Damerau-Levenshtein without
 * repeated edits of one substring), case folded. */
static int distance(const char *a, const char *b) {
  int n = (int)strlen(a), m = (int)strlen(b);
  if (n >= MAXW || m >= MAXW)
    return MAXW;
  int d[MAXW + 1][MAXW + 1];
  for (int i = 0; i <= n; i++)
    d[i][0] = i;
  for (int j = 0; j <= m; j++)
    d[0][j] = j;
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= m; j++) {
      int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
      int best = d[i - 1][j - 1] + (ca != cb);
      if (d[i - 1][j] + 1 < best)
        best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best)
        best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

const char *cb_suggest(const char *word, const char *(*name_of)(int), int n) {
  size_t len = strlen(word);
  int limit = len <= 4 ? 1 : len <= 8 ? 2 : 3, best = limit + 1;
  const char *found = NULL;
  for (int i = 0; i < n; i++) {
    const char *name = name_of(i);
    int d = name ? distance(word, name) : MAXW;
    if (d < best)
      best = d, found = name;
  }
  return found;
}

static const char *const *list; /* cb_suggest_in's names, for name_in */
static const char *name_in(int i) {
  return list[i];
}

const char *cb_suggest_in(const char *word, const char *const *names) {
  int n = 0;
  while (names[n])
    n++;
  list = names;
  return cb_suggest(word, name_in, n);
}

const char *cb_suggest_text(const char *suggestion, char *buf, int len) {
  if (!suggestion)
    return "";
  snprintf(buf, (size_t)len, ", did you mean '%s'?", suggestion);
  return buf;
}
