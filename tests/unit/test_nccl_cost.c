/* NCCL's cost model (bench/model/nccl_cost.c) against figures worked out by
 * hand from NCCL v2.28.9-1's src/graph/tuning.cc: one case per algorithm
 * and protocol, the pick NCCL's topoGetAlgoInfo makes, and the calibration
 * fit recovering known factors. Units as NCCL's: GB/s, us. */
#include <math.h>
#include <string.h>

#include "base/dtype.h"
#include "model/nccl_cost.h"
#include "tap.h"

static int near(double got, double want, const char *what) {
  return is_double(got, want, 1e-6 * fabs(want), "%s", what);
}

/* 8x H100 SXM: 18 NVLink 4 links (370.8 GB/s), NVSwitch with NVLS, 8 NDR NICs, Gen5 */
static struct cb_nc_hw h100(void) {
  return (struct cb_nc_hw){.arch = CB_NC_HOPPER,
                           .gpus_per_node = 8,
                           .nvlink_gen = 4,
                           .nvlink_links = 18,
                           .nvswitch = 1,
                           .nvls = 1,
                           .pcie_gen = 5,
                           .nics_per_node = 8,
                           .nic_GBps = 50};
}

static const double GiB16 = 16.0 * (1 << 30);

static void test_graphs(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_graph g[CB_NC_NALGOS];
  cb_nc_graphs(&hw, 1, g);
  /* ring search: 60 GB/s x 6 channels = 360 <= 370.8, then duplicated: 12 x 30 */
  ok(g[CB_NC_RING].nch == 12 && g[CB_NC_RING].bw_intra == 30, "H100 ring graph: 12 x 30 GB/s");
  /* NVLS: 8 heads, (8+1) x 40 <= 370.8 < 9 x 50; inter raised to 60 (< 2 x 40) */
  ok(g[CB_NC_NVLS].nch == 8 && g[CB_NC_NVLS].bw_intra == 40 && g[CB_NC_NVLS].bw_inter == 60,
     "H100 NVLS graph: 8 heads at 40 GB/s, inter 60");
  cb_nc_graphs(&hw, 2, g);
  /* across nodes: one channel per NIC at 48 (Gen5 x16 caps the 50 GB/s NIC); not
   * duplicated (Hopper, under 50 GB/s, over 4 channels) */
  ok(g[CB_NC_RING].nch == 8 && g[CB_NC_RING].bw_inter == 48, "H100 2 nodes: ring 8 x 48");
  struct cb_nc_hw a100 = hw;
  a100.arch = CB_NC_AMPERE, a100.nvlink_gen = 3, a100.nvlink_links = 12, a100.nvls = 0;
  cb_nc_graphs(&a100, 1, g);
  /* 12 x 20 = 240: 40 x 6 duplicated */
  ok(g[CB_NC_RING].nch == 12 && g[CB_NC_RING].bw_intra == 20, "A100 ring graph: 12 x 20 GB/s");
  ok(g[CB_NC_NVLS].nch == 0, "A100: no NVLS graph");
  /* A100, 8 GPUs, 4 MiB: Ring/LL128, 40.6 + 4194304 / (1000 x 220.8 x 8/14) us (LL: 15 +
   * 4194304 / (1000 x 87.7 x 8/14) = 98.7 us, Simple: 56 + 4194304 / (1000 x 240 x 8/14) =
   * 86.6 us, LL128: 73.8 us) */
  struct cb_nc_comm c;
  struct cb_nc_choice pk;
  cb_nc_tune(&a100, 8, 1, &c);
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, 4 << 20, CB_FLOAT, CB_SUM, -1, NULL, &pk);
  ok(pk.algo == CB_NC_RING && pk.proto == CB_NC_LL128, "A100 4 MiB: Ring/LL128");
  near(pk.time_s, (40.6 + 4194304 / (1000 * 220.8 * 8 / 14)) * 1e-6, "... 73.8 us");
}

static void test_ring(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_comm c;
  cb_nc_tune(&hw, 8, 1, &c);
  /* Simple: 12 x 30 = 360 bus, x 8/14 algorithm; 8.4 + 14 steps x 3.4 us */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_SIMPLE], 360.0 * 8 / 14, "Ring/Simple bw 205.7");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_SIMPLE], 56.0, "Ring/Simple latency 56 us");
  near(cb_nc_time(&c, CB_MOP_ALLREDUCE, CB_NC_RING, CB_NC_SIMPLE, GiB16, NULL),
       (56.0 + GiB16 / (1000 * 360.0 * 8 / 14)) * 1e-6, "Ring/Simple at 16 GiB");
  /* LL: min(llMaxBw 141, 360 x .5); 6.6 + 14 x 0.6 */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL], 141.0 * 8 / 14, "Ring/LL bw: llMaxBw");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL], 15.0, "Ring/LL latency 15 us");
  /* LL128: min(360 x .92, 12 x 36.7); 14 + 14 x 1.9 */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128], 331.2 * 8 / 14, "Ring/LL128 bw");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128], 40.6, "Ring/LL128 latency 40.6 us");
  /* allgather: n-1 steps, ratio 8/7 */
  near(c.bw[CB_MOP_ALLGATHER][CB_NC_RING][CB_NC_SIMPLE], 360.0 * 8 / 7, "Ring allgather bw");
  /* broadcast (tuning.cc): the ring's graph has sameChannels (search.cc
   * tries it first and an NVSwitch node's first pass is optimal), so one
   * hop of the ring's NVLink Simple latency, not 8 steps of the tree's */
  near(c.lat[CB_MOP_BROADCAST][CB_NC_RING][CB_NC_SIMPLE], 8.4 + 3.4, "Ring broadcast lat 11.8 us");
  near(c.lat[CB_MOP_BROADCAST][CB_NC_RING][CB_NC_LL], 6.6 + 0.6, "Ring/LL broadcast lat 7.2 us");
}

/* issue 43: LL128's enable rule (tuning.cc) reads the GPU-to-NIC path
 * across nodes: within PXN on Hopper, within PXB before */
static void test_ll128_nic_path(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_comm c;
  cb_nc_tune(&hw, 16, 2, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] > 0,
     "Hopper, NICs behind the PCIe switch: LL128");
  hw.nic_path = 7; /* PXN */
  cb_nc_tune(&hw, 16, 2, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] > 0, "Hopper, PXN: LL128 still");
  hw.nic_path = 8; /* PHB: through the CPU */
  cb_nc_tune(&hw, 16, 2, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] == 0,
     "Hopper, NICs through the CPU: no LL128");
  cb_nc_tune(&hw, 8, 1, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] > 0,
     "... on one node the NIC path is not used");
  hw.arch = CB_NC_AMPERE, hw.nvlink_gen = 3, hw.nvlink_links = 12, hw.nvls = 0, hw.nic_path = 7;
  cb_nc_tune(&hw, 16, 2, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] == 0,
     "Ampere, PXN: no LL128 (only up to PXB)");
}

/* tuning.cc: LL128 only where minCompCap == maxCompCap (GPUs of one kind) */
static void test_ll128_mixed_cc(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_comm c;
  hw.cc = 90;
  cb_nc_tune(&hw, 8, 1, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] > 0, "H100s alone: LL128");
  hw.cc_max = 100;
  cb_nc_tune(&hw, 8, 1, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] == 0 &&
         c.bw[CB_MOP_ALLREDUCE][CB_NC_TREE][CB_NC_LL128] == 0 &&
         c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_SIMPLE] > 0,
     "9.0 beside 10.0: no LL128 on any algorithm, Simple still");
}

static void test_tree(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_comm c;
  cb_nc_tune(&hw, 8, 1, &c);
  /* allreduce: min(360 x .92, 12 x 38.7) = 331.2; x .5 (tree) */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_TREE][CB_NC_SIMPLE], 165.6, "Tree/Simple bw 165.6");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_TREE][CB_NC_SIMPLE], 8.4 + 2 * 7 * 4.0, "Tree/Simple lat");
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_TREE][CB_NC_LL], 331.2 / 3.8 * .5, "Tree/LL bw: / 3.8");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_TREE][CB_NC_LL], 6.8 + 2 * 7 * .6, "Tree/LL lat 15.2");
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_TREE][CB_NC_LL128], 331.2 * 7 / 9 * .5, "Tree/LL128 bw 7/9");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_TREE][CB_NC_LL128], 14 + 2 * 7 * 1.25, "Tree/LL128 lat");
  /* 1 MiB = 64 B x 2^14: treeCorrectionFactor[LL][14] = .5 */
  double bw = 331.2 / 3.8 * .5 * .5;
  near(cb_nc_time(&c, CB_MOP_ALLREDUCE, CB_NC_TREE, CB_NC_LL, 1 << 20, NULL),
       (15.2 + (1 << 20) / (1000 * bw)) * 1e-6, "Tree/LL at 1 MiB: size correction .5");
  ok(isnan(cb_nc_time(&c, CB_MOP_ALLGATHER, CB_NC_TREE, CB_NC_SIMPLE, 1 << 20, NULL)),
     "no Tree allgather");
}

static void test_nvls(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_comm c;
  cb_nc_tune(&hw, 8, 1, &c);
  /* min(40 x .85 x 7/8 x 2 = 59.5, 60) x 8 = 476 bus, x 8/14; latency the NVLink hop, 25 us */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_NVLS][CB_NC_SIMPLE], 476.0 * 8 / 14, "NVLS bw: 476 bus");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_NVLS][CB_NC_SIMPLE], 25.0, "NVLS latency 25 us");
  ok(isnan(cb_nc_time(&c, CB_MOP_ALLREDUCE, CB_NC_NVLS, CB_NC_LL, 8, NULL)), "NVLS: Simple only");
  struct cb_nc_choice ch;
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, CB_FLOAT, CB_SUM, -1, NULL, &ch);
  ok(ch.algo == CB_NC_NVLS && ch.proto == CB_NC_SIMPLE, "16 GiB on 8 H100: NVLS/Simple");
  near(ch.busbw_Bps * 1e-9, 1.75 * GiB16 / (25.0 + GiB16 / (1000 * 272.0)) * 1e-3,
       "... busbw 475.8 GB/s");
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, CB_FLOAT, CB_SUM, CB_NC_RING, NULL, &ch);
  ok(ch.proto == CB_NC_SIMPLE && fabs(ch.busbw_Bps * 1e-9 - 359.8) < 0.1,
     "NCCL_ALGO=Ring: Simple at 359.8 GB/s (%.1f)", ch.busbw_Bps * 1e-9);
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, 8, CB_FLOAT, CB_SUM, -1, NULL, &ch);
  ok(ch.algo == CB_NC_RING && ch.proto == CB_NC_LL, "8 B: Ring/LL (15 us against NVLS' 25)");
  /* the LL -> NVLS switch: Ring/LL 15 + b/80.57, NVLS 25 + b/272: b = 1.14 MB */
  double sw = cb_nc_next_switch(&c, CB_MOP_ALLREDUCE, CB_FLOAT, CB_SUM, 8);
  ok(sw == 2 << 20, "switch LL -> NVLS at the first power of two over 1.14 MB: 2 MiB (%.0f)", sw);
  struct cb_nc_hw off = hw;
  off.nvls = 0;
  cb_nc_tune(&off, 8, 1, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_NVLS][CB_NC_SIMPLE] == 0, "NVSwitch without SHARP: no NVLS");
}

static void test_multinode(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_comm c;
  cb_nc_tune(&hw, 16, 2, &c);
  /* NVLSTree, 2 nodes: min(59.5, 2 x 48, perChMaxNVLSTreeBw 57.7) x 8, x 16/30;
   * latency 25 + 2 log2(2) x 20.9 */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_NVLS_TREE][CB_NC_SIMPLE], 57.7 * 8 * 16 / 30, "NVLSTree bw");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_NVLS_TREE][CB_NC_SIMPLE], 66.8, "NVLSTree latency 66.8 us");
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_NVLS][CB_NC_SIMPLE] == 0, "NVLS across nodes needs CollNet");
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_COLLNET_DIRECT][CB_NC_SIMPLE] == 0, "no SHARP: no CollNet");
  /* ring across 2 nodes: 8 x 48 bus; latency 8.4 + (30 - 2) steps x max(3.4, 3 x 1 us
   * network overhead) + 2 network steps x 14; the plateau x 1.4 at large sizes */
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_SIMPLE], 8.4 + 28 * 3.4 + 2 * 14, "ring lat 2N");
  near(cb_nc_time(&c, CB_MOP_ALLREDUCE, CB_NC_RING, CB_NC_SIMPLE, GiB16, NULL),
       (131.6 * 1.4 + GiB16 / (1000 * 384.0 * 16 / 30)) * 1e-6, "ring 2 nodes: plateau x 1.4");

  /* the picks on 2 nodes: Tree/LL (25.2 us against Ring/LL's 40) for 8 B; at 1 MiB
   * Tree/LL128 (48.5 + 1048576 / (1000 x 146.8 x .6) = 60.4 us); NVLSTree at 16 GiB */
  struct cb_nc_choice pk;
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, 8, CB_FLOAT, CB_SUM, -1, NULL, &pk);
  ok(pk.algo == CB_NC_TREE && pk.proto == CB_NC_LL, "2 nodes, 8 B: Tree/LL");
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, 1 << 20, CB_FLOAT, CB_SUM, -1, NULL, &pk);
  ok(pk.algo == CB_NC_TREE && pk.proto == CB_NC_LL128, "2 nodes, 1 MiB: Tree/LL128");
  near(pk.time_s, (48.5 + 1048576 / (1000 * 146.8 * .6)) * 1e-6, "... 60.4 us");
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, CB_FLOAT, CB_SUM, -1, NULL, &pk);
  ok(pk.algo == CB_NC_NVLS_TREE && pk.proto == CB_NC_SIMPLE, "2 nodes, 16 GiB: NVLSTree/Simple");

  struct cb_nc_hw nonic = hw;
  nonic.nics_per_node = 0;
  struct cb_nc_choice none;
  cb_nc_tune(&nonic, 16, 2, &c);
  ok(cb_nc_pick(&c, CB_MOP_ALLREDUCE, 1 << 20, CB_FLOAT, CB_SUM, -1, NULL, &none) < 0,
     "no NICs: nothing predicted across nodes");

  hw.sharp = 1;
  cb_nc_tune(&hw, 16, 2, &c);
  /* CollNetDirect: 8 x 48 bus, GPU/NIC factor 1, x .85 (Hopper), x .5;
   * latency 2 (3.7 + 7 x 0.4) + 31 */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_COLLNET_DIRECT][CB_NC_SIMPLE], 384 * .85 * .5, "CND bw");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_COLLNET_DIRECT][CB_NC_SIMPLE], 44.0, "CND latency 44 us");
  /* CollNetChain: 8 x 48 x .5; latency 2 x 7 x 2.8 + 30 */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_COLLNET_CHAIN][CB_NC_SIMPLE], 192, "CollNetChain bw 192");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_COLLNET_CHAIN][CB_NC_SIMPLE], 69.2, "CNC latency 69.2 us");
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_COLLNET_CHAIN][CB_NC_LL] == 0, "CollNet: Simple only");
  /* NVLS across nodes with SHARP: min(59.5, 48) x 8, x 16/30; latency 25 + 18 */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_NVLS][CB_NC_SIMPLE], 48 * 8 * 16.0 / 30, "NVLS+SHARP bw");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_NVLS][CB_NC_SIMPLE], 43.0, "NVLS+SHARP latency 43 us");
}

static void test_pat(void) {
  /* one GPU per node on 4 nodes: PAT for allgather/reducescatter */
  struct cb_nc_hw hw = h100();
  struct cb_nc_comm c;
  cb_nc_tune(&hw, 4, 4, &c);
  /* 8 x 48 x .75, no ratio; latency 8 + log2(4) x 14 / 3.5 + 4 x 2.8 */
  near(c.bw[CB_MOP_ALLGATHER][CB_NC_PAT][CB_NC_SIMPLE], 288, "PAT allgather bw 288");
  near(c.lat[CB_MOP_ALLGATHER][CB_NC_PAT][CB_NC_SIMPLE], 27.2, "PAT latency 27.2 us");
  ok(c.bw[CB_MOP_ALLGATHER][CB_NC_PAT][CB_NC_LL] == 0, "PAT: Simple only");
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_PAT][CB_NC_SIMPLE] == 0, "no PAT allreduce");
  struct cb_nc_choice ch;
  cb_nc_pick(&c, CB_MOP_ALLGATHER, 1 << 20, CB_FLOAT, CB_SUM, -1, NULL, &ch);
  ok(ch.algo == CB_NC_PAT, "allgather 1 MiB, 1 GPU per node: PAT");
  cb_nc_tune(&hw, 32, 4, &c);
  ok(c.bw[CB_MOP_ALLGATHER][CB_NC_PAT][CB_NC_SIMPLE] == 0, "8 GPUs per node: no PAT");
}

static void test_pcie(void) {
  /* no NVLink: PCIe Gen5 48 GB/s, PCIe latencies, no LL128 */
  struct cb_nc_hw hw = h100();
  hw.nvlink_gen = 0, hw.nvswitch = hw.nvls = 0;
  struct cb_nc_comm c;
  cb_nc_tune(&hw, 8, 1, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] == 0, "PCIe only: LL128 off");
  /* 48 GB/s total: 40 x 1, 30 x 1, 24 x 2 = 48 the best (24/40 > .49), not duplicated
   * (under 25); 8.4 + 14 x 5.7 */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_SIMPLE], 48.0 * 8 / 14, "PCIe ring bw 48 bus");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_SIMPLE], 8.4 + 14 * 5.7, "PCIe ring latency");
}

static void test_fit(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_comm c;
  cb_nc_tune(&hw, 8, 1, &c);
  /* points made with bandwidth x 0.9 and latency x 1.3 for NVLS and Ring/Simple */
  struct cb_nc_cal truth;
  cb_nc_cal_identity(&truth);
  truth.bw[CB_NC_NVLS][CB_NC_SIMPLE] = 0.9, truth.lat[CB_NC_NVLS][CB_NC_SIMPLE] = 1.3;
  truth.bw[CB_NC_RING][CB_NC_SIMPLE] = 1.05;
  struct cb_nc_point pts[32];
  int n = 0;
  for (double b = 1 << 20; b <= GiB16; b *= 8) {
    pts[n++] = (struct cb_nc_point){
        CB_MOP_ALLREDUCE, 8,      1,
        CB_FLOAT,         CB_SUM, CB_NC_NVLS,
        CB_NC_SIMPLE,     b,      cb_nc_time(&c, 0, CB_NC_NVLS, CB_NC_SIMPLE, b, &truth)};
  }
  /* one size only, algorithm not recorded (an nccl-tests import): NCCL's pick at 1 GiB is
   * NVLS... so force Ring as NCCL_ALGO=Ring records would */
  pts[n++] = (struct cb_nc_point){CB_MOP_ALLREDUCE,
                                  8,
                                  1,
                                  CB_FLOAT,
                                  CB_SUM,
                                  CB_NC_RING,
                                  -1,
                                  1 << 30,
                                  cb_nc_time(&c, 0, CB_NC_RING, CB_NC_SIMPLE, 1 << 30, &truth)};
  struct cb_nc_cal cal;
  ok(cb_nc_fit(&hw, pts, n, &cal) == 2, "fit: two algorithm/protocol pairs");
  near(cal.bw[CB_NC_NVLS][CB_NC_SIMPLE], 0.9, "NVLS bandwidth factor 0.9 recovered");
  near(cal.lat[CB_NC_NVLS][CB_NC_SIMPLE], 1.3, "NVLS latency factor 1.3 recovered");
  near(cal.bw[CB_NC_RING][CB_NC_SIMPLE], 1.05, "Ring, one size: bandwidth 1.05, latency kept");
  ok(cal.lat[CB_NC_RING][CB_NC_SIMPLE] == 1 && cal.fitted[CB_NC_TREE][CB_NC_LL] == 0,
     "... latency factor 1, unfitted pairs untouched");
  struct cb_nc_choice ch, raw;
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, CB_FLOAT, CB_SUM, -1, &cal, &ch);
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, CB_FLOAT, CB_SUM, -1, NULL, &raw);
  ok(ch.algo == raw.algo && ch.proto == raw.proto && ch.time_s > raw.time_s,
     "the calibration changes the time, not NCCL's pick");
}

static double per_bucket(const void *ctx, int ngpus, double bytes) {
  (void)ngpus;
  return bytes * *(const double *)ctx;
}

static double none(const void *ctx, int ngpus, double bytes) {
  (void)ctx, (void)ngpus, (void)bytes;
  return NAN;
}

/* a training step's buckets at a given allreduce time (NCCL's, in --predict) */
static void test_step_hook(void) {
  struct cb_system sys = {.ranks_per_node = 8}; /* no tiers: only the hook can cost */
  double s_per_byte = 1e-9;
  struct cb_step_opts o = {1, NULL, 0, per_bucket, &s_per_byte};
  struct cb_step_result r;
  /* 100 MB in 4 buckets of 25 MB at 1 ns/B: 25 ms each, 100 ms in all; the last
   * bucket's 25 ms is exposed after 1 s of compute */
  ok(cb_model_step(&sys, 8, 1.0, 100e6, 25e6, &o, &r) == 0, "step costed through the hook");
  near(r.comm_s, 0.1, "comm = 4 x 25 ms");
  near(r.exposed_s, 0.025, "exposed: the last bucket, 25 ms");
  o.allreduce_s = none;
  ok(cb_model_step(&sys, 8, 1.0, 100e6, 25e6, &o, &r) == -1, "NaN from the hook: no prediction");
}

/* issue 43: the data in NCCL's pick (enqueue.cc, device.h at v2.28.9-1):
 * NVLS reduces only ncclNvlsSupported's pairs; all-gather moves bytes; an
 * fp8 ring past 8 ranks costs x1024 in the choice alone; fp8 reductions
 * need sm90. */
static void test_data(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_comm c;
  struct cb_nc_choice ch;
  cb_nc_tune(&hw, 8, 1, &c);
  /* without NVLS, 16 GiB on 8 H100: Ring/Simple 56 + b / 205.7 beats LL128's
   * 40.6 + b / 189.3 and Tree's b / 165.6 */
  double ring = (56.0 + GiB16 / (1000 * 360.0 * 8 / 14)) * 1e-6;
  static const struct {
    int dtype, redop, nvls;
    const char *what;
  } pairs[] = {{CB_FLOAT, CB_SUM, 1, "float sum"},      {CB_FLOAT, CB_MAX, 0, "float max"},
               {CB_DOUBLE, CB_SUM, 1, "double sum"},    {CB_DOUBLE, CB_MIN, 0, "double min"},
               {CB_HALF, CB_MAX, 1, "half max"},        {CB_BFLOAT16, CB_MIN, 1, "bfloat16 min"},
               {CB_INT32, CB_SUM, 1, "int32 sum"},      {CB_INT64, CB_MAX, 1, "int64 max"},
               {CB_INT32, CB_PROD, 0, "int32 prod"},    {CB_INT8, CB_SUM, 0, "int8 sum"},
               {CB_FP8_E4M3, CB_SUM, 0, "fp8 e4m3 sum"}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
    cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, pairs[i].dtype, pairs[i].redop, -1, NULL, &ch);
    if (pairs[i].nvls)
      ok(ch.algo == CB_NC_NVLS, "8 H100, 16 GiB %s: NVLS reduces it", pairs[i].what);
    else
      ok(ch.algo == CB_NC_RING && ch.proto == CB_NC_SIMPLE && fabs(ch.time_s - ring) < 1e-9,
         "8 H100, 16 GiB %s: NVLS does not reduce it, Ring/Simple", pairs[i].what);
  }
  ok(cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, CB_INT8, CB_SUM, CB_NC_NVLS, NULL, &ch) < 0,
     "NCCL_ALGO=NVLS with int8: nothing applies");
  cb_nc_pick(&c, CB_MOP_REDUCESCATTER, GiB16, CB_INT8, CB_SUM, -1, NULL, &ch);
  ok(ch.algo != CB_NC_NVLS, "reduce-scatter of int8: no NVLS either");
  struct cb_nc_choice f;
  cb_nc_pick(&c, CB_MOP_ALLGATHER, GiB16, CB_FLOAT, CB_SUM, -1, NULL, &f);
  cb_nc_pick(&c, CB_MOP_ALLGATHER, GiB16, CB_INT8, CB_SUM, -1, NULL, &ch);
  ok(ch.algo == f.algo && ch.proto == f.proto && ch.time_s == f.time_s &&
         cb_nc_pick(&c, CB_MOP_ALLGATHER, GiB16, CB_INT8, CB_SUM, CB_NC_NVLS, NULL, &ch) >= 0,
     "all-gather moves bytes: the same pick for int8 as for float, NVLS on for both");

  /* fp8 on 16 H100 (2 nodes): Ring's time x1024 for the choice, so Tree
   * (NVLS and NVLSTree do not reduce fp8); its time is Tree's own */
  cb_nc_tune(&hw, 16, 2, &c);
  struct cb_nc_choice fl;
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, CB_INT8, CB_SUM, -1, NULL, &fl);
  ok(fl.algo == CB_NC_RING, "16 H100, 16 GiB int8: Ring");
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, CB_FP8_E5M2, CB_SUM, -1, NULL, &ch);
  ok(ch.algo == CB_NC_TREE, "... fp8 e5m2: Tree, as Ring x 1024 is shunned");
  near(ch.time_s, cb_nc_time(&c, CB_MOP_ALLREDUCE, CB_NC_TREE, ch.proto, GiB16, NULL),
       "... at Tree's own time");
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, CB_FP8_E5M2, CB_SUM, CB_NC_RING, NULL, &ch);
  near(ch.time_s, fl.time_s, "NCCL_ALGO=Ring on fp8: the ring's time, not x 1024");
  cb_nc_tune(&hw, 8, 1, &c);
  cb_nc_pick(&c, CB_MOP_ALLREDUCE, GiB16, CB_FP8_E4M3, CB_SUM, -1, NULL, &ch);
  ok(ch.algo == CB_NC_RING, "fp8 on 8 ranks: Ring (the penalty starts past 8)");

  struct cb_nc_hw a100 = hw;
  a100.arch = CB_NC_AMPERE, a100.nvlink_gen = 3, a100.nvlink_links = 12, a100.nvls = 0;
  cb_nc_tune(&a100, 8, 1, &c);
  ok(cb_nc_pick(&c, CB_MOP_ALLREDUCE, 1 << 20, CB_FP8_E4M3, CB_SUM, -1, NULL, &ch) < 0 &&
         cb_nc_refused(&c, CB_MOP_ALLREDUCE, CB_FP8_E4M3),
     "A100: fp8 all-reduce refused (sm90 and later)");
  ok(cb_nc_pick(&c, CB_MOP_ALLGATHER, 1 << 20, CB_FP8_E4M3, CB_SUM, -1, NULL, &ch) >= 0 &&
         !cb_nc_refused(&c, CB_MOP_ALLGATHER, CB_FP8_E4M3),
     "... fp8 all-gather runs (bytes)");
}

/* issue 43: rules NCCL reads off the compute capability (topo.h,
 * search.cc at v2.28.9-1), worked by hand from the Ampere speed list
 * 40, 30, 20, 18, ... (search stops below .49 of the best) */
static void test_cc(void) {
  /* an NVLink-bridged pair of sm86 GPUs (A40): 4 links of 12 GB/s = 48:
   * 1 x 40 (2 x 20 is no more; 18 is under .49 of 40), duplicated
   * (one channel, not over 4): 2 x 20 = 40 GB/s of ring */
  struct cb_nc_hw pair = {.arch = CB_NC_AMPERE,
                          .gpus_per_node = 2,
                          .nvlink_gen = 3,
                          .nvlink_links = 4,
                          .pcie_gen = 4,
                          .cc = 86};
  struct cb_nc_graph g[CB_NC_NALGOS];
  cb_nc_graphs(&pair, 1, g);
  ok(g[CB_NC_RING].nch == 2 && g[CB_NC_RING].bw_intra == 20,
     "sm86 pair, 4 NVLinks of 12 GB/s: ring 2 x 20 (%d x %g)", g[CB_NC_RING].nch,
     g[CB_NC_RING].bw_intra);
  pair.cc = 80; /* the same links at sm80's 20 GB/s: 80 total, 2 x 40 doubled to 4 x 20 */
  cb_nc_graphs(&pair, 1, g);
  ok(g[CB_NC_RING].nch == 4 && g[CB_NC_RING].bw_intra == 20,
     "... at 8.0's 20 GB/s a link: 4 x 20 (%d x %g)", g[CB_NC_RING].nch, g[CB_NC_RING].bw_intra);
  /* ncclTopoDupChannels skips ccMin > 80 under 50 GB/s over 4 channels.
   * 17 links at 8.6 = 204: 5 x 40 = 200 (6 x 30, 10 x 20 no more; 18 is
   * under .49 of 40), kept; 10 links at 8.0 = 200: the same 5 x 40,
   * duplicated to 10 x 20 */
  struct cb_nc_hw wide = pair;
  wide.nvlink_links = 17, wide.gpus_per_node = 8, wide.nvswitch = 1, wide.cc = 86;
  cb_nc_graphs(&wide, 1, g);
  ok(g[CB_NC_RING].nch == 5 && g[CB_NC_RING].bw_intra == 40,
     "8.6, 204 GB/s: 5 x 40, not duplicated (%d x %g)", g[CB_NC_RING].nch, g[CB_NC_RING].bw_intra);
  wide.nvlink_links = 10, wide.cc = 80;
  cb_nc_graphs(&wide, 1, g);
  ok(g[CB_NC_RING].nch == 10 && g[CB_NC_RING].bw_intra == 20,
     "8.0, 200 GB/s: 5 x 40 duplicated to 10 x 20 (%d x %g)", g[CB_NC_RING].nch,
     g[CB_NC_RING].bw_intra);
}

/* issue 43: NVLink bridged in pairs (H100 NVL): a ring over 4 GPUs crosses
 * PCIe between pairs, so NCCL's search finds PCIe's speed and path type */
static void test_bridged(void) {
  struct cb_nc_hw hw = h100();
  hw.nvswitch = hw.nvls = 0, hw.nvlink_peers = 1, hw.nvlink_links = 12, hw.nics_per_node = 0;
  struct cb_nc_comm c;
  cb_nc_tune(&hw, 4, 1, &c);
  /* as test_pcie: Gen5's 48 GB/s, 2 x 24, not duplicated; 4 ranks: 6 steps */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_SIMPLE], 48.0 * 4 / 6, "pairs, 4 GPUs: PCIe ring");
  near(c.lat[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_SIMPLE], 8.4 + 6 * 5.7, "... PCIe latencies");
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] == 0, "... no LL128 (not NVLink)");
  cb_nc_tune(&hw, 2, 1, &c);
  /* one pair: 12 x 20.6 = 247.2 over NVLink: 4 x 60 = 240 (Hopper list), dup'd 8 x 30 */
  near(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_SIMPLE], 240.0 * 2 / 2,
       "one pair: NVLink ring 240");
  ok(cb_nc_over_pcie(&hw, 3) && !cb_nc_over_pcie(&hw, 2), "pairs: over PCIe past 2 GPUs only");
  hw.nvlink_peers = 4; /* a mesh (DGX-1) */
  ok(!cb_nc_over_pcie(&hw, 8), "a mesh: NVLink rings through every GPU");
  hw.nvlink_gen = 0;
  ok(cb_nc_over_pcie(&hw, 2), "no NVLink: PCIe even for two");
  struct cb_nc_hw sw = h100();
  ok(!cb_nc_over_pcie(&sw, 8), "NVSwitch: never");
}

static void test_names(void) {
  ok(cb_nc_algo_find("NVLSTree") == CB_NC_NVLS_TREE &&
         cb_nc_algo_find("NVLS_TREE") == CB_NC_NVLS_TREE &&
         cb_nc_algo_find("CollnetDirect") == CB_NC_COLLNET_DIRECT &&
         cb_nc_algo_find("ring") == CB_NC_RING,
     "algorithm names as collbench records them and as NCCL's log spells them");
  ok(cb_nc_algo_find("Bogus") == -1 && cb_nc_proto_find("SIMPLE") == CB_NC_SIMPLE,
     "... and protocols");
}

/* issue 58, NCCL v2.28.9-1 where the model followed it less: LL128 with
 * one GPU a node (typeIntra PATH_LOC, tuning.cc:491, search.cc:1000) even
 * without NVLink; two over PCIe, none. */
static void test_ll128_one_gpu(void) {
  struct cb_nc_hw hw = h100();
  hw.nvlink_gen = 0, hw.nvswitch = hw.nvls = 0, hw.gpus_per_node = 1, hw.nics_per_node = 1;
  struct cb_nc_comm c;
  cb_nc_tune(&hw, 4, 4, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] > 0,
     "one GPU a node over PCIe, 4 nodes: LL128 on (typeIntra LOC)");
  cb_nc_tune(&hw, 8, 4, &c);
  ok(c.bw[CB_MOP_ALLREDUCE][CB_NC_RING][CB_NC_LL128] == 0,
     "two GPUs a node over PCIe: LL128 off (typeIntra PHB or PXB)");
}

/* connect.cc:452-491: comm->nChannels, which the ring's plateau rule reads */
static void test_postset_channels(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_graph g[CB_NC_NALGOS];
  struct cb_nc_comm c;
  cb_nc_graphs(&hw, 2, g);
  g[CB_NC_RING].nch = g[CB_NC_TREE].nch = 4;
  g[CB_NC_RING].bw_intra = 48;
  cb_nc_tune_graphs(&hw, 16, 2, g, &c);
  ok(c.ring_nch == 16, "Hopper, 2 nodes, ring bwIntra 48 > 45, 4 channels: doubled twice, 16 (%d)",
     c.ring_nch);
  cb_nc_tune_graphs(&hw, 8, 1, g, &c);
  ok(c.ring_nch == 8, "one node: doubled once, 8 (%d)", c.ring_nch);
  g[CB_NC_RING].bw_intra = 40;
  cb_nc_tune_graphs(&hw, 16, 2, g, &c);
  ok(c.ring_nch == 8, "bwIntra 40, not over 45: 8 (%d)", c.ring_nch);
  hw.fabric = CB_NC_FABRIC_TCPX;
  cb_nc_tune_graphs(&hw, 16, 2, g, &c);
  ok(c.ring_nch == 16, "GPUDirect-TCPX's unpack device: doubled again, 16 (%d)", c.ring_nch);
  hw.fabric = CB_NC_FABRIC_IB, hw.sharp = 1;
  g[CB_NC_COLLNET_CHAIN].bw_intra = 40, g[CB_NC_COLLNET_CHAIN].bw_inter = 20;
  cb_nc_tune_graphs(&hw, 16, 2, g, &c);
  ok(c.ring_nch == 12, "CollNet, the chain's intra over its inter: 8 + 4, 12 (%d)", c.ring_nch);
  cb_nc_tune_graphs(&hw, 2, 2, g, &c);
  ok(c.ring_nch == 8, "... but not with one GPU a node: 8 (%d)", c.ring_nch);
}

/* tuning.cc:202-209: PAT needs a host network device */
static void test_pat_unpack(void) {
  struct cb_nc_hw hw = h100();
  struct cb_nc_comm c;
  hw.fabric = CB_NC_FABRIC_TCPX;
  cb_nc_tune(&hw, 4, 4, &c);
  ok(c.bw[CB_MOP_ALLGATHER][CB_NC_PAT][CB_NC_SIMPLE] == 0,
     "one GPU a node over GPUDirect-TCPX (unpack device): no PAT");
  hw.fabric = CB_NC_FABRIC_IB;
  cb_nc_tune(&hw, 4, 4, &c);
  ok(c.bw[CB_MOP_ALLGATHER][CB_NC_PAT][CB_NC_SIMPLE] > 0, "over InfiniBand: PAT");
}

int main(void) {
  test_names();
  test_step_hook();
  test_graphs();
  test_ring();
  test_tree();
  test_ll128_nic_path();
  test_ll128_mixed_cc();
  test_nvls();
  test_data();
  test_cc();
  test_bridged();
  test_multinode();
  test_pat();
  test_ll128_one_gpu();
  test_postset_channels();
  test_pat_unpack();
  test_pcie();
  test_fit();
  done_testing();
  return exit_status();
}
