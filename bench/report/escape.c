/* Escaping for the two places strings read from input files reach (escape.h says more). */
#include "escape.h"

#include <stddef.h>

static int is_control(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

void cb_gp_put_string(FILE *f, const char *s) {
  fputc('\'', f);
  for (size_t i = 0; s && s[i] && i < CB_GP_MAX_STRING; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\'')
      fputs("''", f);
    else
      fputc(is_control(c) ? ' ' : c, f);
  }
  fputc('\'', f);
}

void cb_html_put(FILE *f, const char *s) {
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    switch (c) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default: fputc(is_control(c) && c != '\t' && c != '\n' ? ' ' : c, f);
    }
  }
}

void cb_html_cell(FILE *f, const char *s) {
  fputs("<td>", f);
  cb_html_put(f, s); /* NULL: an empty cell */
  fputs("</td>", f);
}
