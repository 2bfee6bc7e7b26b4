/* The escaping every input string passes through on its way into a gnuplot
 * script or index.html (bench/report/escape.c). */
#include <stdlib.h>

#include "report/escape.h"
#include "tap.h"

/* What f wrote for s, in a static buffer. */
static const char *render(void (*put)(FILE *, const char *), const char *s) {
  static char out[1024];
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  put(f, s);
  fclose(f);
  snprintf(out, sizeof out, "%s", buf);
  free(buf);
  return out;
}

int main(void) {
  plan(12);
  is_str(render(cb_gp_put_string, "mpi"), "'mpi'", "gnuplot: plain word quoted");
  is_str(render(cb_gp_put_string, "it's"), "'it''s'", "gnuplot: quote doubled");
  is_str(render(cb_gp_put_string, "''"), "''''''", "gnuplot: two quotes");
  is_str(render(cb_gp_put_string, "`rm x` system(\"y\") @m \\"), "'`rm x` system(\"y\") @m \\'",
         "gnuplot: backquote, system, macro, backslash stay literal inside single quotes");
  is_str(render(cb_gp_put_string, "a\nb\rc\td\x7f"), "'a b c d '",
         "gnuplot: control characters become spaces");
  is_str(render(cb_gp_put_string, NULL), "''", "gnuplot: NULL is the empty string");
  char long_in[400];
  memset(long_in, '\'', sizeof long_in - 1);
  long_in[sizeof long_in - 1] = '\0';
  is_long((long)strlen(render(cb_gp_put_string, long_in)), 2 + 2 * CB_GP_MAX_STRING,
          "gnuplot: long strings cut to CB_GP_MAX_STRING characters, quotes kept paired");
  is_str(render(cb_html_put, "a&b<c>d\"e'f"), "a&amp;b&lt;c&gt;d&quot;e&#39;f",
         "html: the five special characters");
  is_str(render(cb_html_put, "<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;",
         "html: no tag survives");
  is_str(render(cb_html_put, "a\x01\x1b[31mb\tc\n"), "a  [31mb\tc\n",
         "html: control characters but tab and newline become spaces");
  is_str(render(cb_html_put, "h\xc3\xa9"), "h\xc3\xa9", "html: UTF-8 passes through");
  is_str(render(cb_html_put, NULL), "", "html: NULL writes nothing");
  return exit_status();
}
