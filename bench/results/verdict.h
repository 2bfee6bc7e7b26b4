/* A verdict: acceptance's judgement of one check, one link or one node,
 * against a threshold. The engine's records say what was measured; a
 * verdict says whether that is good enough and by what margin. Sinks
 * receive verdicts like records (table line, JSON line, Prometheus gauge,
 * JUnit test case).
 *
 * Every judgement of a measured figure against a level goes through
 * cb_verdict_interval: a figure is an interval (its 95% CI), and only an
 * interval wholly on one side of the level settles it. One that contains
 * the level is INCONCLUSIVE: the data cannot tell pass from fail. */
#ifndef CB_VERDICT_H
#define CB_VERDICT_H

#include "record.h"

/* Values are the Prometheus gauge's (0 pass, 1 warn, 2 fail, 3 inconclusive). */
enum cb_verdict_status { CB_PASS, CB_WARN, CB_FAIL, CB_INCONCLUSIVE };
extern const char *const cb_verdict_names[]; /* "PASS", "WARN", "FAIL", "INCONCLUSIVE" */
/* How bad a status is: PASS 0, WARN 1, INCONCLUSIVE 2, FAIL 3 (anything
 * else counts as INCONCLUSIVE). Pure. */
int cb_verdict_severity(int status);

/* The three-way rule, the one every target is judged by (acceptance's
 * levels, fleet baselines, ceilings, [step] limits, --tune's overhead
 * target): CB_PASS when all of [lo, hi] is on the good side of `level`
 * (at the level itself counts as good: "at least 460 GB/s"), CB_FAIL when
 * all of it is on the bad side, else CB_INCONCLUSIVE. lower_is_better:
 * times and overheads. NaN anywhere is CB_INCONCLUSIVE. Pure. */
int cb_verdict_interval(double lo, double hi, double level, int lower_is_better);

/* Why a verdict may have come out as it did: the likely causes acceptance
 * found in the evidence (bench/accept/causes.c), most likely first. */
#define CB_MAX_CAUSES 6
struct cb_cause {
  char host[64];
  char device[32]; /* "mlx5_0", "GPU 0000:1b:00.0", "0000:02:00.0" */
  const char *rule, *source;
  char text[224];
  /* 1: explains the figure but lays no FAIL to its host (another job's
   * load: the node is not faulty, and it stays out of --exclude-out) */
  int load;
};
struct cb_causes {
  int n;
  struct cb_cause c[CB_MAX_CAUSES];
};
/* Appends in's causes (NULL: none) to out's, as many as fit. */
void cb_causes_append(struct cb_causes *out, const struct cb_causes *in);

/* What the performance model expects of a check whose level is a fraction
 * of it ("80% model"; bench/accept/expected.c), in the verdict's unit. */
struct cb_expected {
  double value;
  double lo, hi; /* the band a healthy system measures in; NaN: no figure states it */
  /* the chance that a healthy system measures past the fail and the warn
   * level (the band's distribution); NaN: no band, or a level known only
   * at run time */
  double alarm_fail, alarm_warn;
  /* the band's distribution: log(measured / model busbw) of a healthy system
   * ~ center + scale * t(df), for "1% healthy" levels; NaN: no band */
  double center, scale, df;
  char pick[32];    /* NCCL's algorithm/protocol, or the alpha-beta model's algorithm */
  char source[96];  /* which model */
  char band[256];   /* what backs the band, or why there is none */
  char beyond[160]; /* why the band's figures do not cover this check ("" when they do) */
  char newer[200];  /* where NCCL after the version the model follows estimates otherwise */
  int ranks, nodes; /* the scale it was computed at */
};

/* What a bandwidth check's shortfall costs a training step at scale
 * (bench/accept/cost.c): the model's step with the expected figure and
 * with the measured one. */
struct cb_cost {
  int gpus;
  char workload[32];
  double factor;      /* measured / expected */
  double step_s[2];   /* [0] with the expected figure, [1] with the measured */
  double overhead[2]; /* communication overhead, exposed / step */
  char why[200];      /* not priced: why ("" when priced) */
};
/* The step's growth, step_s[1] / step_s[0] - 1 (NaN when not priced). */
double cb_cost_step_growth(const struct cb_cost *c);
/* "at 1024 GPUs gpt2-124m step +18% (overhead 12% -> 27%)", or "not
 * priced: WHY". Returns buf. */
const char *cb_cost_text(const struct cb_cost *c, char *buf, size_t len);

struct cb_verdict {
  const char *name; /* the check's name, "matrix", "node HOST", "link A->B", "stragglers" */
  int line;         /* where the check is defined in its file; 0 if not from a file */
  int status;       /* enum cb_verdict_status */
  const char *unit; /* "GB/s" or "us": the unit of the three figures below */
  double measured;
  double warn, fail; /* thresholds in `unit`; warn is NAN when the check has none */
  /* The measured figure's 95% interval in `unit`, when `interval` is set
   * (cb_verdict_set_interval); else the figure is judged as a point. */
  int interval;
  double lo, hi;
  /* Headroom over the fail level as a fraction of it: positive passes,
   * negative fails (for times, lower is better, so the sign is turned). */
  double margin;
  char what[512];                 /* what was judged, for people */
  const struct cb_record *record; /* the measurement judged, or NULL */
  /* the likely causes of a verdict that did not pass; NULL when none
   * were sought (a PASS, or a run without evidence) */
  const struct cb_causes *causes;
  int window; /* acceptance: 1 + the check whose counters window it was measured in; 0 none */
  /* a burn-in stopped by a signal: judged over the intervals done; the
   * verdicts of its --resume replace it */
  int partial;
  /* a WARN that judged nothing: the data could set no level (a baseline of
   * too few runs, or too wide a spread); the answer says how many */
  int unjudged;
  const struct cb_expected *expected; /* a model level's figure; NULL for other levels */
  const struct cb_cost *cost;         /* a bandwidth FAIL or WARN priced; NULL: none */
};

/* Appends "FAIL name" or "INCONCLUSIVE name" to the comma-separated list
 * `names` (len bytes, cut when full) when v did not pass. Pure. */
void cb_verdict_name_not_passed(char *names, size_t len, const struct cb_verdict *v);

/* Sets the interval from the figure's own 95% CI. */
void cb_verdict_set_interval(struct cb_verdict *v, double lo, double hi);

/* Fills status and margin from measured, its interval and the thresholds:
 * FAIL or INCONCLUSIVE against the fail level as cb_verdict_interval says;
 * past it, WARN unless the whole interval also clears the warn level. An
 * INCONCLUSIVE verdict gets, appended to `what`, the interval, the level
 * it contains and `settle` (what would settle it). */
void cb_verdict_judge(struct cb_verdict *v, int lower_is_better, const char *settle);

/* The interval of a record's figure from its time's 95% CI: time_us +-
 * ci95_us, and bandwidths (inversely proportional to time) from the same
 * ends. is_time: the figure is a time. Leaves v without an interval when
 * the record has none (ci95_us 0 or NaN). */
void cb_verdict_record_interval(struct cb_verdict *v, const struct cb_record *rec, int is_time);

/* What settles a check measured by the engine: more samples or a quieter
 * machine. */
#define CB_SETTLE_ENGINE                                                                           \
  "more iterations (-n, or a smaller --precision) or a quieter machine would settle it"

#endif
