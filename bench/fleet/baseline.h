/* Fleet baselines: what healthy runs measured, per series, size, rank and
 * node count (results), per host pair and per node (--matrix runs). Built
 * from --json runs by `collbench --baseline FILE... --out B.json`, read back
 * by --accept, --compare and --report. The file is JSON, "format":
 * "collbench-baseline", "version": 1 (topologies/ACCEPTANCE.md, "Baselines"). */
#ifndef CB_BASELINE_H
#define CB_BASELINE_H

#include <stdint.h>

#include "base/error.h"
#include "base/robust.h"
#include "results/record.h"

#define CB_BASELINE_FORMAT "collbench-baseline"
#define CB_BASELINE_VERSION 1

enum cb_bl_kind { CB_BL_RESULT, CB_BL_PAIR, CB_BL_NODE, CB_BL_NKINDS };
extern const char *const cb_bl_kind_names[];

/* The metrics an entry may hold, with their direction. */
enum cb_bl_metric {
  CB_BLM_TIME,  /* results: time_us (lower is better) */
  CB_BLM_ALGBW, /* results: algbw_GBps */
  CB_BLM_BUSBW, /* results: busbw_GBps */
  CB_BLM_BW,    /* pairs and nodes: bw_GBps */
  CB_BLM_LAT,   /* pairs: lat_us (lower is better) */
  /* nodes: bw_GBps over the run's median pair bandwidth, which a whole run's
   * slow spell (a busy fabric, a busy host) leaves alone */
  CB_BLM_SHARE,
  CB_BL_NMETRICS
};
struct cb_bl_metric_info {
  const char *name, *unit;
  int higher_better;
  double floor; /* the spread never under this share of the median */
};
extern const struct cb_bl_metric_info cb_bl_metrics[CB_BL_NMETRICS];

/* The median of v[0..n) (sorts v); NAN when n is 0. */
double cb_bl_median(double *v, int n);

/* One pair's bandwidth in one run's matrix (its round figure), for the
 * node figures below. */
struct cb_bl_link {
  const char *src, *dst;
  double bw_GBps;
};
/* A node's figure in one run: the slower of its two directions, each the
 * upper median of its pairs' bandwidths that way (received, sent), and that
 * over the run's median pair. So a node fails when most of its pairs one
 * way are slow: a NIC slow one way. The median of all its pairs once judged
 * it, and a NIC slow one way slows exactly half of them: that median sat
 * between slow and healthy and passed or failed by chance (tests/cluster4.t's
 * throttled node). One slow link, or a pair slowed by another in its round,
 * is one of a direction's N-1 pairs: the upper median (of 2: the faster)
 * leaves it to the link verdicts. */
struct cb_bl_node {
  const char *host;
  double in_GBps, out_GBps; /* NAN where it has no such pair */
  double bw_GBps, share;    /* share NAN when the run's median is not > 0 */
};
/* Every host the links name, in order of first mention, into out (room for
 * 2n); returns how many, and the run's median pair in *run. */
int cb_bl_nodes(const struct cb_bl_link *links, int n, struct cb_bl_node *out, double *run);

/* One key and its distributions. Results: op ... nnodes. Pairs: src, dst
 * are host names, "*" for the fleet (every pair pooled); nodes: src is the
 * host ("*": every node), its figure cb_bl_nodes' bw_GBps and share. */
struct cb_bl_entry {
  int kind;
  char op[32], backend[16], mem[16], transport[32], dtype[16], redop[16];
  int inplace;
  uint64_t bytes;
  long nranks, nnodes;
  char src[128], dst[128];
  struct cb_dist d[CB_BL_NMETRICS]; /* n == 0: not measured */
  int *runs, nruns;                 /* indices into the baseline's runs */
  int noisy; /* a one-run figure its run marked noisy (~); not kept in baseline files */
};

struct cb_bl_run {
  char file[512], start_time[64], git_commit[64], hostnames[512];
  long nranks, nnodes;
};

struct cb_baseline {
  char path[512];
  char collbench_version[32];
  struct cb_bl_run *runs;
  int nruns;
  struct cb_bl_entry *entries;
  int nentries;
};

/* Reads --json runs (JSON Lines, any number of runs a file) into a
 * baseline; CB_USAGE naming the file when one cannot be read or when
 * nothing in them is a result or pair. `opt` names the option in messages. */
int cb_baseline_build(const char *opt, const char *const *files, int nfiles, struct cb_baseline *b,
                      struct cb_error *err);

/* Writes b as JSON to path, replacing it whole (checked first: a folder or
 * unwritable path is CB_USAGE and nothing is written). */
int cb_baseline_write(const struct cb_baseline *b, const char *path, struct cb_error *err);

/* Reads a baseline file; CB_USAGE naming the file and what is wrong with it
 * (missing, empty, not JSON, another format, another version). */
int cb_baseline_load(const char *opt, const char *path, struct cb_baseline *b,
                     struct cb_error *err);

/* Whether path holds a baseline (its first non-blank character opens a
 * JSON object with "format" = collbench-baseline); else it is JSON Lines. */
int cb_baseline_sniff(const char *path);

/* The result entry of a measured record (NULL: none). */
const struct cb_bl_entry *cb_baseline_find(const struct cb_baseline *b, const struct cb_record *r);
/* The entry of kind with key fields from `key` (results compare the
 * record fields, pairs and nodes src, dst and bytes). */
const struct cb_bl_entry *cb_baseline_find_entry(const struct cb_baseline *b,
                                                 const struct cb_bl_entry *key);
/* Whether two entries have the same key. */
int cb_bl_same_key(const struct cb_bl_entry *a, const struct cb_bl_entry *b);
/* "allreduce mpi host shm float sum out-of-place 2 ranks 1 node 1 KiB", for messages. */
void cb_bl_describe(const struct cb_bl_entry *e, char *buf, int size);

void cb_baseline_free(struct cb_baseline *b);

/* The `mpi host float` part of the entries, to say what a baseline holds. */
void cb_baseline_summary(const struct cb_baseline *b, char *buf, int size);

#endif
