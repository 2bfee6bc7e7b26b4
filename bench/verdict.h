/* A verdict: acceptance's judgement of one check, one link or one node,
 * against a threshold. The engine's records say what was measured; a
 * verdict says whether that is good enough and by what margin. Sinks
 * receive verdicts like records (table line, JSON line, Prometheus gauge,
 * JUnit test case). */
#ifndef CB_VERDICT_H
#define CB_VERDICT_H

#include "record.h"

enum cb_verdict_status { CB_PASS, CB_WARN, CB_FAIL };
extern const char *const cb_verdict_names[]; /* "PASS", "WARN", "FAIL" */

struct cb_verdict {
  const char *name; /* the check's name, "matrix", "node HOST", "link A->B", "stragglers" */
  int line;         /* where the check is defined in its file; 0 if not from a file */
  int status;       /* enum cb_verdict_status */
  const char *unit; /* "GB/s" or "us": the unit of the three figures below */
  double measured;
  double warn, fail; /* thresholds in `unit`; warn is NAN when the check has none */
  /* Headroom over the fail level as a fraction of it: positive passes,
   * negative fails (for times, lower is better, so the sign is turned). */
  double margin;
  char what[256];                 /* what was judged, for people */
  const struct cb_record *record; /* the measurement judged, or NULL */
};

/* Fills status and margin from measured and the thresholds. */
void cb_verdict_judge(struct cb_verdict *v, int lower_is_better);

#endif
