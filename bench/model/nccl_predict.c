/* --predict's NCCL section (nccl_predict.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/units.h"
#include "nccl_band.h"
#include "nccl_predict.h"

/* NVLinks per GPU by generation when the file does not say: V100 6, A100
 * 12, H100/H200 18, B200 18 (the NVIDIA datasheets). */
static const int default_links[6] = {0, 4, 6, 12, 18, 18};
/* The GPU generation an NVLink generation came with. */
static const int arch_of_nvlink[6] = {CB_NC_VOLTA,  CB_NC_VOLTA,  CB_NC_VOLTA,
                                      CB_NC_AMPERE, CB_NC_HOPPER, CB_NC_BLACKWELL};

/* "nvlink4" -> 4, "pcie5x16" -> 5; -1 when the kind says nothing. */
static int gen_in_kind(const char *kind, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(kind, prefix, n) == 0 && kind[n] >= '0' && kind[n] <= '9')
    return kind[n] - '0';
  return -1;
}

/* How NCCL's rings and trees go GPU to GPU with `per_node` GPUs a node,
 * where that is not NCCL's estimate of their link: through host memory
 * without peer-to-peer (P2P_NONE: the GPUs have none; P2P_PAST_LEVEL: their
 * path is past NCCL's P2P level, by default PXB, SYS for two GPUs on an AMD
 * CPU: paths.cc ncclTopoCheckP2p), or peer-to-peer across CPUs, where
 * NCCL's estimate takes the CPUs' link (topo.cc ncclTopoGetInterCpuBw). */
enum { P2P_MODELLED, P2P_NONE, P2P_PAST_LEVEL, P2P_ACROSS_CPUS };
static int p2p_route(const struct cb_nc_hw *hw, int per_node) {
  int pcie = cb_nc_over_pcie(hw, per_node);
  if (pcie && hw->no_p2p)
    return P2P_NONE;
  int path = !pcie ? CB_NC_PATH_NVL : hw->gpu_path ? hw->gpu_path : CB_NC_PATH_PXB;
  int level = hw->p2p_level >= 0             ? hw->p2p_level
              : hw->cpu_amd && per_node <= 2 ? CB_NC_PATH_SYS
                                             : CB_NC_PATH_PXB;
  if (path > level)
    return P2P_PAST_LEVEL;
  return path == CB_NC_PATH_SYS ? P2P_ACROSS_CPUS : P2P_MODELLED;
}

/* Across nodes without GPUDirect RDMA NCCL copies network traffic through
 * host memory; its estimate (tuning.cc) takes the NIC's rate as if it did
 * not. */
#define NO_GDR_WHY                                                                                 \
  "without GPUDirect RDMA (gdr = no) NCCL stages the network traffic in host memory; its "         \
  "estimate takes the NIC's rate as with it, and no published figure here states the shortfall"

/* Why a route other than P2P_MODELLED has no estimate (NCCL's SHM
 * transport: its model takes the PCIe link, but the copies through host
 * memory are bounded by the CPU's memory, nccl#1639). */
static const char *const route_whys[] = {
    "",
    "through host memory (gpu_p2p = no): NCCL's estimate takes the PCIe link, the "
    "CPU's memory bounds it",
    "through host memory (the GPUs' path past NCCL's peer-to-peer level, p2p_level: by "
    "default PCIe switches, or any path for two GPUs on an AMD CPU): NCCL's estimate takes "
    "the GPUs' link, the CPU's memory bounds it",
    "peer-to-peer across CPUs (gpu_path = sys): NCCL's estimate takes the link between "
    "the CPUs (16 GB/s on AMD, 6 to 40 on Intel by generation), which this model does "
    "not carry"};

/* Why NCCL's estimate does not hold for per_node GPUs a node on nodes
 * nodes (a route through host memory or across CPUs, or the network
 * without GPUDirect RDMA), or NULL where it does. */
static const char *unknown_why(const struct cb_nc_hw *hw, int per_node, int nodes) {
  int route = p2p_route(hw, per_node);
  if (route != P2P_MODELLED)
    return route_whys[route];
  return hw->no_gdr && nodes > 1 ? NO_GDR_WHY : NULL;
}

int cb_nccl_hw(const struct cb_topology *t, int per_node, struct cb_nc_hw *hw, char *why,
               size_t len) {
  const struct cb_tier *in = cb_topology_tier(t, CB_SCOPE_INTRA);
  const struct cb_tier *out = cb_topology_tier(t, CB_SCOPE_INTER);
  const struct cb_topo_gpu *g = &t->gpu;
  if (t->gpus_per_node <= 0) {
    snprintf(why, len, "the topology has no GPUs (gpus_per_node)");
    return -1;
  }
  if (!in) {
    snprintf(why, len, "the topology has no intra-node tier");
    return -1;
  }
  memset(hw, 0, sizeof *hw);
  hw->gpus_per_node = per_node;
  hw->nvlink_gen = g->nvlink >= 0 ? g->nvlink : gen_in_kind(in->kind, "nvlink");
  if (hw->nvlink_gen < 0)
    hw->nvlink_gen = 0;
  hw->nvlink_links = g->nvlink_links > 0 ? g->nvlink_links : default_links[hw->nvlink_gen];
  hw->arch = g->arch >= 0 ? g->arch : arch_of_nvlink[hw->nvlink_gen];
  if (g->arch < 0 && hw->nvlink_gen == 0) /* a PCIe GPU: say nothing of its generation */
    hw->arch = CB_NC_AMPERE;
  /* NVSwitch: stated, or assumed where NVLink joins more than two GPUs */
  int sw = g->nvswitch >= 0
               ? g->nvswitch
               : (hw->nvlink_gen > 0 && t->gpus_per_node > 2 ? CB_NVSWITCH_YES : CB_NVSWITCH_NO);
  hw->nvswitch = sw != CB_NVSWITCH_NO && hw->nvlink_gen > 0;
  hw->nvls = sw == CB_NVSWITCH_NVLS && hw->nvswitch;
  int pg = g->pcie_gen > 0 ? g->pcie_gen : gen_in_kind(in->kind, "pcie");
  hw->pcie_gen = pg > 0 ? pg : 4;
  hw->nics_per_node = out ? (out->nics_per_node > 0 ? out->nics_per_node : 1) : 0;
  hw->nic_GBps = out ? out->bandwidth_Bps * 1e-9 : 0;
  hw->sharp = g->sharp > 0;
  hw->cpu_amd = g->cpu_amd > 0;
  hw->nic_path = g->nic_path > 0 ? g->nic_path : 0;
  hw->cc = g->cc > 0 ? g->cc : 0;
  hw->cc_max = g->cc_max > g->cc ? g->cc_max : 0;
  hw->fabric = out ? cb_nc_fabric_of(out->kind) : CB_NC_FABRIC_OTHER;
  hw->no_p2p = g->gpu_p2p == 0;
  hw->no_gdr = g->gdr == 0;
  hw->nvlink_peers = g->nvlink_peers > 0 && !hw->nvswitch ? g->nvlink_peers : 0;
  hw->gpu_path = g->gpu_path > 0 ? g->gpu_path : 0; /* p2p_route says where it matters */
  hw->p2p_level = g->p2p_level;
  return 0;
}

/* Whether group g's points calibrate NCCL's model for this data: the same
 * dtype and redop for a reduction (all-gather and broadcast move bytes,
 * NCCL makes their type int8), and the placement chosen. */
static int holds(const struct cb_fit_group *g, int dtype, int redop, int inplace) {
  if (strcmp(g->backend, "nccl") != 0 || strcmp(g->algo, CB_ALL_ALGOS) == 0 ||
      g->inplace != inplace || g->share_gpu)
    return 0;
  if (g->op != CB_MOP_ALLREDUCE && g->op != CB_MOP_REDUCESCATTER)
    return 1;
  return cb_dtype_lookup(g->dtype) == dtype && cb_redop_lookup(g->redop) == redop;
}

int cb_nccl_calibrate(const struct cb_fit_groups *gs, const struct cb_nc_hw *hw, int dtype,
                      int redop, struct cb_nc_cal *cal, int *inplace) {
  int n = 0, cap = 0;
  struct cb_nc_point *pts = NULL;
  /* out of place (nccl-tests' first columns) where there is any, else in
   * place: the two differ (in-place all-gather copies nothing) */
  *inplace = 1;
  for (int i = 0; gs && i < gs->n; i++)
    if (holds(&gs->g[i], dtype, redop, 0))
      *inplace = 0;
  for (int i = 0; gs && i < gs->n; i++) {
    const struct cb_fit_group *g = &gs->g[i];
    if (!holds(g, dtype, redop, *inplace))
      continue;
    for (int k = 0; k < g->npts; k++) {
      if (n == cap)
        cap = cap ? 2 * cap : 64, pts = realloc(pts, cap * sizeof *pts);
      const struct cb_fit_point *q = &g->pts[k];
      /* an algorithm recorded (nccl runs with NCCL_DEBUG's choice), or
       * NCCL's pick assumed (nccl-tests imports record none) */
      pts[n++] = (struct cb_nc_point){g->op,
                                      q->nranks,
                                      q->nnodes,
                                      cb_dtype_lookup(g->dtype),
                                      cb_redop_lookup(g->redop),
                                      g->algo[0] ? cb_nc_algo_find(g->algo) : -1,
                                      g->proto[0] ? cb_nc_proto_find(g->proto) : -1,
                                      q->bytes,
                                      q->time_s};
    }
  }
  cb_nc_cal_identity(cal);
  if (n)
    cb_nc_fit(hw, pts, n, cal);
  free(pts);
  return n;
}

int cb_nccl_ctx_init(const struct cb_topology *t, int per_node, const struct cb_fit_groups *gs,
                     int dtype, int redop, struct cb_nccl_ctx *ctx) {
  char why[128];
  int inplace;
  if (!t || cb_nccl_hw(t, per_node, &ctx->hw, why, sizeof why))
    return -1;
  ctx->per_node = per_node > 0 ? per_node : 1;
  ctx->dtype = dtype, ctx->redop = redop;
  cb_nccl_calibrate(gs, &ctx->hw, dtype, redop, &ctx->cal, &inplace);
  return 0;
}

static int pick_op(const struct cb_nccl_ctx *x, int op, int ngpus, double bytes,
                   struct cb_nc_choice *ch) {
  int per = x->per_node < ngpus ? x->per_node : ngpus;
  struct cb_nc_comm c;
  cb_nc_tune(&x->hw, ngpus, (ngpus + per - 1) / per, &c);
  return cb_nc_pick(&c, op, bytes, x->dtype, x->redop, -1, &x->cal, ch);
}

static int pick(const struct cb_nccl_ctx *x, int ngpus, double bytes, struct cb_nc_choice *ch) {
  return pick_op(x, CB_MOP_ALLREDUCE, ngpus, bytes, ch);
}

double cb_nccl_op_s(const struct cb_nccl_ctx *ctx, int op, int ngpus, double bytes) {
  struct cb_nc_choice ch;
  if (ngpus < 2)
    return NAN;
  return pick_op(ctx, op, ngpus, bytes, &ch) < 0 ? NAN : ch.time_s;
}

int cb_nccl_ctx_for_report(const struct cb_topology *t, int per_node,
                           const struct cb_fit_groups *gs, int op, struct cb_nccl_ctx *ctx) {
  for (int i = 0; gs && i < gs->n; i++)
    if (gs->g[i].op == op && strcmp(gs->g[i].backend, "nccl") == 0) {
      int dtype = cb_dtype_lookup(gs->g[i].dtype), redop = cb_redop_lookup(gs->g[i].redop);
      return cb_nccl_ctx_init(t, per_node, gs, dtype >= 0 ? dtype : CB_FLOAT,
                              redop >= 0 ? redop : CB_SUM, ctx);
    }
  return -1;
}

double cb_nccl_allreduce_s(const void *ctx, int ngpus, double bytes) {
  struct cb_nc_choice ch;
  if (ngpus < 2)
    return 0;
  return pick(ctx, ngpus, bytes, &ch) < 0 ? NAN : ch.time_s;
}

int cb_nccl_expect(const struct cb_topology *t, int op, int dtype, int ngpus, int per_node,
                   double bytes, struct cb_nccl_expectation *e, char *why, size_t len) {
  struct cb_nc_hw hw;
  memset(e, 0, sizeof *e);
  per_node = per_node < 1 ? 1 : per_node < ngpus ? per_node : ngpus;
  if (cb_nccl_hw(t, per_node, &hw, why, len))
    return -1;
  if (ngpus < 2) {
    snprintf(why, len, "one GPU: NCCL runs no collective between GPUs");
    return -1;
  }
  if (op == CB_MOP_ALLTOALL) {
    snprintf(why, len, "NCCL runs alltoall as point-to-point sends, outside its cost model");
    return -1;
  }
  int nodes = (ngpus + per_node - 1) / per_node;
  const char *unknown = unknown_why(&hw, per_node, nodes);
  if (unknown) {
    snprintf(why, len, "%s", unknown);
    return -1;
  }
  struct cb_nc_comm c;
  struct cb_nc_cal own;
  cb_nc_cal_identity(&own);
  cb_nc_tune(&hw, ngpus, nodes, &c);
  if (cb_nc_pick(&c, op, bytes, dtype, CB_SUM, -1, &own, &e->choice) < 0) {
    const char *refused = cb_nc_refused(&c, op, dtype);
    snprintf(why, len, "%s", refused ? refused : "no algorithm of NCCL's applies");
    return -1;
  }
  cb_nc_band_of(cb_nc_class_of(&hw, nodes), -1, &e->band);
  cb_nc_band_ratio(&e->band, &e->ratio_lo, &e->ratio_hi);
  e->nodes = nodes;
  cb_nc_band_beyond(&e->band, op, ngpus, bytes, e->beyond, sizeof e->beyond);
  e->newer = cb_nc_newer_differs(&hw, nodes);
  return 0;
}

const char *cb_nccl_pick_label(const struct cb_nccl_ctx *ctx, int ngpus, double bytes, char *buf,
                               size_t len) {
  struct cb_nc_choice ch;
  if (ngpus < 2 || pick(ctx, ngpus, bytes, &ch) < 0)
    snprintf(buf, len, "nccl:-");
  else
    snprintf(buf, len, "nccl:%s/%s", cb_nc_algo_names[ch.algo], cb_nc_proto_names[ch.proto]);
  return buf;
}

#if CB_HAVE_JANSSON

static json_t *num(double x) {
  return isfinite(x) ? json_real(x) : json_null();
}

static void print_hw(const struct cb_nc_hw *hw) {
  char cc[40] = "", lvl[40] = "", name[8];
  if (hw->cc > 0)
    snprintf(cc, sizeof cc, ", compute capability %d.%d", hw->cc / 10, hw->cc % 10);
  if (*cb_topo_p2p_level_name(hw->p2p_level, name, sizeof name))
    snprintf(lvl, sizeof lvl, ", NCCL_P2P_LEVEL=%s", name);
  printf("#   node: %d GPUs (%s%s), %s%s, PCIe Gen%d%s; %d NIC(s) of %.1f GB/s per node%s\n",
         hw->gpus_per_node, cb_nc_arch_names[hw->arch], cc,
         hw->nvlink_gen ? "NVLink " : "no NVLink",
         hw->nvlink_gen ? (hw->nvls       ? "through NVSwitch with NVLink SHARP (NVLS)"
                           : hw->nvswitch ? "through NVSwitch (no NVLS)"
                           : hw->nvlink_peers == 1
                               ? "in bridged pairs (rings over more than 2 GPUs cross PCIe: "
                                 "tuned at PCIe's speed)"
                               : "without NVSwitch")
                        : "",
         hw->pcie_gen, lvl, hw->nics_per_node, hw->nic_GBps,
         hw->sharp ? ", SHARP in the fabric (CollNet, NCCL_COLLNET_ENABLE=1)" : "");
}

static void print_cal(const struct cb_nc_cal *cal, int npts, int inplace) {
  if (!npts) {
    printf("#   times: NCCL's own estimates (no --fit nccl records for this data: its bandwidths "
           "and latencies as they are)\n");
    return;
  }
  printf("#   times: calibrated by %d --fit nccl point(s) of this data, %s; the pick stays "
         "NCCL's own:\n",
         npts, inplace ? "in place (no out-of-place records)" : "out of place");
  for (int a = 0; a < CB_NC_NALGOS; a++)
    for (int p = 0; p < CB_NC_NPROTOS; p++)
      if (cal->fitted[a][p])
        printf("#     %s/%s: bandwidth x %.3f, latency x %.3f (%d points)\n", cb_nc_algo_names[a],
               cb_nc_proto_names[p], cal->bw[a][p], cal->lat[a][p], cal->fitted[a][p]);
}

/* What the data changes in NCCL's pick (cb_nc_pick). */
static void print_data(int op, int dtype, int redop, const struct cb_nc_hw *hw) {
  if (op != CB_MOP_ALLREDUCE && op != CB_MOP_REDUCESCATTER) {
    printf("#   data: bytes (NCCL moves %s as int8, whatever --dtype)\n", cb_mop_names[op]);
    return;
  }
  struct cb_nc_comm c = {.arch = hw->arch};
  const char *refused = cb_nc_refused(&c, op, dtype);
  printf("#   data: %s %s (--dtype, --redop)%s%s%s\n", cb_dtypes[dtype].name, cb_redop_names[redop],
         refused ? ": refused: " : "", refused ? refused : "",
         !refused && hw->nvls && !cb_nc_nvls_reduces(dtype, redop)
             ? ": NVLS does not reduce it (NCCL's ncclNvlsSupported), NVLS and NVLSTree are off"
             : "");
  if (!refused && cb_dtype_is_fp8(dtype))
    printf("#   fp8: NCCL shuns Ring past 8 GPUs (its time x 1024 in the choice: precision)\n");
}

/* "Ring/LL to 256 KiB, Ring/LL128 to 4 MiB, NVLS/Simple beyond" */
static void print_switches(const struct cb_nc_comm *c, int op, int dtype, int redop) {
  struct cb_nc_choice ch;
  char sz[32];
  double from = 8;
  printf("#   %d GPUs: ", c->nranks);
  for (int guard = 0; guard < 32; guard++) {
    if (cb_nc_pick(c, op, from, dtype, redop, -1, NULL, &ch) < 0) {
      printf("nothing applies\n");
      return;
    }
    double next = cb_nc_next_switch(c, op, dtype, redop, from);
    printf("%s/%s", cb_nc_algo_names[ch.algo], cb_nc_proto_names[ch.proto]);
    if (next <= 0 && guard == 0) {
      printf(" at every size\n");
      return;
    }
    if (next <= 0) { /* from the last switch on */
      printf(" beyond %s\n", cb_format_size((uint64_t)(from / 2), sz, sizeof sz));
      return;
    }
    printf(" to %s, ", cb_format_size((uint64_t)(next / 2), sz, sizeof sz));
    from = next;
  }
  printf("...\n");
}

/* Where the uncalibrated times' intervals come from: the published figures
 * per class of system (nccl_band.h), and how the bands held out of sample. */
static void print_bands(void) {
  char sizes[64], versions[96];
  struct cb_nc_loo loo;
  cb_nc_band_loo(&loo);
  printf("#   error of the uncalibrated times, from published nccl-tests figures by class "
         "(bench/model/PLANNING.md,\n#   \"Published figures\"): where %.0f%% of healthy systems "
         "measure, as measured / predicted time\n#   (the model follows NCCL 2.28.9; each band "
         "names the "
         "versions its figures ran)\n",
         100 * CB_NC_COVERAGE);
  for (int k = 0; k < CB_NC_NCLASSES; k++) {
    struct cb_nc_band b;
    double rlo, rhi;
    cb_nc_band_of(k, -1, &b);
    cb_nc_band_ratio(&b, &rlo, &rhi);
    if (!b.figures) {
      printf("#     %s: unknown (no published figure); its rows carry no interval\n", b.name);
      continue;
    }
    char gpus[32];
    if (b.gpus_lo == b.gpus_hi)
      snprintf(gpus, sizeof gpus, "%d", b.gpus_lo);
    else
      snprintf(gpus, sizeof gpus, "%d-%d", b.gpus_lo, b.gpus_hi);
    printf("#     %s: %.2f to %.2f (%d figure%s, %s spread; allreduce, %s GPUs, %s; %s)\n", b.name,
           rlo, rhi, b.figures, b.figures == 1 ? "" : "s", b.own ? "its own" : "pooled", gpus,
           cb_nc_band_sizes(&b, sizes, sizeof sizes),
           cb_nc_band_versions(&b, versions, sizeof versions));
  }
  printf("#   out of sample (each figure left out of its band in turn): %d of %d healthy figures "
         "under their band, %d over; %d of %d degraded inside theirs\n",
         loo.below, loo.healthy - loo.unbanded, loo.above, loo.degraded_inside, loo.degraded);
  printf("#   rows past the figures (another op, GPU count, or a size 4x outside) are marked "
         "EXTRAPOLATED: their error is unknown\n");
}

/* The bands and their out-of-sample check, for --predict --json. */
static json_t *bands_json(void) {
  json_t *classes = json_array();
  char versions[96];
  for (int k = 0; k < CB_NC_NCLASSES; k++) {
    struct cb_nc_band b;
    double rlo, rhi;
    cb_nc_band_of(k, -1, &b);
    cb_nc_band_ratio(&b, &rlo, &rhi);
    json_array_append_new(
        classes,
        json_pack("{s:s, s:i, s:i, s:i, s:s, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:o, s:o, s:s}",
                  "class", b.name, "figures", b.figures, "pass_floors", b.floors, "degraded",
                  b.degraded, "spread", b.own ? "own" : "pooled", "center", num(b.center), "scale",
                  num(b.scale), "df", num(b.df), "busbw_ratio_lo", num(1 / rhi), "busbw_ratio_hi",
                  num(1 / rlo), "gpus_lo", b.gpus_lo, "gpus_hi", b.gpus_hi, "bytes_lo",
                  num(b.bytes_lo), "bytes_hi", num(b.bytes_hi), "nccl",
                  cb_nc_band_versions(&b, versions, sizeof versions)));
  }
  struct cb_nc_loo loo;
  cb_nc_band_loo(&loo);
  return json_pack("{s:f, s:i, s:o, s:{s:i, s:i, s:i, s:i, s:i, s:i}}", "coverage", CB_NC_COVERAGE,
                   "own_spread_from", CB_NC_OWN_SPREAD, "classes", classes, "leave_one_out",
                   "healthy", loo.healthy, "below", loo.below, "above", loo.above, "unbanded",
                   loo.unbanded, "degraded", loo.degraded, "degraded_inside", loo.degraded_inside);
}

/* One row's interval: the class band around an uncalibrated pick; none
 * for a calibrated one (the band is the uncalibrated model's). Prints the
 * row's end and returns its JSON fields. */
static void row_interval(const struct cb_nc_hw *hw, const struct cb_nc_cal *cal, int op, int n,
                         int nodes, double bytes, const struct cb_nc_choice *ch, json_t *row,
                         int *nextra) {
  if (cal->fitted[ch->algo][ch->proto]) {
    printf("  calibrated: no interval");
    json_object_set_new(row, "uncalibrated", json_false());
    return;
  }
  const char *unknown = unknown_why(hw, n / nodes, nodes);
  if (unknown) {
    printf("  unknown: %s", unknown);
    json_object_set_new(row, "uncalibrated", json_true());
    json_object_set_new(row, "unknown", json_string(unknown));
    return;
  }
  struct cb_nc_band band, *b = &band;
  double rlo, rhi;
  char why[160];
  cb_nc_band_of(cb_nc_class_of(hw, nodes), -1, b);
  cb_nc_band_ratio(b, &rlo, &rhi);
  double lo = ch->time_s * rlo * 1e6, hi = ch->time_s * rhi * 1e6;
  if (isnan(rlo))
    printf("  unknown, uncalibrated");
  else
    printf("  [%.*f, %.*f] uncalibrated", lo < 1000 ? 2 : 0, lo, hi < 1000 ? 2 : 0, hi);
  json_object_set_new(row, "uncalibrated", json_true());
  json_object_set_new(
      row, "interval",
      json_pack("{s:s, s:s, s:i, s:f, s:o, s:o, s:o, s:o}", "source", "published figures", "class",
                b->name, "figures", b->figures, "coverage", CB_NC_COVERAGE, "ratio_lo", num(rlo),
                "ratio_hi", num(rhi), "time_s_lo", num(lo * 1e-6), "time_s_hi", num(hi * 1e-6)));
  if (cb_nc_band_beyond(b, op, n, bytes, why, sizeof why)[0]) {
    printf("  EXTRAPOLATED: %s", why);
    json_object_set_new(row, "extrapolated", json_string(why));
    ++*nextra;
  }
}

json_t *cb_nccl_predict(const struct cb_model_cli *m, const struct cb_topology *topo, int per_node,
                        const struct cb_fit_groups *gs) {
  struct cb_nc_hw hw;
  char why[128], sz[32];
  if (!topo || cb_nccl_hw(topo, per_node, &hw, why, sizeof why))
    return NULL;
  struct cb_nc_cal cal;
  int inplace, dt = m->dtype, ro = m->redop;
  int npts = cb_nccl_calibrate(gs, &hw, dt, ro, &cal, &inplace), shared = 0;
  for (int i = 0; gs && i < gs->n; i++) /* NCCL ran them over its network, not these links */
    if (gs->g[i].share_gpu && strcmp(gs->g[i].backend, "nccl") == 0 &&
        strcmp(gs->g[i].algo, CB_ALL_ALGOS) != 0)
      shared += gs->g[i].npts;
  json_t *rows = json_array();
  for (int i = 0; i < m->nops; i++) {
    int op = m->ops[i];
    printf("\n# NCCL's choice for %s: its cost model (NVIDIA/nccl v2.28.9-1, src/graph/tuning.cc "
           "and src/enqueue.cc; bench/model/PLANNING.md, \"NCCL's cost model\")\n",
           cb_mop_names[op]);
    if (op == CB_MOP_ALLTOALL) {
      printf("#   none: NCCL runs alltoall as point-to-point sends, outside its algorithm "
             "model\n");
      continue;
    }
    print_hw(&hw);
    print_data(op, dt, ro, &hw);
    print_cal(&cal, npts, inplace);
    if (shared)
      printf(
          "#   %d point(s) of --share-gpu runs not used: NCCL ran each rank as a host of its own "
          "with one GPU, over its network transport, not over this topology's links\n",
          shared);
    print_bands();
    for (int g = 0; g < m->ngpus; g++) { /* the version this model follows, where it matters */
      int n = (int)m->gpus[g], per = per_node < n ? per_node : n;
      const char *newer = cb_nc_newer_differs(&hw, (n + per - 1) / per);
      if (newer[0]) {
        printf("#   these rows follow NCCL v2.28.9-1; %s (bench/model/PLANNING.md, \"Which "
               "NCCL\")\n",
               newer);
        break;
      }
    }
    printf("#   busbw per algorithm: its best protocol, as NCCL_ALGO=that would run it ('-': "
           "off here); then the pick's interval (us)\n");
    printf("%7s %6s %10s %-15s %11s %9s", "#  gpus", "nodes", "size", "nccl_pick", "time_us",
           "busbw");
    for (int a = 0; a < CB_NC_NALGOS; a++)
      printf(" %9.9s", cb_nc_algo_names[a]);
    printf("  interval_us\n");
    int nextra = 0, nrows = 0;
    for (int g = 0; g < m->ngpus; g++) {
      int n = (int)m->gpus[g], per = per_node < n ? per_node : n;
      int nodes = (n + per - 1) / per;
      struct cb_nc_comm c;
      cb_nc_tune(&hw, n, nodes, &c);
      for (int z = 0; z < m->nsizes; z++) {
        double bytes = (double)m->sizes[z];
        struct cb_nc_choice ch;
        int ok = cb_nc_pick(&c, op, bytes, dt, ro, -1, &cal, &ch) >= 0;
        char pick[32];
        snprintf(pick, sizeof pick, "%s/%s", ok ? cb_nc_algo_names[ch.algo] : "-",
                 ok ? cb_nc_proto_names[ch.proto] : "-");
        printf("%7d %6d %10s %-15s", n, nodes, cb_format_size(m->sizes[z], sz, sizeof sz),
               ok ? pick : "-");
        if (ok)
          printf(" %11.2f %9.1f", ch.time_s * 1e6, ch.busbw_Bps * 1e-9);
        else
          printf(" %11s %9s", "-", "-");
        json_t *algos = json_object();
        for (int a = 0; a < CB_NC_NALGOS; a++) {
          struct cb_nc_choice one;
          if (cb_nc_pick(&c, op, bytes, dt, ro, a, &cal, &one) < 0) {
            printf(" %9s", "-");
            continue;
          }
          printf(" %9.1f", one.busbw_Bps * 1e-9);
          json_object_set_new(algos, cb_nc_algo_names[a],
                              json_pack("{s:s, s:o, s:o}", "proto", cb_nc_proto_names[one.proto],
                                        "time_s", num(one.time_s), "busbw_GBps",
                                        num(one.busbw_Bps * 1e-9)));
        }
        json_t *row = json_pack("{s:s, s:i, s:i, s:i, s:I, s:o, s:o, s:o, s:o, s:o}", "op",
                                cb_mop_names[op], "gpus", n, "nodes", nodes, "gpus_per_node",
                                n / nodes, "bytes", (json_int_t)m->sizes[z], "algo",
                                ok ? json_string(cb_nc_algo_names[ch.algo]) : json_null(), "proto",
                                ok ? json_string(cb_nc_proto_names[ch.proto]) : json_null(),
                                "time_s", num(ok ? ch.time_s : NAN), "busbw_GBps",
                                num(ok ? ch.busbw_Bps * 1e-9 : NAN), "algorithms", algos);
        if (ok)
          row_interval(&hw, &cal, op, n, nodes, bytes, &ch, row, &nextra), nrows++;
        printf("\n");
        json_array_append_new(rows, row);
      }
    }
    if (nextra)
      printf("# %d of %d rows EXTRAPOLATED past the published figures: their error is unknown\n",
             nextra, nrows);
    for (int g = 0; g < m->ngpus; g++) { /* the header's GPUs a node do not hold for these */
      int n = (int)m->gpus[g], per = per_node < n ? per_node : n, nodes = (n + per - 1) / per;
      if (n % per)
        printf("# --gpus %d is not a whole number of %d-GPU nodes: computed as %d nodes of %d "
               "GPUs, as NCCL's model takes nRanks / nNodes\n",
               n, per, nodes, n / nodes);
    }
    printf("# NCCL's switches by size (8 B to 64 GiB), each pick up to the size named:\n");
    for (int g = 0; g < m->ngpus; g++) {
      int n = (int)m->gpus[g], per = per_node < n ? per_node : n;
      struct cb_nc_comm c;
      cb_nc_tune(&hw, n, (n + per - 1) / per, &c);
      print_switches(&c, op, dt, ro);
    }
  }
  json_t *calj = json_array();
  for (int a = 0; a < CB_NC_NALGOS; a++)
    for (int p = 0; p < CB_NC_NPROTOS; p++)
      if (cal.fitted[a][p])
        json_array_append_new(calj,
                              json_pack("{s:s, s:s, s:f, s:f, s:i}", "algo", cb_nc_algo_names[a],
                                        "proto", cb_nc_proto_names[p], "bw_factor", cal.bw[a][p],
                                        "lat_factor", cal.lat[a][p], "points", cal.fitted[a][p]));
  return json_pack("{s:s, s:s, s:s, s:i, s:b, s:i, s:o, s:o, s:o}", "model",
                   "NCCL v2.28.9-1 cost model", "dtype", cb_dtypes[dt].name, "redop",
                   cb_redop_names[ro], "calibration_points", npts, "calibration_inplace",
                   npts && inplace, "share_gpu_points_left_out", shared, "calibration", calj,
                   "bands", bands_json(), "rows", rows);
}

json_t *cb_nccl_validate(const struct cb_topology *topo, int per_node,
                         const struct cb_fit_groups *fit, const struct cb_fit_groups *held) {
  struct cb_nc_hw hw;
  char why[128], sz[32];
  int cap = 0, n = 0;
  if (!topo || cb_nccl_hw(topo, per_node, &hw, why, sizeof why))
    return NULL;
  for (int i = 0; i < held->n; i++)
    cap += held->g[i].npts;
  double *e0 = malloc((cap ? cap : 1) * sizeof *e0), *e1 = malloc((cap ? cap : 1) * sizeof *e1);
  json_t *pts = json_array();
  for (int i = 0; i < held->n; i++) {
    const struct cb_fit_group *g = &held->g[i];
    int dtype = cb_dtype_lookup(g->dtype), redop = cb_redop_lookup(g->redop), inplace;
    if (strcmp(g->backend, "nccl") != 0 || strcmp(g->algo, CB_ALL_ALGOS) == 0 || g->share_gpu ||
        dtype < 0 || redop < 0)
      continue;
    struct cb_nc_cal cal;
    cb_nccl_calibrate(fit, &hw, dtype, redop, &cal, &inplace);
    for (int k = 0; k < g->npts; k++) {
      const struct cb_fit_point *q = &g->pts[k];
      struct cb_nc_comm c;
      struct cb_nc_choice ch;
      cb_nc_tune(&hw, q->nranks, q->nnodes, &c);
      int a = g->algo[0] ? cb_nc_algo_find(g->algo) : -1;
      int p = g->proto[0] ? cb_nc_proto_find(g->proto) : -1;
      if ((a < 0 || p < 0) && cb_nc_pick(&c, g->op, q->bytes, dtype, redop, a, NULL, &ch) >= 0)
        a = ch.algo, p = ch.proto; /* unrecorded: NCCL's pick stands for it */
      double t0 = a >= 0 && p >= 0 ? cb_nc_time(&c, g->op, a, p, q->bytes, NULL) : NAN;
      double t1 = a >= 0 && p >= 0 ? cb_nc_time(&c, g->op, a, p, q->bytes, &cal) : NAN;
      if (!(q->time_s > 0) || !isfinite(t0) || !isfinite(t1))
        continue;
      if (!n) {
        printf("\n# NCCL's model against the --validate nccl records (error = predicted / "
               "measured - 1): its own estimate, then calibrated by --fit\n");
        printf("%-14s %-12s %6s %6s %10s %-15s %12s %12s %9s %12s %9s\n", "# op", "placement",
               "ranks", "nodes", "size", "algorithm", "measured_us", "nccl_us", "error",
               "calibr_us", "error");
      }
      e0[n] = t0 / q->time_s - 1, e1[n] = t1 / q->time_s - 1;
      char algo[32];
      snprintf(algo, sizeof algo, "%s/%s", cb_nc_algo_names[a], cb_nc_proto_names[p]);
      printf("%-14s %-12s %6d %6d %10s %-15s %12.2f %12.2f %8.1f%% %12.2f %8.1f%%\n",
             cb_mop_names[g->op], g->inplace ? "in-place" : "out-of-place", q->nranks, q->nnodes,
             cb_format_size((uint64_t)q->bytes, sz, sizeof sz), algo, q->time_s * 1e6, t0 * 1e6,
             100 * e0[n], t1 * 1e6, 100 * e1[n]);
      json_array_append_new(pts, json_pack("{s:s, s:b, s:i, s:i, s:f, s:s, s:f, s:f, s:f}", "op",
                                           cb_mop_names[g->op], "inplace", g->inplace, "nranks",
                                           q->nranks, "nnodes", q->nnodes, "bytes", q->bytes,
                                           "algo", algo, "measured_s", q->time_s, "nccl_s", t0,
                                           "calibrated_s", t1));
      n++;
    }
  }
  json_t *out = NULL;
  if (n) {
    double m0 = cb_err_median_abs(e0, n), m1 = cb_err_median_abs(e1, n);
    printf("# NCCL's model on %d held-out point(s): median |error| %.1f%% as NCCL estimates, "
           "%.1f%% calibrated by --fit\n",
           n, 100 * m0, 100 * m1);
    out = json_pack("{s:i, s:f, s:f, s:o}", "points", n, "median_abs_rel_error_uncalibrated", m0,
                    "median_abs_rel_error_calibrated", m1, "rows", pts);
  } else
    json_decref(pts);
  free(e0);
  free(e1);
  return out;
}

#endif
