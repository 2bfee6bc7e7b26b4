/* The error of NCCL's cost model as it stands (no calibration), known from
 * published nccl-tests figures by class of system (bench/model/nccl_band.c;
 * the figures: bench/model/PLANNING.md, "Published figures"). Each class's
 * band is a prediction interval: where a new healthy system of the class
 * measures, with stated coverage, checked out of sample by leaving each
 * figure out in turn. --predict puts it around every uncalibrated NCCL
 * time; "80% model" levels state their false-alarm chance from it. */
#ifndef CB_MODEL_NCCL_BAND_H
#define CB_MODEL_NCCL_BAND_H

#include <stddef.h>

#include "nccl_cost.h"

/* One NVSwitch node; NVLink domains of more than 8 GPUs (GB200 NVL72), on
 * one rack or more; nodes across each network (what crosses the network
 * bounds them, whatever joins a node's GPUs: a GH200 pair over RoCE is a
 * RoCE row); one node without NVSwitch (PCIe, NVLink bridges or a mesh). */
enum cb_nc_class {
  CB_NC_CLASS_NODE,
  CB_NC_CLASS_NVL72,
  CB_NC_CLASS_IB,
  CB_NC_CLASS_ROCE,
  CB_NC_CLASS_EFA,
  CB_NC_CLASS_TCPX,
  CB_NC_CLASS_TCP,
  CB_NC_CLASS_OTHER_NET,
  CB_NC_CLASS_NO_NVSWITCH,
  CB_NC_NCLASSES
};

/* One published figure against the model: scripts/nccl-figures.sh's row,
 * less the ones --predict calls unknown (they never carry a band). */
struct cb_nc_figure {
  enum cb_nc_class cls;
  double err; /* predicted / published busbw - 1 */
  int gpus;
  double gib;       /* the size, GiB */
  const char *nccl; /* the NCCL version it ran, "" where the source does not say */
  int floor;        /* a cloud's pass floor (healthy machines measure above it) */
  int degraded;     /* the source says the machine fell short: kept out of the band */
};
extern const struct cb_nc_figure cb_nc_figures[];
extern const int cb_nc_nfigures;

/* A band's coverage: 95% of healthy systems of the class lie inside it,
 * 2.5% under its low end. */
#define CB_NC_COVERAGE 0.95
/* A class with fewer healthy figures than this borrows the spread pooled
 * over all classes (its own would be a guess). */
#define CB_NC_OWN_SPREAD 5

struct cb_nc_band {
  const char *name;
  int figures, floors, degraded; /* healthy figures behind it; of them pass floors; kept out */
  int own;                       /* 1: the class's own spread; 0: the pooled one */
  /* log(measured / predicted busbw) of a new healthy system ~ center + scale * t(df);
   * NaN when the class has no figure */
  double center, scale, df;
  int gpus_lo, gpus_hi;          /* the GPU counts its figures were published at */
  double bytes_lo, bytes_hi;     /* and the sizes */
  const char *nccl_lo, *nccl_hi; /* the NCCL versions they ran, oldest and newest stated */
  int nccl_unstated;
};

/* The band of class cls, leaving figure `skip` out (-1: none). */
void cb_nc_band_of(enum cb_nc_class cls, int skip, struct cb_nc_band *b);
/* The class a row of `nodes` nodes of this hardware falls in. */
enum cb_nc_class cb_nc_class_of(const struct cb_nc_hw *hw, int nodes);
/* The interval of measured / predicted time at CB_NC_COVERAGE; NaN both when
 * the class has no figure. */
void cb_nc_band_ratio(const struct cb_nc_band *b, double *lo, double *hi);
/* The chance that a healthy system of the class measures a busbw under
 * `fraction` of the model's (a bandwidth level's false alarms; a time level
 * at multiple m is fraction 1/m); NaN without figures. */
double cb_nc_band_below(const struct cb_nc_band *b, double fraction);
/* "1 GiB to 16 GiB", the figures' sizes. */
const char *cb_nc_band_sizes(const struct cb_nc_band *b, char *buf, size_t len);
/* "NCCL 2.18 to 2.27.1, 11 of 17 do not say": the versions behind it. */
const char *cb_nc_band_versions(const struct cb_nc_band *b, char *buf, size_t len);
/* Why (op, gpus, bytes) lies beyond the figures behind the band (another
 * op than allreduce, more or fewer GPUs, or a size more than 4x outside theirs);
 * "" when within. */
const char *cb_nc_band_beyond(const struct cb_nc_band *b, int op, int gpus, double bytes, char *buf,
                              size_t len);

/* The bands out of sample: each healthy figure against its class's band
 * made without it, each degraded one against its class's band. */
struct cb_nc_loo {
  int healthy, below, above, unbanded; /* unbanded: the class had no other figure */
  int degraded, degraded_inside;
};
void cb_nc_band_loo(struct cb_nc_loo *o);

#endif
