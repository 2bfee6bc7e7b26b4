/* The uncalibrated NCCL model's error by class of system (nccl_band.h).
 * The numbers are scripts/nccl-figures.sh's class table (predicted busbw /
 * published - 1 over the figures of bench/model/PLANNING.md's table);
 * tests/nccl_model.t fails when they and the script's differ, so a change
 * to the model or the figures must change them too. */
#include <math.h>
#include <stdio.h>

#include "base/units.h"
#include "nccl_band.h"

#define GiB 1073741824.0

const struct cb_nc_band cb_nc_bands[CB_NC_NCLASSES] = {
    /* 8x H100 (NVLS, Ring, Azure's), 6x and 4x H100, 8x H200 (three), 8x B200, one GB200 host,
     * 8x A100 (five) */
    [CB_NC_CLASS_NODE] = {"one NVSwitch node", 17, 3, -0.183, 0.191, 4, 8, 1 * GiB, 16 * GiB},
    /* CoreWeave's GB200 NVL72, NVLS and CollNet off: 1, 2 and 20 racks */
    [CB_NC_CLASS_NVL72] = {"NVLink domains (NVL72)", 3, 0, -0.155, 0.476, 72, 1440, 8 * GiB,
                           16 * GiB},
    /* 2 and 4 nodes of 8 H100 (three sources), 8 with SHARP, 2x A100 (three), 2x B200 */
    [CB_NC_CLASS_IB] = {"NVSwitch nodes over InfiniBand", 8, 0, -0.291, 0.114, 16, 64, 2 * GiB,
                        8 * GiB},
    /* nccl#1221 (3), nccl#1368, OCI's A100, GCP A4's B200 */
    [CB_NC_CLASS_ROCE] = {"NVSwitch nodes over RoCE", 6, 0, -0.274, 0.189, 16, 40, 1 * GiB,
                          8 * GiB},
    /* AWS p5 and p4de, 2 nodes each */
    [CB_NC_CLASS_EFA] = {"NVSwitch nodes over EFA", 2, 0, -0.053, 0.060, 16, 16, 2 * GiB, 16 * GiB},
    /* GCP A3 Mega, 2 nodes (a fork's output) */
    [CB_NC_CLASS_TCPX] = {"NVSwitch nodes over GPUDirect-TCPX", 1, 0, 0.359, 0.359, 16, 16, 8 * GiB,
                          8 * GiB},
    /* no published figure found */
    [CB_NC_CLASS_TCP] = {"NVSwitch nodes over TCP", 0, 0, NAN, NAN, 0, 0, 0, 0},
    [CB_NC_CLASS_OTHER_NET] = {"NVSwitch nodes over another network", 0, 0, NAN, NAN, 0, 0, 0, 0},
    /* H100 PCIe and NVL pairs, A100 bridged pairs (two), 4x RTX 4090, RTX PRO 6000 on PCIe
     * Gen5 (three), 8x V100 (three); not the rows --predict calls unknown (RTX 5090s, GPUs
     * through the CPU), which get no band */
    [CB_NC_CLASS_NO_NVSWITCH] = {"without NVSwitch", 11, 3, -0.121, 1.067, 2, 8, GiB / 32,
                                 16 * GiB},
};

/* A size more than this factor outside the figures' is beyond them (as a
 * fit's rows are: bench/model/commands.c). */
#define SIZE_FACTOR 4.0

enum cb_nc_class cb_nc_class_of(const struct cb_nc_hw *hw, int nodes) {
  static const enum cb_nc_class by_fabric[] = {
      [CB_NC_FABRIC_OTHER] = CB_NC_CLASS_OTHER_NET, [CB_NC_FABRIC_IB] = CB_NC_CLASS_IB,
      [CB_NC_FABRIC_ROCE] = CB_NC_CLASS_ROCE,       [CB_NC_FABRIC_EFA] = CB_NC_CLASS_EFA,
      [CB_NC_FABRIC_TCPX] = CB_NC_CLASS_TCPX,       [CB_NC_FABRIC_TCP] = CB_NC_CLASS_TCP};
  if (!hw->nvswitch)
    return CB_NC_CLASS_NO_NVSWITCH;
  if (hw->gpus_per_node > 8) /* an NVLink domain: NVL72 racks, one or more */
    return CB_NC_CLASS_NVL72;
  return nodes > 1 ? by_fabric[hw->fabric] : CB_NC_CLASS_NODE;
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
