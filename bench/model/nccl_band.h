/* The error of NCCL's cost model as it stands (no calibration), known from
 * published nccl-tests figures by class of system (bench/model/nccl_band.c;
 * the figures: bench/model/PLANNING.md, "Published figures"). --predict puts it
 * around every uncalibrated NCCL time as that time's interval. */
#ifndef CB_MODEL_NCCL_BAND_H
#define CB_MODEL_NCCL_BAND_H

#include <stddef.h>

#include "nccl_cost.h"

/* One NVSwitch node; NVLink domains of more than 8 GPUs (GB200 NVL72), on
 * one rack or more; NVSwitch nodes across each network; nodes without
 * NVSwitch (PCIe, NVLink bridges or a mesh). */
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

struct cb_nc_band {
  const char *name;
  int figures, floors;       /* published figures behind it; how many are pass floors */
  double err_lo, err_hi;     /* predicted / published busbw - 1, least and most */
  int gpus_lo, gpus_hi;      /* the GPU counts they were published at */
  double bytes_lo, bytes_hi; /* and the sizes */
};

extern const struct cb_nc_band cb_nc_bands[CB_NC_NCLASSES];

/* The class a row of `nodes` nodes of this hardware falls in. */
enum cb_nc_class cb_nc_class_of(const struct cb_nc_hw *hw, int nodes);
/* The interval of measured / predicted time: the band's error range widened
 * to hold 1 (the model's own figure); NaN both when the class has no figure. */
void cb_nc_band_ratio(const struct cb_nc_band *b, double *lo, double *hi);
/* "1 GiB to 16 GiB", the figures' sizes. */
const char *cb_nc_band_sizes(const struct cb_nc_band *b, char *buf, size_t len);
/* Why (op, gpus, bytes) lies beyond the figures behind the band (another
 * op than allreduce, more or fewer GPUs, or a size more than 4x outside theirs);
 * "" when within. */
const char *cb_nc_band_beyond(const struct cb_nc_band *b, int op, int gpus, double bytes, char *buf,
                              size_t len);

#endif
