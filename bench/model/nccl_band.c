/* The uncalibrated NCCL model's error by class of system (nccl_band.h).
 * The figures below are scripts/nccl-figures.sh --c (predicted busbw /
 * published - 1 over bench/model/PLANNING.md's table); tests/nccl_model.t
 * fails when they and the script's differ, so a change to the model or the
 * figures must change them too. Each band is computed from them here, the
 * same way for --predict, for "80% model" levels and for the out-of-sample
 * check, so what PLANNING.md states is what runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/units.h"
#include "nccl_band.h"

#define GiB 1073741824.0

static const char *const names[CB_NC_NCLASSES] = {
    [CB_NC_CLASS_NODE] = "one NVSwitch node",
    [CB_NC_CLASS_NVL72] = "NVLink domains (NVL72)",
    [CB_NC_CLASS_IB] = "nodes over InfiniBand",
    [CB_NC_CLASS_ROCE] = "nodes over RoCE",
    [CB_NC_CLASS_EFA] = "nodes over EFA",
    [CB_NC_CLASS_TCPX] = "nodes over GPUDirect-TCPX",
    [CB_NC_CLASS_TCP] = "nodes over TCP",
    [CB_NC_CLASS_OTHER_NET] = "nodes over another network",
    [CB_NC_CLASS_NO_NVSWITCH] = "one node without NVSwitch",
};

#define N CB_NC_CLASS_NODE
#define L CB_NC_CLASS_NVL72
#define IB CB_NC_CLASS_IB
#define R CB_NC_CLASS_ROCE
#define E CB_NC_CLASS_EFA
#define X CB_NC_CLASS_TCPX
#define P CB_NC_CLASS_NO_NVSWITCH
/* class, error, GPUs, GiB, NCCL, pass floor, degraded */
const struct cb_nc_figure cb_nc_figures[] = {
    // clang-format off
    /* nccl-figures:begin */
    {N, -0.008726, 8, 16, "", 0, 0}, /* 8x H100 SXM, NCCL default */
    {N, -0.027679, 8, 16, "", 0, 0}, /* 8x H100 SXM, NCCL_ALGO=Ring */
    {N, -0.009901, 8, 4, "", 0, 0}, /* 8x H100 SXM, NCCL_ALGO=NVLS */
    {N, -0.182846, 6, 4, "", 0, 0}, /* 6x H100 SXM, NCCL_ALGO=NVLS */
    {N, -0.020650, 4, 4, "", 0, 0}, /* 4x H100 SXM, NCCL_ALGO=Ring */
    {N, 0.034373, 8, 16, "", 1, 0}, /* 8x H100 SXM, NCCL default */
    {N, 0.103971, 8, 16, "", 1, 0}, /* 8x H200 SXM, NCCL default */
    {N, -0.009118, 8, 8, "2.20.5", 0, 0}, /* 8x H200 SXM, NCCL default (in place) */
    {N, 0.000521, 8, 4, "2.20.3", 0, 0}, /* 8x H200 SXM, NCCL default (nccl-tests#272) */
    {N, -0.133568, 8, 8, "2.27.1", 0, 0}, /* 8x B200, NCCL default */
    {N, 0.057729, 4, 8, "2.25.1", 0, 0}, /* 4x GB200, one host of an NVL72 rack, NCCL_ALGO=Ring (in place) */
    {N, 0.050753, 8, 4, "", 1, 0}, /* 8x A100 SXM4, NCCL default */
    {N, 0.191478, 8, 1, "2.18", 0, 0}, /* 8x A100 SXM4, NCCL default */
    {N, 0.030238, 8, 4, "", 0, 0}, /* 8x A100, NCCL default (nccl-tests#175) */
    {N, 0.033559, 8, 8, "", 0, 0}, /* 8x A100 SXM4 (Azure ND A100 v4, in place) */
    {N, -0.007049, 8, 8, "", 0, 0}, /* 8x H100 SXM (Azure ND H100 v5, in place) */
    {N, 0.033743, 8, 10, "2.26.5", 0, 0}, /* 8x A100 SXM4 40GB (OCI BM.GPU4.8) */
    {P, 1.067210, 2, 4, "", 0, 1}, /* 2x H100 PCIe, NVLink bridge */
    {P, 0.153356, 2, 8, "", 0, 0}, /* A100 PCIe bridged in pairs, one pair */
    {P, 0.153601, 2, 16, "", 1, 0}, /* 2x H100 NVL, NVLink bridge (Azure NC80adis H100 v5) */
    {P, 0.243259, 2, 16, "", 1, 0}, /* 2x A100 PCIe, NVLink bridge (Azure NC48ads A100 v4) */
    {P, -0.077509, 4, 1, "", 0, 0}, /* 4x RTX 4090, PCIe Gen4, P2P on */
    {P, 0.166569, 8, 2, "", 0, 0}, /* 8x RTX PRO 6000 Blackwell, PCIe Gen5, 3 switches, NCCL_MIN_NCHANNELS=8 */
    {P, 0.116510, 8, 0.03125, "", 0, 0}, /* 8x RTX PRO 6000 Blackwell, PCIe Gen5, 4 switches, one CPU */
    {P, 0.173691, 4, 0.03125, "", 0, 0}, /* 4x RTX PRO 6000 Blackwell Server, two PCIe Gen5 switches and NODE between them, NCCL_P2P_LEVEL=SYS */
    {P, -0.077336, 8, 8, "", 0, 0}, /* 8x V100, NVLink hybrid cube mesh (DGX-1) */
    {P, -0.120791, 8, 1, "", 0, 0}, /* 8x V100 SXM2, NVLink hybrid cube mesh (OCI BM.GPU3.8) */
    {P, 0.090422, 8, 8, "", 1, 0}, /* 8x V100 SXM2, NVLink hybrid cube mesh (Azure ND40rs v2) */
    {L, -0.155357, 72, 8, "2.26.2", 0, 0}, /* 72x GB200, one NVL72 rack, NVLS off */
    {L, -0.134803, 144, 16, "2.26.2", 0, 0}, /* 2x NVL72 racks over IB, NVLS and CollNet off */
    {L, 0.476383, 1440, 16, "2.26.2", 0, 0}, /* 20x NVL72 racks over IB, NVLS and CollNet off */
    {R, 0.071437, 16, 8, "2.19.3", 0, 0}, /* 2x 8 H100, 8x 400G RoCE, default */
    {R, 0.158547, 16, 8, "", 0, 0}, /* 2x 8 H100, 8x 400G RoCE, NVLS off */
    {R, 0.189137, 32, 8, "", 0, 0}, /* 4x 8 H100, 8x 400G RoCE, default */
    {R, -0.033924, 40, 1, "", 0, 0}, /* 5x 8 H100, 4x 400G RoCE, NCCL_ALGO=Ring */
    {R, -0.131284, 16, 8, "", 0, 0}, /* 2x 8 A100 40GB, 16x 100G RoCE (OCI) */
    {R, -0.274479, 16, 8, "", 0, 0}, /* 2x 8 B200, 8x 400G RoCE (GCP A4) */
    {IB, -0.015560, 16, 8, "", 0, 0}, /* 2x 8 H100, 8x 400G IB (Nebius) */
    {IB, -0.019749, 16, 8, "2.26.2", 0, 0}, /* 2x 8 H100, 8x 400G IB (Dell XE9680) */
    {IB, 0.039683, 32, 8, "", 0, 0}, /* 4x 8 H100, 8x 400G IB (Dell XE9680) */
    {IB, -0.024764, 64, 8, "2.18.1", 0, 0}, /* 8x 8 H100, 8x 400G IB with SHARP, NCCL_ALGO=CollNetChain */
    {IB, -0.023632, 16, 2, "", 0, 0}, /* 2x 8 A100 80GB SXM, 8x IB (Crusoe) */
    {IB, 0.053149, 16, 8, "", 0, 0}, /* 2x 8 A100 80GB, 4x 200G IB */
    {IB, 0.114378, 16, 8, "", 0, 0}, /* 2x 8 A100, 4x 200G IB (nccl-tests#175) */
    {IB, -0.291363, 16, 2, "2.26.2", 0, 0}, /* 2x 8 B200, 8x 400G IB (Lambda) */
    {E, -0.053063, 16, 16, "", 0, 0}, /* 2x 8 H100, 32x 100G EFA (AWS p5) */
    {E, 0.059525, 16, 2, "", 0, 0}, /* 2x 8 A100 80GB, 4x 100G EFA (AWS p4de) */
    {E, 0.442829, 16, 1, "2.9.9", 0, 0}, /* 2x 8 A100 40GB, 4x 100G EFA (AWS p4dn) */
    {E, 0.495410, 24, 1, "2.9.9", 0, 0}, /* 3x 8 A100 40GB, 4x 100G EFA (AWS p4dn) */
    {E, 0.598948, 32, 1, "2.9.9", 0, 0}, /* 4x 8 A100 40GB, 4x 100G EFA (AWS p4dn) */
    {X, 0.359050, 16, 8, "", 0, 0}, /* 2x 8 H100, 8x 200G TCPXO (GCP A3 Mega) */
    /* nccl-figures:end */
    // clang-format on
};
#undef N
#undef L
#undef IB
#undef R
#undef E
#undef X
#undef P
const int cb_nc_nfigures = (int)(sizeof cb_nc_figures / sizeof cb_nc_figures[0]);

/* A size more than this factor outside the figures' is beyond them (as a
 * fit's rows are: bench/model/commands.c). */
#define SIZE_FACTOR 4.0

/* log(measured / predicted busbw): the spread is a ratio's, so logs */
static double log_ratio(const struct cb_nc_figure *f) {
  return -log1p(f->err);
}

/* "2.9.9" < "2.18" < "2.18.1": by number, part by part */
static long version_key(const char *v) {
  long major = 0, minor = 0, patch = 0;
  sscanf(v, "%ld.%ld.%ld", &major, &minor, &patch);
  return major * 1000000 + minor * 1000 + patch;
}

void cb_nc_band_of(enum cb_nc_class cls, int skip, struct cb_nc_band *b) {
  memset(b, 0, sizeof *b);
  b->name = names[cls];
  b->center = b->scale = b->df = NAN;
  /* class means first, then the within-class squares for the pooled spread */
  double sum[CB_NC_NCLASSES] = {0}, ss[CB_NC_NCLASSES] = {0};
  int n[CB_NC_NCLASSES] = {0};
  for (int i = 0; i < cb_nc_nfigures; i++)
    if (i != skip && !cb_nc_figures[i].degraded)
      sum[cb_nc_figures[i].cls] += log_ratio(&cb_nc_figures[i]), n[cb_nc_figures[i].cls]++;
  for (int i = 0; i < cb_nc_nfigures; i++) {
    const struct cb_nc_figure *f = &cb_nc_figures[i];
    if (f->cls == cls && f->degraded)
      b->degraded++;
    if (i == skip || f->degraded)
      continue;
    double d = log_ratio(f) - sum[f->cls] / n[f->cls];
    ss[f->cls] += d * d;
    if (f->cls != cls)
      continue;
    b->floors += f->floor;
    double bytes = f->gib * GiB;
    if (!b->figures++) {
      b->gpus_lo = b->gpus_hi = f->gpus;
      b->bytes_lo = b->bytes_hi = bytes;
    }
    b->gpus_lo = f->gpus < b->gpus_lo ? f->gpus : b->gpus_lo;
    b->gpus_hi = f->gpus > b->gpus_hi ? f->gpus : b->gpus_hi;
    b->bytes_lo = fmin(b->bytes_lo, bytes), b->bytes_hi = fmax(b->bytes_hi, bytes);
    if (!f->nccl[0])
      b->nccl_unstated++;
    else {
      if (!b->nccl_lo || version_key(f->nccl) < version_key(b->nccl_lo))
        b->nccl_lo = f->nccl;
      if (!b->nccl_hi || version_key(f->nccl) > version_key(b->nccl_hi))
        b->nccl_hi = f->nccl;
    }
  }
  if (!b->figures)
    return;
  double pooled_ss = 0, pooled_df = 0;
  for (int k = 0; k < CB_NC_NCLASSES; k++)
    if (n[k])
      pooled_ss += ss[k], pooled_df += n[k] - 1;
  b->own = b->figures >= CB_NC_OWN_SPREAD;
  double s = b->own ? sqrt(ss[cls] / (b->figures - 1)) : sqrt(pooled_ss / pooled_df);
  b->df = b->own ? b->figures - 1 : pooled_df;
  b->center = sum[cls] / n[cls];
  /* a new figure's spread about a mean of n: s * sqrt(1 + 1/n) */
  b->scale = s * sqrt(1 + 1.0 / b->figures);
}

enum cb_nc_class cb_nc_class_of(const struct cb_nc_hw *hw, int nodes) {
  static const enum cb_nc_class by_fabric[] = {
      [CB_NC_FABRIC_OTHER] = CB_NC_CLASS_OTHER_NET, [CB_NC_FABRIC_IB] = CB_NC_CLASS_IB,
      [CB_NC_FABRIC_ROCE] = CB_NC_CLASS_ROCE,       [CB_NC_FABRIC_EFA] = CB_NC_CLASS_EFA,
      [CB_NC_FABRIC_TCPX] = CB_NC_CLASS_TCPX,       [CB_NC_FABRIC_TCP] = CB_NC_CLASS_TCP};
  if (hw->nvswitch && hw->gpus_per_node > 8) /* an NVLink domain: NVL72 racks, one or more */
    return CB_NC_CLASS_NVL72;
  if (nodes > 1)
    return by_fabric[hw->fabric];
  return hw->nvswitch ? CB_NC_CLASS_NODE : CB_NC_CLASS_NO_NVSWITCH;
}

void cb_nc_band_ratio(const struct cb_nc_band *b, double *lo, double *hi) {
  /* measured / predicted time = 1 / (measured / predicted busbw) */
  double h = b->scale * cb_t_quantile(0.5 + CB_NC_COVERAGE / 2, b->df);
  *lo = b->figures ? exp(-b->center - h) : NAN;
  *hi = b->figures ? exp(-b->center + h) : NAN;
}

double cb_nc_band_below(const struct cb_nc_band *b, double fraction) {
  if (!b->figures || !(fraction > 0))
    return NAN;
  return cb_t_cdf((log(fraction) - b->center) / b->scale, b->df);
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

const char *cb_nc_band_versions(const struct cb_nc_band *b, char *buf, size_t len) {
  char said[64] = "";
  if (b->nccl_unstated && b->nccl_lo)
    snprintf(said, sizeof said, ", %d of %d do not say", b->nccl_unstated, b->figures);
  if (!b->nccl_lo)
    snprintf(buf, len, "NCCL not stated");
  else if (strcmp(b->nccl_lo, b->nccl_hi) == 0)
    snprintf(buf, len, "NCCL %s%s", b->nccl_lo, said);
  else
    snprintf(buf, len, "NCCL %s to %s%s", b->nccl_lo, b->nccl_hi, said);
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

void cb_nc_band_loo(struct cb_nc_loo *o) {
  memset(o, 0, sizeof *o);
  for (int i = 0; i < cb_nc_nfigures; i++) {
    const struct cb_nc_figure *f = &cb_nc_figures[i];
    struct cb_nc_band b;
    double lo, hi;
    cb_nc_band_of(f->cls, f->degraded ? -1 : i, &b);
    cb_nc_band_ratio(&b, &lo, &hi);
    double busbw = 1 / (1 + f->err); /* measured / predicted; the band's ends swap */
    if (f->degraded) {
      o->degraded++;
      o->degraded_inside += b.figures && busbw >= 1 / hi && busbw <= 1 / lo;
      continue;
    }
    o->healthy++;
    if (!b.figures)
      o->unbanded++;
    else if (busbw < 1 / hi)
      o->below++;
    else if (busbw > 1 / lo)
      o->above++;
  }
}
