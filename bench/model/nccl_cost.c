/* NCCL 2.28's cost model in collbench's own code (nccl_cost.h). Every
 * constant below is NCCL's, at tag v2.28.9-1, and cites where it lives;
 * the graph approximation (cb_nc_graphs) is ours and says so. */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "base/dtype.h"
#include "nccl_cost.h"

const char *const cb_nc_algo_names[CB_NC_NALGOS] = {
    "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
const char *const cb_nc_proto_names[CB_NC_NPROTOS] = {"LL", "LL128", "Simple"};
const char *const cb_nc_arch_names[CB_NC_NARCHS] = {"volta", "ampere", "hopper", "blackwell"};

int cb_nc_algo_find(const char *name) {
  char plain[32]; /* NCCL's log spells NVLS_TREE, COLLNET_DIRECT: drop the '_' */
  size_t n = 0;
  for (const char *c = name; *c && n + 1 < sizeof plain; c++)
    if (*c != '_')
      plain[n++] = *c;
  plain[n] = '\0';
  for (int a = 0; a < CB_NC_NALGOS; a++)
    if (strcasecmp(plain, cb_nc_algo_names[a]) == 0)
      return a;
  return -1;
}

int cb_nc_fabric_of(const char *kind) {
  static const struct {
    const char *prefix;
    int fabric;
  } kinds[] = {{"ib", CB_NC_FABRIC_IB},     {"infiniband", CB_NC_FABRIC_IB},
               {"roce", CB_NC_FABRIC_ROCE}, {"efa", CB_NC_FABRIC_EFA},
               {"tcpx", CB_NC_FABRIC_TCPX}, {"fastrak", CB_NC_FABRIC_TCPX},
               {"tcp", CB_NC_FABRIC_TCP},   {"eth", CB_NC_FABRIC_TCP}};
  for (size_t i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++)
    if (strncasecmp(kind, kinds[i].prefix, strlen(kinds[i].prefix)) == 0)
      return kinds[i].fabric;
  return CB_NC_FABRIC_OTHER;
}

int cb_nc_proto_find(const char *name) {
  for (int p = 0; p < CB_NC_NPROTOS; p++)
    if (strcasecmp(name, cb_nc_proto_names[p]) == 0)
      return p;
  return -1;
}

/* ---- NCCL's constants ---- */

enum { HW_NVLINK, HW_PCI, HW_NET, NHW };

/* tuning.cc: ncclTunerConstantsDefaults.baseLatencies (us) */
static const double base_lat[CB_NC_NALGOS][CB_NC_NPROTOS] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0},      {0, 0, 0},
    {0, 0, 0},        {0, 0, 0},        {8.0, 8.0, 8.0}};

/* tuning.cc: ncclTunerConstantsDefaults.hwLatencies (us per hop) */
static const double hw_lat[NHW][CB_NC_NALGOS][CB_NC_NPROTOS] = {
    /* NVLink */
    {{.6, 1.25, 4.0},
     {.6, 1.9, 3.4},
     {0, 0, 3.7},
     {0, 0, 2.8},
     {0, 0, 25},
     {0, 0, 25},
     {0, 0, 4.0}},
    /* PCIe */
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
    /* network */
    {{5.0, 8.5, 14},
     {2.7, 4.0, 14.0},
     {0, 0, 31},
     {0, 0, 30},
     {0, 0, 18},
     {0, 0, 20.9},
     {0, 0, 14}},
};

/* tuning.cc: llMaxBws [single node: arch | multi-node: 0 Intel, 1 AMD][1, 2, >2 nodes] */
static const double ll_max_bw[CB_NC_NARCHS][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
/* tuning.cc: perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws,
 * perChMaxNVLSTreeBws [arch][1, 2, >2 nodes] (GB/s per channel) */
static const double ring_ll128_ch[CB_NC_NARCHS][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {2 * 36.7, 34.6, 2 * 36.7}};
static const double tree_ll128_ch[CB_NC_NARCHS][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
static const double tree_ch[CB_NC_NARCHS][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
static const double nvlstree_ch[CB_NC_NARCHS][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}};
/* tuning.cc: nvlsEfficiency */
static const double nvls_eff[CB_NC_NARCHS] = {0, 0, .85, .74};

/* tuning.cc: treeCorrectionFactor [proto][log2(bytes / 64)], 64 B to 256 MiB */
static const double tree_corr[CB_NC_NPROTOS][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

/* graph.h: SM60/70/80/90/100_NVLINK_BW, GB/s per link, by NVLink generation 1..5 */
static const double nvlink_link_bw[6] = {0, 18.0, 20.0, 20.0, 20.6, 40.1};

/* search.cc: speedArrayIntra/Inter, sm90SpeedArray*, sm100SpeedArray* (GB/s
 * per channel the search tries, fastest first); 0 ends each list */
static const double speed_intra[3][14] = {
    {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 0},
    {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0, 0},
    {90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0, 0}};
static const double speed_inter[3][20] = {{48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0,
                                           12.0, 10.0, 9.0,  7.0,  6.0,  5.0,  4.0,
                                           3.0,  2.4,  1.2,  0.24, 0.12, 0},
                                          {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                           15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12, 0},
                                          {96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0,
                                           17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12, 0}};

#define MAX_CHANNELS 32    /* search: ring and tree graphs, MAXCHANNELS/2 */
#define MAX_NVLS_ARITY 32  /* device.h: NCCL_MAX_NVLS_ARITY */
#define MAX_DIRECT_ARITY 7 /* device.h: NCCL_MAX_DIRECT_ARITY */

static int log2i(long n) {
  int l = -1;
  while (n > 0)
    n >>= 1, l++;
  return l;
}

static const double *speeds(int arch, int inter) {
  int k = arch >= CB_NC_BLACKWELL ? 2 : arch == CB_NC_HOPPER ? 1 : 0;
  return inter ? speed_inter[k] : speed_intra[k];
}

/* The compute capability NCCL's rules read (x 10). */
static int cc_of(const struct cb_nc_hw *hw) {
  static const int first[CB_NC_NARCHS] = {70, 80, 90, 100};
  return hw->cc > 0 ? hw->cc : first[hw->arch];
}

/* NCCL reads a x16 link's width and speed: Gen3 12 GB/s (graph.h PCI_BW),
 * doubling per generation (a Gen5 x16 GPU shows PCI[48.0] in NCCL's log). */
static double pcie_bw(int gen) {
  return gen <= 3 ? 12.0 : 12.0 * (1 << (gen - 3));
}

/* ---- the graphs (our approximation of search.cc) ----
 *
 * NCCL searches the real PCI/NVLink tree for channels; here a node is its
 * figures. Per GPU the NVLink total is links x per-link bandwidth (H100:
 * 18 x 20.6 = 370.8, NCCL's own figure), through NVSwitch; without NVLink
 * a GPU's PCIe x16 link. Ring and tree, one node: the speed s and channel
 * count n (n s within the NVLink total) of greatest n s, the search trying
 * speeds downwards while the next is over .49 of the best found, then
 * ncclTopoDupChannels. Across nodes each channel enters and leaves the node
 * through a NIC (speed at most the NIC's and its PCIe link's rate), n s
 * (g-1)/g within the NVLink total; trees on two nodes may raise the
 * intra-node speed up to twice the inter-node one (search pass 2). NVLS:
 * one channel per GPU (a head; across nodes, per NIC), each head's GPU
 * carrying twice: (n+1) s within the NVLink total (ncclTopoSearchTryNvls),
 * its inter speed raised in pass 2. CollNet uses the tree's graph, PAT the
 * ring's. */
static void ring_graph(const struct cb_nc_hw *hw, int nnodes, double total, struct cb_nc_graph *g) {
  int g1 = hw->gpus_per_node;
  int inter = nnodes > 1;
  const double *sp = speeds(hw->arch, inter);
  double nic = fmin(hw->nic_GBps, pcie_bw(hw->pcie_gen));
  double maxbw = inter ? nic : total;
  /* intra-node traffic per channel per GPU: all of it on one node, (g-1)/g across */
  double share = inter && g1 > 0 ? (double)(g1 - 1) / g1 : 1;
  int best_n = 0;
  double best_s = 0;
  for (int i = 0; sp[i] > 0; i++) {
    double s = sp[i];
    if (s > maxbw + 1e-9)
      continue;
    if (best_n && s / best_s <= .49)
      break;
    int n = inter ? hw->nics_per_node * (int)floor(nic / s + 1e-9) : (int)floor(total / s + 1e-9);
    if (share > 0)
      while (n > 0 && n * s * share > total + 1e-9)
        n--;
    if (n > MAX_CHANNELS)
      n = MAX_CHANNELS;
    if (n > 0 && n * s > best_n * best_s + 1e-9)
      best_n = n, best_s = s;
  }
  if (!best_n) /* search.cc: nothing found, a simple order at 0.1 GB/s */
    best_n = 1, best_s = 0.1;
  g->nch = best_n;
  g->bw_intra = g->bw_inter = best_s;
  /* search.cc: ncclTopoDupChannels (ccMin > 80: 8.6 and 8.9 too) */
  if (best_s >= 25.0 && !(cc_of(hw) > 80 && best_s < 50.0 && best_n > 4)) {
    int dup = best_n * 2 < MAX_CHANNELS ? best_n * 2 : MAX_CHANNELS;
    int div = (dup + best_n - 1) / best_n;
    g->nch = dup, g->bw_intra /= div, g->bw_inter /= div;
  }
}

/* NVLink bridged in pairs: a ring or tree through more than two GPUs
 * crosses PCIe between pairs, and NCCL's search takes the slowest hop's
 * speed and path type (PCIe latencies, no LL128). A mesh (2 peers or
 * more: DGX-1's hybrid cube) has NVLink rings through every GPU: its
 * link total stands. */
int cb_nc_over_pcie(const struct cb_nc_hw *hw, int per_node) {
  return !hw->nvlink_gen || (!hw->nvswitch && hw->nvlink_peers == 1 && per_node > 2);
}

void cb_nc_graphs(const struct cb_nc_hw *hw, int nnodes, struct cb_nc_graph g[CB_NC_NALGOS]) {
  memset(g, 0, CB_NC_NALGOS * sizeof *g);
  int nvl = !cb_nc_over_pcie(hw, hw->gpus_per_node);
  int gen = hw->nvlink_gen > 5 ? 5 : hw->nvlink_gen;
  /* topo.h: ncclTopoNVLinkBw reads the compute capability: sm86's is 12 GB/s */
  double link = cc_of(hw) == 86 ? 12.0 : nvlink_link_bw[gen];
  double total = nvl ? hw->nvlink_links * link : pcie_bw(hw->pcie_gen);
  ring_graph(hw, nnodes, total, &g[CB_NC_RING]);
  g[CB_NC_TREE] = g[CB_NC_RING];
  if (nnodes >= 2) { /* search pass 2: raise a tree's intra speed, up to 2x inter */
    const double *sp = speeds(hw->arch, 1);
    struct cb_nc_graph *t = &g[CB_NC_TREE];
    double share = hw->gpus_per_node > 0 ? (hw->gpus_per_node - 1.0) / hw->gpus_per_node : 1;
    int i = 0;
    while (sp[i + 1] > 0 && sp[i] > t->bw_intra + 1e-9)
      i++;
    while (i > 0 && t->bw_intra < 2 * t->bw_inter && t->nch * sp[i - 1] * share <= total + 1e-9)
      t->bw_intra = sp[--i];
  }
  /* search.cc: one GPU per node searches the plain TREE pattern.
   * ncclTopoCompute searches with sameChannels = 1 first (0 only for NVLS)
   * and keeps it when that pass finds the optimal graph or totalBw, as it
   * does on the uniform NVLink and NVSwitch nodes modelled here; only a
   * pass that falls short tries different channels. */
  g[CB_NC_RING].pattern = CB_NC_PATTERN_RING;
  g[CB_NC_TREE].pattern = hw->gpus_per_node == 1 ? CB_NC_PATTERN_TREE : CB_NC_PATTERN_BALANCED_TREE;
  g[CB_NC_RING].same_channels = g[CB_NC_TREE].same_channels = 1;
  /* init.cc: CollNet has graphs of its own (approximated by the tree's); PAT runs
   * on the tree's graph */
  g[CB_NC_COLLNET_DIRECT] = g[CB_NC_COLLNET_CHAIN] = g[CB_NC_TREE];
  g[CB_NC_PAT] = g[CB_NC_TREE];
  if (hw->nvls && hw->nvswitch && nvl && hw->arch >= CB_NC_HOPPER && hw->gpus_per_node > 1) {
    int heads = hw->gpus_per_node < MAX_NVLS_ARITY ? hw->gpus_per_node : MAX_NVLS_ARITY;
    if (nnodes > 1 && hw->nics_per_node < heads)
      heads = hw->nics_per_node;
    const double *sp = speeds(hw->arch, nnodes > 1);
    int i = 0;
    while (sp[i] > 0 && (heads + 1) * sp[i] > total + 1e-9)
      i++;
    if (heads >= 1 && sp[i] > 0) {
      struct cb_nc_graph *v = &g[CB_NC_NVLS];
      v->nch = heads, v->bw_intra = v->bw_inter = sp[i];
      /* pass 2 raises the inter speed while under twice the intra one; on
       * one node nothing bounds it, across nodes the NIC does */
      double cap = nnodes > 1 ? fmin(hw->nic_GBps, pcie_bw(hw->pcie_gen)) : INFINITY;
      while (i > 0 && v->bw_inter < 2 * v->bw_intra && sp[i - 1] <= cap + 1e-9)
        v->bw_inter = sp[--i];
      v->nvl = 1;
      g[CB_NC_NVLS_TREE] = *v;
    }
  }
  for (int a = 0; a < CB_NC_NVLS; a++)
    g[a].nvl = nvl;
  g[CB_NC_PAT].nvl = nvl;
}

/* ---- ncclTopoTuneModel (tuning.cc) ---- */

static int nccl_func_steps(int op, int n) {
  return op == CB_MOP_ALLREDUCE                                 ? 2 * (n - 1)
         : op == CB_MOP_REDUCESCATTER || op == CB_MOP_ALLGATHER ? n - 1
                                                                : n;
}

/* Whether tuning.cc's loop computes (op, algo, proto) at all. */
static int considered(int op, int a, int p, int pat) {
  int agrs = op == CB_MOP_REDUCESCATTER || op == CB_MOP_ALLGATHER;
  if (op == CB_MOP_ALLTOALL) /* NCCL runs it as point-to-point */
    return 0;
  if (op == CB_MOP_BROADCAST && a != CB_NC_RING)
    return 0;
  if (agrs && a != CB_NC_PAT && a != CB_NC_RING && a != CB_NC_NVLS && a != CB_NC_COLLNET_DIRECT)
    return 0;
  if (op == CB_MOP_ALLREDUCE && a == CB_NC_PAT)
    return 0;
  if ((a == CB_NC_NVLS || a == CB_NC_NVLS_TREE) && p != CB_NC_SIMPLE)
    return 0;
  if (agrs && a == CB_NC_PAT && (p != CB_NC_SIMPLE || !pat))
    return 0;
  return 1;
}

static double busbw_of(const struct cb_nc_hw *hw, const struct cb_nc_comm *c, int op, int a, int p,
                       double ppn, int idx1, int idx2) {
  const struct cb_nc_graph *g = &c->g[a];
  int arch = c->arch, nnodes = c->nnodes;
  int collnet = a == CB_NC_COLLNET_DIRECT || a == CB_NC_COLLNET_CHAIN;
  int agrs = op == CB_MOP_REDUCESCATTER || op == CB_MOP_ALLGATHER;
  if (g->nch == 0)
    return 0;
  double bw = nnodes <= 2 || collnet ? g->bw_intra : g->bw_inter;
  if (a == CB_NC_NVLS || a == CB_NC_NVLS_TREE) {
    if (g->nch < 2) /* NVLS needs two channels */
      return 0;
    double intra = g->bw_intra * nvls_eff[arch] * (g->nch - 1) / g->nch;
    intra *= op == CB_MOP_ALLREDUCE ? 2.0 : (ppn - 1) / ppn; /* allreduce pipelines two */
    double inter = g->bw_inter * (nnodes <= 2 && a == CB_NC_NVLS_TREE ? 2 : 1);
    bw = fmin(intra, inter);
    if (a == CB_NC_NVLS_TREE)
      bw = fmin(bw, nvlstree_ch[arch][idx2]);
  }
  double bus = g->nch * bw, llmax = ll_max_bw[idx1][idx2];
  if (a == CB_NC_RING && p == CB_NC_LL)
    bus = fmin(llmax, bus * .5);
  if (a == CB_NC_RING && p == CB_NC_LL128)
    bus = fmin(bus * .92, g->nch * ring_ll128_ch[arch][idx2]);
  if (a == CB_NC_TREE && op == CB_MOP_ALLREDUCE)
    bus = fmin(bus * .92, g->nch * tree_ch[arch][idx2]);
  if (a == CB_NC_TREE && p == CB_NC_LL)
    bus = fmin(bus / 3.8, llmax);
  if (a == CB_NC_TREE && p == CB_NC_LL128)
    bus = fmin(bus * (nnodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), g->nch * tree_ll128_ch[arch][idx2]);
  if (a == CB_NC_TREE && g->pattern == CB_NC_PATTERN_TREE) /* comm->maxTreePattern */
    bus *= .85;
  if (a == CB_NC_PAT)
    bus *= .75;
  if (collnet && p != CB_NC_SIMPLE)
    bus = 0;
  if (a == CB_NC_COLLNET_DIRECT && p == CB_NC_SIMPLE) {
    if (agrs)
      bus = ppn * fmin(g->bw_intra, g->bw_inter * 0.9);
    else {
      double factor = ppn / g->nch; /* GPUs per NIC */
      factor -= (factor - 1) / 2;
      bus /= factor;
      if (arch >= CB_NC_HOPPER)
        bus *= .85;
    }
  }
  /* tuning.cc: NVLS and CollNetDirect allgather/reducescatter across nodes
   * need the CollNet plugin's iallgather/ireducescatter; assumed absent */
  if ((a == CB_NC_NVLS || a == CB_NC_COLLNET_DIRECT) && agrs && nnodes > 1)
    bus = 0;
  (void)hw;
  if (!(a != CB_NC_RING && agrs)) {
    int nsteps = nccl_func_steps(op, c->nranks);
    double ratio = a == CB_NC_RING || a == CB_NC_NVLS || a == CB_NC_NVLS_TREE
                       ? (double)c->nranks / nsteps
                       : .5;
    bus *= ratio;
  }
  return bus;
}

static double latency_of(const struct cb_nc_hw *hw, const struct cb_nc_comm *c, int op, int a,
                         int p, double ppn) {
  int nnodes = c->nnodes, nranks = c->nranks;
  int intra_hw = c->g[a].nvl ? HW_NVLINK : HW_PCI, hwk = nnodes == 1 ? intra_hw : HW_NET;
  double lat = base_lat[a][p];
  double intra = hw_lat[intra_hw][a][p];
  /* with one GPU per node the network latency is all exposed: the tree's */
  double inter = ppn == 1 ? hw_lat[HW_NET][CB_NC_TREE][p] : hw_lat[HW_NET][a][p];
  int local = nranks / nnodes;
  int nsteps = nccl_func_steps(op, nranks);
  switch (a) {
  case CB_NC_RING:
    if (op == CB_MOP_BROADCAST && c->g[a].same_channels)
      lat += hw_lat[hwk][a][p];
    else if (op == CB_MOP_BROADCAST) { /* channels of different paths: each step a chunk */
      double l = p == CB_NC_SIMPLE ? hw_lat[hwk][CB_NC_TREE][p] : hw_lat[hwk][a][p];
      lat += nsteps * l;
    } else {
      double over = 0; /* getNetOverhead: Intel 1 us, AMD 2 us; Simple 3x */
      if (nnodes > 1)
        over = (hw->cpu_amd ? 2.0 : 1.0) * (p == CB_NC_SIMPLE ? 3 : 1);
      intra = fmax(intra, over);
      int ninter = nnodes == 1 ? 0 : op == CB_MOP_ALLREDUCE ? 2 * (nnodes - 1) : nnodes - 1;
      lat += (nsteps - ninter) * intra + ninter * inter;
    }
    break;
  case CB_NC_TREE:
    if (op == CB_MOP_ALLREDUCE)
      lat += 2 * ((local - 1) * intra + log2i(nnodes) * inter);
    break;
  case CB_NC_COLLNET_DIRECT: /* + 0.4 us arity serialisation */
    lat += 2 * ((local - 1 < 1 ? local - 1 : 1) * intra + (local - 1) * 0.4) + inter;
    break;
  case CB_NC_COLLNET_CHAIN: lat += 2 * (local - 1) * intra + inter; break;
  case CB_NC_NVLS:
    lat = intra;
    if (nnodes > 1)
      lat += inter;
    break;
  case CB_NC_NVLS_TREE: lat += intra + 2 * log2i(nnodes) * inter; break;
  case CB_NC_PAT:
    if (op == CB_MOP_ALLGATHER || op == CB_MOP_REDUCESCATTER)
      lat += log2i(nnodes) * (inter / 3.5) + nranks * 2.8;
    break;
  }
  return lat;
}

/* The algorithm/protocol switches of tuning.cc and enqueue.cc:
 * updateCollCostTable, for this system with NCCL's defaults (NCCL_ALGO and
 * NCCL_PROTO unset; NCCL_COLLNET_ENABLE=1 where the fabric has SHARP). */
static int enabled(const struct cb_nc_hw *hw, const struct cb_nc_comm *c, int op, int a, int p) {
  int local = c->nranks / c->nnodes, collnet = hw->sharp && c->nnodes > 1;
  if (a == CB_NC_NVLS_TREE && c->nnodes == 1)
    return 0;
  if (!collnet &&
      (a == CB_NC_COLLNET_DIRECT || a == CB_NC_COLLNET_CHAIN || (a == CB_NC_NVLS && c->nnodes > 1)))
    return 0;
  if (!hw->nvswitch && a == CB_NC_COLLNET_DIRECT)
    return 0;
  if ((a == CB_NC_COLLNET_DIRECT || a == CB_NC_COLLNET_CHAIN) && local > MAX_DIRECT_ARITY + 1)
    return 0;
  if ((a == CB_NC_NVLS || a == CB_NC_NVLS_TREE) && op != CB_MOP_ALLREDUCE && local > MAX_NVLS_ARITY)
    return 0;
  /* LL128 by default only where the intra-node path is NVLink (typeIntra
   * <= PATH_NVB) and, across nodes, the GPU-to-NIC path (typeInter) is
   * within PXN on Hopper and later (NCCL_LL128_C2C=1, the default), PXB
   * before; and only where the GPUs are of one compute capability
   * (minCompCap == maxCompCap) */
  int nic_path = hw->nic_path > 0 ? hw->nic_path : CB_NC_PATH_PXB;
  /* typeIntra <= PATH_NVB (v2.28.9-1 tuning.cc:491): NVLink, or one GPU a
   * node, whose typeIntra the search leaves at PATH_LOC (search.cc:1000) */
  if (p == CB_NC_LL128 && !c->g[a].nvl && local > 1)
    return 0;
  if (p == CB_NC_LL128 && hw->cc_max > cc_of(hw))
    return 0;
  if (p == CB_NC_LL128 && c->nnodes > 1 &&
      nic_path > (c->arch >= CB_NC_HOPPER ? CB_NC_PATH_PXN : CB_NC_PATH_PXB))
    return 0;
  return 1;
}

void cb_nc_tune(const struct cb_nc_hw *hw0, int nranks, int nnodes, struct cb_nc_comm *c) {
  struct cb_nc_hw hw = *hw0;
  struct cb_nc_graph g[CB_NC_NALGOS];
  if (nnodes < 1)
    nnodes = 1;
  hw.gpus_per_node = nranks / nnodes;
  cb_nc_graphs(&hw, nnodes, g);
  cb_nc_tune_graphs(&hw, nranks, nnodes, g, c);
}

/* comm->nChannels after ncclTopoPostset (v2.28.9-1 connect.cc:452-491),
 * from the search's nch: doubled up to MAXCHANNELS (64); with CollNet (a
 * SHARP fabric here), x1.5 where the chain's intra speed beats its inter
 * and a node has more than one GPU; on Hopper and later across nodes,
 * doubled again while the ring's bwIntra is over 45 GB/s and under 16
 * channels; with the unpack network device (GPUDirect-TCPX) across nodes,
 * doubled while under 16. NCCL_MIN/MAX_NCHANNELS and maxCTAs are left at
 * their defaults (no bound under 64). */
static int postset_channels(const struct cb_nc_hw *hw, int nranks, int nnodes,
                            const struct cb_nc_graph g[CB_NC_NALGOS], int nch) {
  nch = 2 * nch < 64 ? 2 * nch : 64;
  const struct cb_nc_graph *chain = &g[CB_NC_COLLNET_CHAIN];
  if (hw->sharp && nnodes > 1 && chain->bw_intra > chain->bw_inter && nranks > nnodes)
    nch = nch + nch / 2 < 64 ? nch + nch / 2 : 64;
  if (cc_of(hw) >= 90 && nnodes > 1 && g[CB_NC_RING].bw_intra > 45.0 && nch < 16)
    nch = 2 * nch < 64 ? 2 * nch : 64;
  if (hw->fabric == CB_NC_FABRIC_TCPX && nnodes > 1 && nch < 16)
    nch = 2 * nch < 64 ? 2 * nch : 64;
  return nch;
}

void cb_nc_tune_graphs(const struct cb_nc_hw *hw0, int nranks, int nnodes,
                       const struct cb_nc_graph g[CB_NC_NALGOS], struct cb_nc_comm *c) {
  struct cb_nc_hw hw = *hw0;
  memset(c, 0, sizeof *c);
  if (nnodes < 1)
    nnodes = 1;
  hw.gpus_per_node = nranks / nnodes;
  c->nranks = nranks, c->nnodes = nnodes, c->arch = hw.arch;
  memcpy(c->g, g, sizeof c->g);
  /* init.cc: ring and tree keep the fewer channels; connect.cc's
   * ncclTopoPostset (v2.28.9-1 connect.cc:452-491) then sets comm->nChannels,
   * which the ring's plateau rule reads */
  int nch = g[CB_NC_RING].nch < g[CB_NC_TREE].nch || !g[CB_NC_TREE].nch ? g[CB_NC_RING].nch
                                                                        : g[CB_NC_TREE].nch;
  c->ring_nch = postset_channels(&hw, nranks, nnodes, g, nch);
  if (g[CB_NC_TREE].nch)
    c->g[CB_NC_RING].nch = c->g[CB_NC_TREE].nch = nch;
  if (nranks <= 1 || (nnodes > 1 && hw.nics_per_node <= 0)) /* no NIC: nothing across nodes */
    return;
  double ppn = (double)nranks / nnodes;
  int idx2 = nnodes <= 2 ? nnodes - 1 : 2;
  int idx1 = nnodes == 1 ? hw.arch : hw.cpu_amd ? 1 : 0;
  /* PAT (v2.28.9-1 tuning.cc:202-209, ncclPatEnable): compute capability
   * 6.0 and up (every generation modelled), one GPU per node, and a host
   * network device: the unpack device of GPUDirect-TCPX offloads, so no PAT */
  int pat = nnodes == nranks && cc_of(&hw) >= 60 && hw.fabric != CB_NC_FABRIC_TCPX;
  for (int op = 0; op < CB_NMOPS; op++)
    for (int a = 0; a < CB_NC_NALGOS; a++)
      for (int p = 0; p < CB_NC_NPROTOS; p++) {
        if (!considered(op, a, p, pat) || !enabled(&hw, c, op, a, p))
          continue;
        c->bw[op][a][p] = busbw_of(&hw, c, op, a, p, ppn, idx1, idx2);
        c->lat[op][a][p] = latency_of(&hw, c, op, a, p, ppn);
      }
}

void cb_nc_cal_identity(struct cb_nc_cal *cal) {
  for (int a = 0; a < CB_NC_NALGOS; a++)
    for (int p = 0; p < CB_NC_NPROTOS; p++)
      cal->bw[a][p] = cal->lat[a][p] = 1, cal->fitted[a][p] = 0;
}

/* ncclTopoGetAlgoTime's two parts, us: latency and bytes / bandwidth. */
static int time_parts(const struct cb_nc_comm *c, int op, int a, int p, double bytes, double *lat,
                      double *xfer) {
  if (op < 0 || op >= CB_NMOPS || a < 0 || a >= CB_NC_NALGOS || p < 0 || p >= CB_NC_NPROTOS)
    return -1;
  double bw = c->bw[op][a][p], l = c->lat[op][a][p];
  if (!(bw > 0))
    return -1;
  int logsize = bytes >= 64 ? log2i((long)(bytes / 64)) : -1;
  if (a == CB_NC_TREE && op == CB_MOP_ALLREDUCE && logsize >= 0 && logsize < 23)
    bw *= tree_corr[p][logsize];
  if (a == CB_NC_RING && p == CB_NC_SIMPLE && c->nnodes > 1 && op == CB_MOP_ALLREDUCE &&
      bytes / ((double)c->ring_nch * c->nranks) >= 64)
    l *= c->arch < CB_NC_AMPERE ? 1.9 : 1.4; /* the ring's plateau */
  *lat = l;
  *xfer = bytes / (1000 * bw);
  return 0;
}

double cb_nc_time(const struct cb_nc_comm *c, int op, int a, int p, double bytes,
                  const struct cb_nc_cal *cal) {
  double lat, xfer;
  if (time_parts(c, op, a, p, bytes, &lat, &xfer))
    return NAN;
  if (cal)
    lat *= cal->lat[a][p], xfer /= cal->bw[a][p];
  return (lat + xfer) * 1e-6;
}

/* The data's part in the pick (enqueue.cc at v2.28.9-1). All-gather and
 * broadcast move bytes (taskAppend makes their type int8), so only the
 * reductions' type and operation count. */
static int reduces(int op) {
  return op == CB_MOP_ALLREDUCE || op == CB_MOP_REDUCESCATTER;
}

/* device.h: ncclNvlsSupported, the types and operations the NVLink
 * switch reduces (never int8 or fp8; float and double sum only) */
int cb_nc_nvls_reduces(int dtype, int redop) {
  switch (dtype) {
  case CB_INT32:
  case CB_INT64:
  case CB_HALF:
  case CB_BFLOAT16: return redop == CB_SUM || redop == CB_MIN || redop == CB_MAX;
  case CB_FLOAT:
  case CB_DOUBLE: return redop == CB_SUM;
  default: return 0;
  }
}

const char *cb_nc_refused(const struct cb_nc_comm *c, int op, int dtype) {
  /* enqueue.cc: ncclEnqueueCheck's "FP8 reduction support begins with sm90" */
  if (reduces(op) && cb_dtype_is_fp8(dtype) && c->arch < CB_NC_HOPPER)
    return "NCCL reduces fp8 on Hopper (sm90) and later only";
  return NULL;
}

int cb_nc_pick(const struct cb_nc_comm *c, int op, double bytes, int dtype, int redop, int only,
               const struct cb_nc_cal *cal, struct cb_nc_choice *out) {
  double best = INFINITY;
  *out = (struct cb_nc_choice){-1, -1, NAN, NAN};
  if (cb_nc_refused(c, op, dtype))
    return -1;
  int nvls = !reduces(op) || cb_nc_nvls_reduces(dtype, redop);
  /* updateCollCostTable: an fp8 ring over more than 8 ranks loses
   * precision, so its time is multiplied by 1024 for the choice alone */
  double fp8_ring = reduces(op) && cb_dtype_is_fp8(dtype) && c->nranks > 8 ? 1024 : 1;
  for (int a = 0; a < CB_NC_NALGOS; a++)
    for (int p = 0; p < CB_NC_NPROTOS; p++) {
      if ((only >= 0 && a != only) || (!nvls && (a == CB_NC_NVLS || a == CB_NC_NVLS_TREE)))
        continue;
      double t = cb_nc_time(c, op, a, p, bytes, NULL); /* NCCL's own view */
      if (a == CB_NC_RING)
        t *= fp8_ring;
      if (isfinite(t) && t < best)
        best = t, out->algo = a, out->proto = p;
    }
  if (out->algo < 0)
    return -1;
  out->time_s = cb_nc_time(c, op, out->algo, out->proto, bytes, cal);
  out->busbw_Bps = cb_model_busbw(op, c->nranks, bytes, out->time_s);
  return out->algo;
}

double cb_nc_next_switch(const struct cb_nc_comm *c, int op, int dtype, int redop, double from) {
  struct cb_nc_choice a, b;
  if (cb_nc_pick(c, op, from, dtype, redop, -1, NULL, &a) < 0)
    return 0;
  for (double s = 8; s <= 64.0 * (1ull << 30); s *= 2) {
    if (s <= from)
      continue;
    cb_nc_pick(c, op, s, dtype, redop, -1, NULL, &b);
    if (b.algo != a.algo || b.proto != a.proto)
      return s;
  }
  return 0;
}

/* ---- calibration ---- */

struct acc {
  double ll, lb, bb, lt, bt; /* sums of L^2, LB, B^2, L, B over t^2 (relative residuals) */
  double min_b, max_b;
  int n;
};

int cb_nc_fit(const struct cb_nc_hw *hw, const struct cb_nc_point *pts, int n,
              struct cb_nc_cal *cal) {
  struct acc acc[CB_NC_NALGOS][CB_NC_NPROTOS];
  memset(acc, 0, sizeof acc);
  cb_nc_cal_identity(cal);
  for (int i = 0; i < n; i++) {
    const struct cb_nc_point *q = &pts[i];
    if (q->nranks < 2 || !(q->time_s > 0) || q->nnodes < 1)
      continue;
    struct cb_nc_comm c;
    cb_nc_tune(hw, q->nranks, q->nnodes, &c);
    int a = q->algo, p = q->proto;
    if (a < 0 || p < 0) { /* unrecorded: what NCCL would have picked */
      struct cb_nc_choice ch;
      if (cb_nc_pick(&c, q->op, q->bytes, q->dtype, q->redop, a, NULL, &ch) < 0)
        continue;
      a = ch.algo, p = ch.proto;
    }
    double L, B;
    if (time_parts(&c, q->op, a, p, q->bytes, &L, &B))
      continue;
    double t = q->time_s * 1e6;
    struct acc *s = &acc[a][p];
    s->ll += L * L / (t * t), s->lb += L * B / (t * t), s->bb += B * B / (t * t);
    s->lt += L / t, s->bt += B / t;
    if (!s->n || q->bytes < s->min_b)
      s->min_b = q->bytes;
    if (!s->n || q->bytes > s->max_b)
      s->max_b = q->bytes;
    s->n++;
  }
  int fitted = 0;
  for (int a = 0; a < CB_NC_NALGOS; a++)
    for (int p = 0; p < CB_NC_NPROTOS; p++) {
      struct acc *s = &acc[a][p];
      if (!s->n || !(s->bb > 0))
        continue;
      double la = 1, lb;
      double det = s->ll * s->bb - s->lb * s->lb;
      if (s->max_b > s->min_b && det > 1e-12 * s->ll * s->bb) {
        la = (s->lt * s->bb - s->bt * s->lb) / det;
        lb = (s->ll * s->bt - s->lb * s->lt) / det;
        if (la < 0) /* latency cannot be negative: bandwidth alone */
          la = 0, lb = s->bt / s->bb;
      } else /* one size: NCCL's latency kept, the bandwidth fitted */
        lb = (s->bt - s->lb) / s->bb;
      if (!(lb > 0))
        continue;
      cal->lat[a][p] = la;
      cal->bw[a][p] = 1 / lb;
      cal->fitted[a][p] = s->n;
      fitted++;
    }
  return fitted;
}

const char *cb_nc_newer_differs(const struct cb_nc_hw *hw, int nnodes) {
  if (hw->arch == CB_NC_BLACKWELL) /* tuning.cc and search.cc, v2.29.2 to v2.30.3 */
    return "NCCL 2.29 and later estimate Blackwell otherwise: Ring/LL128 capped at 40 GB/s a "
           "channel, NVLSTree at 80 past two nodes and size-corrected on x86 hosts, and the "
           "search's speeds 45, 86 and 80 GB/s";
  if (hw->cc_max > cc_of(hw) && cc_of(hw) >= 90) /* tuning.cc:533 at v2.30.3 */
    return "NCCL 2.30.3 and later keep LL128 for GPUs of several kinds from Hopper up";
  if (hw->arch < CB_NC_HOPPER && nnodes > 1) /* search.cc:1100 at v2.29.2 */
    return "NCCL 2.29.2 and later search inter-node paths up to SYS below Hopper: a tree may "
           "find other graphs, and lose LL128";
  return "";
}
