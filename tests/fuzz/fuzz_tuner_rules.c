/* libFuzzer harness for the rules reader of collbench's NCCL tuner plugin
 * (tuner/plugin/rules.c, seeds in tests/fuzz/corpus/tuner_rules). The
 * plugin links nothing of collbench's, so its reader is compiled in here
 * directly. Whatever the file, a load either fails with a message or gives
 * rules that keep the reader's promises, and matching them is safe at every
 * rule's boundaries. */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tuner/plugin/rules.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct cbt_rules r;
  char why[512] = "";
  if (cbt_rules_load(fuzz_file(data, size), &r, why, sizeof why)) {
    if (r.n != 0 || r.rule || !why[0] || strlen(why) >= sizeof why - 1 || strchr(why, '\n'))
      abort(); /* a refusal: no rules, one line saying why */
    return 0;
  }
  if (r.n > CBT_RULES_MAX)
    abort();
  for (int i = 0; i < r.n; i++) {
    const struct cbt_rule *x = &r.rule[i];
    if (x->coll < 0 || x->coll > 4 || x->algo < 0 || x->algo > 6 || x->proto < 0 || x->proto > 2 ||
        x->min_bytes > x->max_bytes || x->channels == 0 || x->channels > CBT_MAX_CHANNELS ||
        x->reg_buff < -1 || x->reg_buff > 1 || x->line < 2 || isinf(x->margin_pct))
      abort();
    size_t nranks = x->nranks > 0 ? (size_t)x->nranks : 8,
           nnodes = x->nnodes > 0 ? (size_t)x->nnodes : 1;
    int ops = x->pipe_ops > 0 ? x->pipe_ops : 1, reg = x->reg_buff > 0;
    /* a rule matches its own ends unless an earlier rule takes them */
    const struct cbt_rule *lo =
        cbt_rules_match(&r, x->coll, x->min_bytes, nranks, nnodes, ops, reg);
    const struct cbt_rule *hi =
        cbt_rules_match(&r, x->coll, x->max_bytes, nranks, nnodes, ops, reg);
    if (!lo || lo > x || !hi || hi > x)
      abort();
    if (x->max_bytes < UINT64_MAX) /* past the end: never this rule's */
      if (cbt_rules_match(&r, x->coll, x->max_bytes + 1, nranks, nnodes, ops, reg) == x)
        abort();
  }
  cbt_rules_free(&r);
  return 0;
}
