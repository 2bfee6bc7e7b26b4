/* collbench's copy of NCCL's cost model (bench/model/nccl_cost.c) against
 * the real NCCL's own tables, cell by cell: NCCL 2.28.9 prints, under
 * NCCL_DEBUG_SUBSYS=TUNING, the latency (us) and bandwidth (GB/s) it gives
 * each collective, algorithm and protocol, and under GRAPH the graphs they
 * come from; the fixtures (tests/fixtures/nccl-tables/) are those lines from
 * a GPU machine. Three checks per log:
 *   - the graphs collbench would guess for that machine (cb_nc_graphs) are
 *     NCCL's (channels, per-channel bandwidth), and comm->nChannels too;
 *   - on NCCL's own graphs, every cell of the table matches to the print's
 *     rounding (%.1f: 0.05), and every cell NCCL switches off (bandwidth 0)
 *     is off in the model;
 *   - the algorithm and protocol the model picks per size are those NCCL
 *     logged for its calls ("AllReduce: N Bytes -> Algo RING proto LL").
 * Tolerance: 0.051 absolute (the printed digit). Every cell outside it is
 * listed by the failing test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "model/nccl_cost.h"
#include "tap.h"

#define DIR "tests/fixtures/nccl-tables/"

struct nccl_log {
  int nranks, nnodes, coll_channels;
  struct cb_nc_graph ring, tree;
  int have_ring, have_tree;
  /* [op][algo][proto]; seen: NCCL printed the cell */
  double lat[CB_NMOPS][CB_NC_NALGOS][CB_NC_NPROTOS], bw[CB_NMOPS][CB_NC_NALGOS][CB_NC_NPROTOS];
  int seen[CB_NMOPS][CB_NC_NALGOS][CB_NC_NPROTOS];
  int ncells;
  /* choices: op, bytes, algo, proto */
  struct {
    int op, algo, proto;
    double bytes;
  } pick[256];
  int npicks;
};

static int op_of(const char *name) {
  static const struct {
    const char *nccl;
    int op;
  } ops[] = {{"AllReduce", CB_MOP_ALLREDUCE},
             {"AllGather", CB_MOP_ALLGATHER},
             {"ReduceScatter", CB_MOP_REDUCESCATTER},
             {"Broadcast", CB_MOP_BROADCAST}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(name, ops[i].nccl))
      return ops[i].op;
  return -1; /* Reduce: the model has no reduce */
}

/* The table's column heads: "  Algorithm   |   Tree   |   Ring   | ...". */
static int algos_of(char *line, int *algos) {
  int n = 0;
  char *save, *tok = strtok_r(strchr(line, '|') + 1, "|\n", &save);
  for (; tok && n < 3; tok = strtok_r(NULL, "|\n", &save)) {
    char name[32];
    if (sscanf(tok, "%31s", name) == 1)
      algos[n++] = cb_nc_algo_find(name);
  }
  return n;
}

static int read_log(const char *path, struct nccl_log *l) {
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  memset(l, 0, sizeof *l);
  char buf[1024];
  int algos[3] = {-1, -1, -1}, nalgos = 0;
  while (fgets(buf, sizeof buf, f)) {
    char *s = strstr(buf, "NCCL INFO ");
    if (!s)
      continue;
    s += strlen("NCCL INFO ");
    int pattern, nch, n, rank;
    double bi, be;
    char name[32], algo[32], proto[32];
    double bytes;
    if (sscanf(s, "Pattern %d, crossNic %*d, nChannels %d, bw %lf/%lf", &pattern, &nch, &bi, &be) ==
        4) {
      int same = 0;
      char *sc = strstr(s, "sameChannels ");
      if (sc)
        same = atoi(sc + strlen("sameChannels "));
      struct cb_nc_graph g = {nch, bi, be, 0, pattern, same};
      if (pattern == CB_NC_PATTERN_RING && !l->have_ring)
        l->ring = g, l->have_ring = 1;
      else if (pattern >= 1 && pattern <= 3 && !l->have_tree)
        l->tree = g, l->have_tree = 1;
    } else if (sscanf(s, "comm %*s rank %d nRanks %d nNodes %d", &rank, &l->nranks, &l->nnodes) ==
               3) {
    } else if (sscanf(s, "%d coll channels", &n) == 1) {
      l->coll_channels = n;
    } else if (strstr(s, "Algorithm   |")) {
      nalgos = algos_of(s, algos);
    } else if (sscanf(s, "%31[A-Za-z]: %lf Bytes -> Algo %31s proto %31s", name, &bytes, algo,
                      proto) == 4) {
      if (l->npicks < 256 && op_of(name) >= 0)
        l->pick[l->npicks].op = op_of(name), l->pick[l->npicks].bytes = bytes,
        l->pick[l->npicks].algo = cb_nc_algo_find(algo),
        l->pick[l->npicks].proto = cb_nc_proto_find(proto), l->npicks++;
    } else if (sscanf(s, " %31[A-Za-z] |", name) == 1 && op_of(name) >= 0 && nalgos) {
      int op = op_of(name);
      char *p = strchr(s, '|');
      for (int k = 0; p && k < 3 * nalgos; k++) {
        double lat, bw;
        if (sscanf(p + 1, " %lf/ %lf", &lat, &bw) != 2)
          break;
        int a = algos[k / 3], pr = k % 3;
        if (a >= 0) {
          l->lat[op][a][pr] = lat, l->bw[op][a][pr] = bw, l->seen[op][a][pr] = 1;
          l->ncells++;
        }
        p = strchr(p + 1, '|');
      }
    }
  }
  fclose(f);
  return 0;
}

/* The machine of these logs as collbench's topology file would give it:
 * Hopper, each rank a node of one GPU on PCIe Gen5, one NIC (loopback,
 * which NCCL reads at 10 Gb/s: NET[1.2] with 1.25 GB/s) through the host
 * (the logs' graphs: "type LOC/PHB", nic_path = phb). One GPU a node is
 * typeIntra LOC, which allows LL128; the NIC through the host is what
 * turns it off in NCCL's table (tuning.cc:491-495). */
static struct cb_nc_hw share_gpu_hw(void) {
  return (struct cb_nc_hw){.arch = CB_NC_HOPPER,
                           .gpus_per_node = 1,
                           .pcie_gen = 5,
                           .nics_per_node = 1,
                           .nic_GBps = 1.25,
                           .nic_path = 8};
}

static void check_log(const char *name) {
  char path[256];
  snprintf(path, sizeof path, DIR "%s", name);
  struct nccl_log l;
  int rc = read_log(path, &l);
  if (!ok(rc == 0 && l.nranks > 1 && l.have_ring && l.have_tree && l.ncells > 0,
          "%s: NCCL's graphs and table read (%d ranks, %d nodes, %d cells, %d choices)", name,
          l.nranks, l.nnodes, l.ncells, l.npicks))
    return;
  struct cb_nc_hw hw = share_gpu_hw();

  /* 1. the graphs collbench guesses for this machine */
  struct cb_nc_comm guess;
  cb_nc_tune(&hw, l.nranks, l.nnodes, &guess);
  const struct cb_nc_graph *r = &guess.g[CB_NC_RING], *t = &guess.g[CB_NC_TREE];
  ok(r->nch == l.ring.nch && fabs(r->bw_intra - l.ring.bw_intra) < 1e-6 &&
         fabs(r->bw_inter - l.ring.bw_inter) < 1e-6,
     "%s: ring graph as NCCL's: %d x %.2f/%.2f GB/s (NCCL: %d x %.2f/%.2f)", name, r->nch,
     r->bw_intra, r->bw_inter, l.ring.nch, l.ring.bw_intra, l.ring.bw_inter);
  ok(t->nch == l.tree.nch && fabs(t->bw_intra - l.tree.bw_intra) < 1e-6 &&
         fabs(t->bw_inter - l.tree.bw_inter) < 1e-6 && t->pattern == l.tree.pattern,
     "%s: tree graph as NCCL's: %d x %.2f/%.2f GB/s, pattern %d (NCCL: %d x %.2f/%.2f, %d)", name,
     t->nch, t->bw_intra, t->bw_inter, t->pattern, l.tree.nch, l.tree.bw_intra, l.tree.bw_inter,
     l.tree.pattern);
  ok(r->same_channels == l.ring.same_channels && t->same_channels == l.tree.same_channels,
     "%s: sameChannels as NCCL's (%d, %d)", name, l.ring.same_channels, l.tree.same_channels);
  is_long(guess.ring_nch, l.coll_channels, "%s: comm->nChannels (ring plateau rule)", name);

  /* 2. NCCL's own graphs through the model: the table, cell by cell */
  struct cb_nc_graph g[CB_NC_NALGOS] = {0};
  g[CB_NC_RING] = l.ring, g[CB_NC_TREE] = l.tree;
  g[CB_NC_COLLNET_DIRECT] = g[CB_NC_COLLNET_CHAIN] = l.tree;
  g[CB_NC_PAT] = l.tree; /* init.cc: PAT runs on the tree's graph */
  struct cb_nc_comm c;
  cb_nc_tune_graphs(&hw, l.nranks, l.nnodes, g, &c);
  int compared = 0, off = 0, bad = 0;
  for (int op = 0; op < CB_NMOPS; op++)
    for (int a = 0; a < CB_NC_NALGOS; a++)
      for (int p = 0; p < CB_NC_NPROTOS; p++) {
        if (!l.seen[op][a][p])
          continue;
        double mb = c.bw[op][a][p], ml = c.lat[op][a][p];
        int good;
        if (l.bw[op][a][p] == 0) { /* off in NCCL (it may still print a latency) */
          good = !(mb >= 0.05);
          off++;
        } else {
          good = fabs(mb - l.bw[op][a][p]) <= 0.051 && fabs(ml - l.lat[op][a][p]) <= 0.051;
          compared++;
        }
        if (!good) {
          bad++;
          diag("%s: %s %s/%s: model %.3f us / %.3f GB/s, NCCL %.1f / %.1f", name,
               op == CB_MOP_ALLREDUCE       ? "AllReduce"
               : op == CB_MOP_ALLGATHER     ? "AllGather"
               : op == CB_MOP_REDUCESCATTER ? "ReduceScatter"
                                            : "Broadcast",
               cb_nc_algo_names[a], cb_nc_proto_names[p], ml, mb, l.lat[op][a][p], l.bw[op][a][p]);
        }
      }
  ok(bad == 0 && compared > 0,
     "%s: on NCCL's graphs the model's table is NCCL's: %d cells to 0.05, %d off in both, %d "
     "differ",
     name, compared, off, bad);

  /* 3. the picks NCCL made for its calls */
  int same = 0;
  for (int i = 0; i < l.npicks; i++) {
    struct cb_nc_choice ch;
    cb_nc_pick(&c, l.pick[i].op, l.pick[i].bytes, CB_FLOAT, CB_SUM, -1, NULL, &ch);
    if (ch.algo == l.pick[i].algo && ch.proto == l.pick[i].proto)
      same++;
    else
      diag("%s: %.0f B: model %s/%s, NCCL %s/%s", name, l.pick[i].bytes,
           ch.algo >= 0 ? cb_nc_algo_names[ch.algo] : "-",
           ch.proto >= 0 ? cb_nc_proto_names[ch.proto] : "-", cb_nc_algo_names[l.pick[i].algo],
           cb_nc_proto_names[l.pick[i].proto]);
  }
  ok(l.npicks > 0 && same == l.npicks,
     "%s: the model picks NCCL's algorithm and protocol at %d of %d sizes", name, same, l.npicks);
}

int main(void) {
  check_log("h200-share-2.log");
  check_log("h200-share-4.log");
  done_testing();
  return exit_status();
}
