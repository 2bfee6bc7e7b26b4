/* Bounded reading of input files, for every reader (readbound.h says more). */
#include "readbound.h"

#include <ctype.h>
#include <stdlib.h>

long cb_read_line(FILE *f, char **buf, size_t *cap) {
  size_t len = 0;
  int c = 0;
  while ((c = getc_unlocked(f)) != EOF) {
    if (len == CB_MAX_LINE)
      return CB_READ_LONG;
    if (len + 2 > *cap) {
      size_t want = *cap ? 2 * *cap : 4096;
      char *grown = realloc(*buf, want);
      if (!grown)
        return CB_READ_NOMEM;
      *buf = grown, *cap = want;
    }
    (*buf)[len++] = (char)c;
    if (c == '\n')
      break;
  }
  if (len == 0)
    return CB_READ_EOF;
  (*buf)[len] = '\0';
  return (long)len;
}

int cb_peek_nonspace(FILE *f) {
  int c;
  long n = 0;
  while ((c = getc(f)) != EOF && isspace(c) && ++n < CB_MAX_LINE)
    ;
  if (c != EOF)
    ungetc(c, f);
  return c;
}

#if CB_HAVE_JANSSON
struct bounded {
  FILE *f;
  long total;
  int too_big;
};

static size_t read_some(void *buf, size_t len, void *data) {
  struct bounded *b = data;
  if (b->total >= CB_MAX_DOC) {
    b->too_big = 1;
    return (size_t)-1; /* jansson: an error */
  }
  if (len > (size_t)(CB_MAX_DOC - b->total))
    len = (size_t)(CB_MAX_DOC - b->total);
  size_t n = fread(buf, 1, len, b->f);
  b->total += (long)n;
  return n == 0 && ferror(b->f) ? (size_t)-1 : n;
}

json_t *cb_json_load_bounded(FILE *f, json_error_t *jerr, int *too_big) {
  struct bounded b = {f, 0, 0};
  json_t *j = json_load_callback(read_some, &b, 0, jerr);
  *too_big = b.too_big;
  return j;
}
#endif
