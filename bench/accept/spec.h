/* The acceptance spec: what --accept (and --dry-run) reads from a
 * topology file beside its system, the sections [check NAME], [step NAME],
 * [matrix] and [baseline] (format: topologies/README.md), read here through
 * the topology reader's part (topology/topology.h), which holds the system
 * alone. */
#ifndef CB_SPEC_H
#define CB_SPEC_H

#include <stdint.h>

#include "base/error.h"
#include "topology/topology.h"
#include "tuner/step_check.h"

#define CB_ACCEPT_MAX_CHECKS 32
#define CB_ACCEPT_MAX_STEPS 8

/* What a check compares: bandwidths are better high, times better low. */
enum cb_metric { CB_METRIC_BUSBW, CB_METRIC_ALGBW, CB_METRIC_TIME };
extern const char *const cb_metric_names[];

/* A threshold is absolute, or a fraction of a reference measured at run
 * time on this machine: its memory copy bandwidth ("5% membw"), or the
 * median bandwidth of all pairs in the [matrix] ("40% pairbw"); or a
 * fraction of what the performance model expects of the check on the
 * file's [system] and [tier]s ("80% model", bench/accept/expected.c); or
 * where that share of healthy systems of the run's class measure past the
 * model's figure ("1% healthy": the band's distribution, whose false-alarm
 * chance is the level itself). */
enum cb_reference {
  CB_REF_NONE,
  CB_REF_MEMBW,
  CB_REF_PAIRBW,
  CB_REF_MODEL,
  CB_REF_HEALTHY,
  CB_NREFS
};
extern const char *const cb_reference_names[CB_NREFS];
struct cb_threshold {
  int set;       /* 0: no such level */
  double value;  /* base units (bytes/s or seconds), a fraction of the reference, or
                  * (healthy) a chance */
  int reference; /* enum cb_reference */
  int line;      /* where the file gives it, for messages */
};

/* How a [check] reads its keys that are command-line options (`iters =
 * 20`, `timing = latency`): by the measuring modes' own parser, through
 * the option table's rows that a check takes (modes/cli.c's
 * cb_cli_check_reader), so an option is usable in a check with no parser
 * of its own here. NULL: a check's own keys alone. */
struct cb_settings;
struct cb_check_reader {
  int (*find)(const char *key); /* the option's code for a key ('_' for '-'), or -1 */
  /* the option's value over s, as the command line would set it */
  int (*apply)(int code, const char *value, struct cb_settings *s, struct cb_error *err);
  const char *(*names)(void); /* the keys it takes, for a refusal: "iters, warmup" */
};
#define CB_CHECK_MAX_OPTIONS 8
#define CB_CHECK_MAX_OPTIONS_TEXT "8"
struct cb_check_option {
  int code;
  char key[32]; /* as the file gives it */
  char value[64];
};

struct cb_check {
  char name[CB_TOPO_NAME_MAX]; /* [check NAME] */
  int line;                    /* where the section starts, for messages */
  int op, mem, dtype;          /* indexes into the op, memory and dtype tables */
  const char *backend_name;    /* mpi, nccl, ucx or verbs, built here or not */
  char transport[32];          /* "auto" unless given */
  uint64_t bytes;
  int metric;  /* enum cb_metric */
  int inplace; /* which variant is judged (default out of place) */
  struct cb_threshold warn, fail;
  /* `ceiling = TIER`: the physical limit the figure is judged against too,
   * that tier's bandwidth; under ceiling_fraction of it fails (a whole fleet
   * degraded alike looks normal to a fleet baseline), over it warns. */
  char ceiling[CB_TOPO_NAME_MAX]; /* "" when none */
  int ceiling_tier;               /* its index in tiers[], when ceiling is set */
  double ceiling_fraction;
  /* options the check gives, applied over the run's (cb_check_settings) */
  struct cb_check_option options[CB_CHECK_MAX_OPTIONS];
  int noptions;
  const struct cb_check_reader *reader;
};

/* ceiling_fraction when the file gives none: a healthy link measures well
 * over 0.6 of its nominal rate (nccl-tests: 0.82 of NVLink 4 with Ring, 0.92-0.98
 * of NDR 400 per NIC; topologies/h100-ndr.conf cites the sources), a PCIe link trained a generation
 * down measures 0.5. */
#define CB_CEILING_FRACTION 0.6

/* Outlier rules for the all-pairs matrix (section [matrix]; ClusterKit's
 * defaults when absent: 0.9 of the median bandwidth, 2.1x the best latency). */
struct cb_matrix_rules {
  int set; /* the file has a [matrix] section: --accept runs the matrix */
  uint64_t bytes;
  double bw_fraction, lat_factor;
};

/* [baseline]: judge the checks (and the matrix's pairs and nodes) against a
 * fleet baseline too (--baseline FILE and --repeat N override). */
struct cb_baseline_rules {
  int set;
  char file[CB_TOPO_TEXT_MAX]; /* relative to the topology file's folder */
  double k;                    /* robust z under -k FAILs (default CB_BASELINE_K) */
  long min_runs;               /* fewer figures than this: cannot judge */
  long repeat;                 /* re-measures of a suspect check before it FAILs (-1: default) */
};

/* A topology file read whole: its system, and the checks it should pass. */
struct cb_accept_spec {
  struct cb_topology system;
  struct cb_check checks[CB_ACCEPT_MAX_CHECKS];
  int nchecks;
  struct cb_matrix_rules matrix;
  struct cb_step_check steps[CB_ACCEPT_MAX_STEPS];
  int nsteps;
  struct cb_baseline_rules baseline;
  char renamed[CB_TOPO_TEXT_MAX + 96]; /* an old key's notice ("" none): the caller says it */
  int singles; /* the reader's own: a bit per [matrix] and [baseline] seen */
  const struct cb_check_reader *reader;
};

/* Reads a topology file whole (cb_topology_load's messages and status). */
int cb_accept_spec_load(const char *path, struct cb_accept_spec *s,
                        const struct cb_check_reader *reader, struct cb_error *err);

/* The same from text in memory (tests); `name` stands for the file in messages. */
int cb_accept_spec_parse(const char *text, const char *name, struct cb_accept_spec *s,
                         const struct cb_check_reader *reader, struct cb_error *err);

/* The part that reads acceptance's sections into s, for a reader of the
 * system alone (--predict, --report) that must refuse a bad file as
 * --accept would: cb_topology_load(path, &topo, cb_accept_spec_part(&s,
 * &part, reader), err). s is cleared when the part begins. */
const struct cb_topo_part *cb_accept_spec_part(struct cb_accept_spec *s, struct cb_topo_part *part,
                                               const struct cb_check_reader *reader);

void cb_matrix_rules_defaults(struct cb_matrix_rules *m);
void cb_baseline_rules_defaults(struct cb_baseline_rules *b);

/* A threshold in base units, given the measured references (bytes/s,
 * indexed by enum cb_reference). */
double cb_threshold_value(const struct cb_threshold *th, const double *reference_Bps);

/* The fleet baseline the checks are judged against too: `given`
 * (--baseline), else the file's [baseline] file, relative to the file's
 * folder; repeat >= 0 (--repeat) replaces the file's. It must share an
 * (op, backend, memory, dtype) with the checks, or a pair or node figure
 * with the [matrix], or it is the wrong baseline: CB_USAGE. None given
 * nor in the file: CB_OK, out untouched. */
struct cb_baseline;
int cb_accept_spec_baseline(struct cb_accept_spec *s, const char *given, long repeat,
                            struct cb_baseline *out, struct cb_error *err);

/* Whether any check's threshold is relative to this reference. */
int cb_accept_spec_uses(const struct cb_accept_spec *s, int reference);

#endif
