/* Prometheus label escaping: a quote or newline in a label value must not
 * end the value or the sample line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/runinfo.h"
#include "output/sink.h"
#include "runtime/cluster.h"
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

/* issue 56: one sample per check, the worse of two verdicts of one name
 * (two straggling ranks on one host) */
static void one_sample_per_check(void) {
  char path[] = "/tmp/test_prom.XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  struct cb_error err = {0};
  struct cb_sink s;
  struct cb_verdict a = {.name = "straggler n1", .status = CB_WARN};
  struct cb_verdict b = {.name = "straggler n1", .status = CB_FAIL};
  struct cb_verdict c = {.name = "straggler n1", .status = CB_PASS};
  struct cb_summary sum = {0};
  struct cb_cluster cl = {.nranks = 2, .nnodes = 1};
  struct cb_run_info ri = {.version = "v", .git_commit = "g", .cluster = &cl};
  int rc = cb_sink_prom(path, &s, &err) || (s.start && s.start(s.state, &err)) ||
           s.run(s.state, &ri, &err) || s.verdict(s.state, &a, &err) ||
           s.verdict(s.state, &b, &err) || s.verdict(s.state, &c, &err) ||
           s.finish(s.state, &sum, &err);
  if (s.close)
    s.close(s.state, &err);
  ok(rc == 0, "the prom sink takes three verdicts of one name (%s)", err.msg);
  FILE *f = fopen(path, "r");
  char line[256];
  int n = 0, worse = 0;
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, "collbench_acceptance_verdict{check=\"straggler n1\"}", 50) == 0)
      n++, worse = strstr(line, "} 2") != NULL;
  if (f)
    fclose(f);
  unlink(path);
  ok(n == 1 && worse, "one sample for the check, the worse status (FAIL, 2): %d lines", n);
}

int main(void) {
  one_sample_per_check();
  check("shm", "shm");
  check("a\"b", "a\\\"b");
  check("back\\slash", "back\\\\slash");
  check("two\nlines", "two\\nlines");
  check("", "");
  done_testing();
  return exit_status();
}
