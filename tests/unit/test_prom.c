/* Prometheus label escaping: a quote or newline in a label value must not
 * end the value or the sample line. */
#include <stdio.h>
#include <stdlib.h>

#include "output/sink.h"
#include "tap.h"

static void check(const char *in, const char *want) {
  char *out = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&out, &len);
  cb_prom_escape(f, in);
  fclose(f);
  is_str(out, want, "escape %s", want);
  free(out);
}

int main(void) {
  check("shm", "shm");
  check("a\"b", "a\\\"b");
  check("back\\slash", "back\\\\slash");
  check("two\nlines", "two\\nlines");
  check("", "");
  done_testing();
  return exit_status();
}
