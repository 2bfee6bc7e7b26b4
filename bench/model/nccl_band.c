/* The uncalibrated NCCL model's error by class of system (nccl_band.h).
 * The numbers are scripts/nccl-figures.sh's class table (predicted busbw /
 * published - 1 over the figures of reports/PLANNING.md's table);
 * tests/nccl_model.t fails when they and the script's differ, so a change
 * to the model or the figures must change them too. */
#include <math.h>
#include <stdio.h>

#include "base/units.h"
#include "nccl_band.h"

#define GiB 1073741824.0

const struct cb_nc_band cb_nc_bands[CB_NC_NCLASSES] = {
    /* 8x H100 (NVLS, Ring), 6x and 4x H100, 8x H200, 8x A100 (two) */
    [CB_NC_CLASS_NODE] = {"one NVSwitch node", 9, 3, -0.1828, 0.1915, 4, 8, 1 * GiB, 16 * GiB},
    /* nccl#1221: 2 and 4 nodes of 8 H100 over RoCE, NCCL 2.19.3 */
    [CB_NC_CLASS_NODES] = {"NVSwitch nodes across a network", 3, 0, 0.0714, 0.1891, 16, 32, 8 * GiB,
                           8 * GiB},
    /* no published figure found for GPUs joined by PCIe or direct NVLink */
    [CB_NC_CLASS_NO_NVSWITCH] = {"without NVSwitch", 0, 0, NAN, NAN, 0, 0, 0, 0},
};

/* A size more than this factor outside the figures' is beyond them (as a
 * fit's rows are: bench/model/commands.c). */
#define SIZE_FACTOR 4.0

enum cb_nc_class cb_nc_class_of(const struct cb_nc_hw *hw, int nodes) {
  if (!hw->nvswitch)
    return CB_NC_CLASS_NO_NVSWITCH;
  return nodes > 1 ? CB_NC_CLASS_NODES : CB_NC_CLASS_NODE;
}

void cb_nc_band_ratio(const struct cb_nc_band *b, double *lo, double *hi) {
  /* measured / predicted time = predicted busbw / measured busbw = 1 + err */
  *lo = b->figures ? 1 + fmin(0, b->err_lo) : NAN;
  *hi = b->figures ? 1 + fmax(0, b->err_hi) : NAN;
}

const char *cb_nc_band_sizes(const struct cb_nc_band *b, char *buf, size_t len) {
  char lo[32], hi[32];
  cb_format_size((uint64_t)b->bytes_lo, lo, sizeof lo);
  if (b->bytes_lo == b->bytes_hi)
    snprintf(buf, len, "%s", lo);
  else
    snprintf(buf, len, "%s to %s", lo, cb_format_size((uint64_t)b->bytes_hi, hi, sizeof hi));
  return buf;
}

const char *cb_nc_band_beyond(const struct cb_nc_band *b, int op, int gpus, double bytes, char *buf,
                              size_t len) {
  char sizes[64];
  size_t at = 0;
  buf[0] = '\0';
  if (!b->figures)
    return buf;
  if (op != CB_MOP_ALLREDUCE)
    at += snprintf(buf, len, "%s (figures: allreduce)", cb_mop_names[op]);
  if ((gpus > b->gpus_hi || gpus < b->gpus_lo) && at < len)
    at += snprintf(buf + at, len - at, "%s%d GPUs (figures: %d-%d)", at ? ", " : "", gpus,
                   b->gpus_lo, b->gpus_hi);
  if ((bytes > b->bytes_hi * SIZE_FACTOR || bytes < b->bytes_lo / SIZE_FACTOR) && at < len)
    snprintf(buf + at, len - at, "%ssize more than %gx outside the figures' %s", at ? ", " : "",
             SIZE_FACTOR, cb_nc_band_sizes(b, sizes, sizeof sizes));
  return buf;
}
