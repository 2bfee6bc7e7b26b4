/* Slurm's hostlist form for --exclude-out's summary (issue 41). */
#include <string.h>

#include "base/hostlist.h"
#include "tap.h"

static const char *form(const char **v, int n) {
  static char buf[256];
  return cb_hostlist(v, n, buf, sizeof buf);
}

int main(void) {
  const char *a[] = {"n08", "n03", "n07"};
  is_str(form(a, 3), "n[03,07-08]", "a run and a single, zero-padded, sorted");
  const char *b[] = {"gpu1"};
  is_str(form(b, 1), "gpu1", "one name as it is");
  const char *c[] = {"n9", "n10", "n11", "login"};
  is_str(form(c, 4), "login,n9,n[10-11]", "widths kept apart (n9 is not n09)");
  const char *d[] = {"a", "b"};
  is_str(form(d, 2), "a,b", "names without numbers");
  const char *e[] = {"n1", "n1", "n2"};
  is_str(form(e, 3), "n[1-2]", "a repeat dropped");
  const char *f[] = {"rack1-n01", "rack1-n02", "rack2-n01"};
  is_str(form(f, 3), "rack1-n[01-02],rack2-n01", "prefixes with digits of their own");
  char small[8];
  const char *g[] = {"node001", "node003", "node005"};
  cb_hostlist(g, 3, small, sizeof small);
  ok(strlen(small) < sizeof small && strcmp(small + strlen(small) - 3, "...") == 0,
     "cut to fit with '...' (got '%s')", small);
  done_testing();
  return exit_status();
}
