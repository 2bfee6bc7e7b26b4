/* libFuzzer harness for --resume --duration's reader (bench/burnin/
 * resume.c, issue 56): a burn-in's --json file after its run record (the
 * harness writes that line, for its own cluster and settings, so every
 * input gets past it; seeds: tests/fuzz/corpus/resume, a real burn-in's
 * lines). What it accepts must hold together: intervals from 1 to the
 * last, a point per record at most, every case with a point. */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "burnin/resume.h"
#include "config.h"
#include "output/sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct cb_settings s; /* zero: the configuration both sides share */
  static char names[1][CB_HOSTNAME_MAX] = {"fuzz"};
  static int node_of_rank[2], ranks_on_node[1] = {2};
  struct cb_cluster cl = {.rank = 0,
                          .nranks = 2,
                          .nnodes = 1,
                          .node_of_rank = node_of_rank,
                          .node_names = names,
                          .ranks_on_node = ranks_on_node};
  json_t *cfg = cb_burnin_config_json(&s);
  json_t *run = json_pack("{s:s, s:s, s:[s], s:i, s:o}", "type", "run", "collbench_version",
                          CB_VERSION, "hostnames", "fuzz", "nranks", 2, "burnin", cfg);
  char *head = json_dumps(run, JSON_COMPACT);
  json_decref(run);
  size_t hl = strlen(head);
  uint8_t *file = malloc(hl + 1 + size);
  memcpy(file, head, hl);
  file[hl] = '\n';
  memcpy(file + hl + 1, data, size);
  free(head);
  struct cb_burnin_prior p;
  struct cb_error err = {0};
  int rc = cb_burnin_resume_parse(&cl, &s, fuzz_file(file, hl + 1 + size), &p, &err);
  free(file);
  if (rc == CB_OK) {
    long points = 0;
    if (p.last_interval < 0 || p.last_interval >= CB_BURNIN_MAX_INTERVAL)
      abort();
    for (int i = 0; i < p.store.n; i++) {
      if (p.store.s[i].n < 1)
        abort();
      for (int k = 0; k < p.store.s[i].n; k++) {
        int iv = p.store.s[i].p[k].interval;
        if (iv < 1 || iv > p.last_interval || !(p.store.s[i].p[k].t >= 0))
          abort();
        points++;
      }
    }
    if (points > p.records)
      abort();
  }
  cb_burnin_resume_free(&p);
  return 0;
}
