/* Escaping text from outside for the terminal and JSON (text.h). */
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cb_utf8_len(const unsigned char *s) {
  int n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
          : s[0] >= 0xe0 && s[0] <= 0xef ? 3
          : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                         : 0;
  if (!n)
    return 0;
  unsigned char lo = s[0] == 0xe0   ? 0xa0
                     : s[0] == 0xf0 ? 0x90
                                    : 0x80,
                hi = s[0] == 0xed   ? 0x9f
                     : s[0] == 0xf4 ? 0x8f
                                    : 0xbf;
  if (s[1] < lo || s[1] > hi)
    return 0;
  for (int i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xbf)
      return 0;
  return n;
}

int cb_text_terminal(char *dst, size_t n, const char *src, int keep_lines) {
  size_t o = 0;
  int changed = 0;
  if (!n)
    return 0;
  for (const unsigned char *s = (const unsigned char *)src; *s;) {
    int len = *s < 0x80 ? 1 : cb_utf8_len(s);
    /* C1 controls (U+0080..U+009F) are C2 80..C2 9F in UTF-8 */
    int control = *s < 0x20 || *s == 0x7f || (len == 2 && s[0] == 0xc2 && s[1] < 0xa0);
    if (keep_lines && (*s == '\n' || *s == '\t'))
      control = 0;
    if (len && !control) {
      if (o + (size_t)len >= n)
        break;
      memcpy(dst + o, s, (size_t)len);
      o += (size_t)len;
      s += len;
      continue;
    }
    /* a malformed byte alone, or each byte of a control character */
    int bytes = len ? len : 1;
    if (o + 4 * (size_t)bytes >= n)
      break;
    for (int i = 0; i < bytes; i++, s++)
      o += (size_t)snprintf(dst + o, n - o, "\\x%02x", *s);
    changed = 1;
  }
  dst[o] = '\0';
  return changed;
}

int cb_text_terminal_inplace(char *s, size_t n) {
  char *copy = strdup(s);
  if (!copy) { /* no memory: blank what cannot be shown */
    int changed = 0;
    for (unsigned char *p = (unsigned char *)s; *p; p++)
      if (*p < 0x20 || *p >= 0x7f)
        *p = '?', changed = 1;
    return changed;
  }
  int changed = cb_text_terminal(s, n, copy, 0);
  free(copy);
  return changed;
}

char *cb_text_utf8_dup(const char *src) {
  size_t len = strlen(src);
  char *out = malloc(3 * len + 1), *o = out; /* U+FFFD: 3 bytes for 1 */
  if (!out)
    return NULL;
  for (const unsigned char *s = (const unsigned char *)src; *s;) {
    int n = *s < 0x80 ? 1 : cb_utf8_len(s);
    if (n) {
      memcpy(o, s, (size_t)n);
      o += n;
      s += n;
    } else {
      memcpy(o, "\xef\xbf\xbd", 3);
      o += 3;
      s++;
    }
  }
  *o = '\0';
  return out;
}

#if CB_HAVE_JANSSON
json_t *cb_json_text(const char *s) {
  if (!s)
    return json_null();
  json_t *j = json_string(s);
  if (j)
    return j;
  char *u = cb_text_utf8_dup(s);
  j = u ? json_string(u) : NULL;
  free(u);
  return j;
}
#endif
