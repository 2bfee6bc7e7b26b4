/* The nccl backend's pure parts: the path label read back from NCCL's INFO
 * log, the --transport -> NCCL_* table, and which GPU a rank gets. The log
 * excerpts are real NCCL output quoted in public NVIDIA/nccl and
 * NVIDIA/nccl-tests issues (cited per case), trimmed to a few lines. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/nccl_env.h"
#include "backends/nccl_log.h"
#include "runtime/gpu.h"
#include "tap.h"

/* NVIDIA/nccl#1538 (8 GPUs of one node, NVLink): ring over P2P/CUMEM;
 * the GRAPH line is from NVIDIA/nccl#1189 (H20, NVLink within the node). */
static const char nvlink_log[] =
    "job-worker-0:5666:5808 [3] NCCL INFO Pattern 4, crossNic 0, nChannels 16, bw 40.000000/"
    "40.000000, type NVL/PIX, sameChannels 1\n"
    "job-worker-0:5666:5808 [3] NCCL INFO Channel 07/0 : 3[3] -> 4[4] via P2P/CUMEM\n"
    "job-worker-0:5667:5814 [4] NCCL INFO Channel 06/0 : 4[4] -> 5[5] via P2P/CUMEM\n";

/* NVIDIA/nccl-tests#188: P2P/IPC/read within a node, sockets between. The
 * type line is from NVIDIA/nccl#601 (PCIe-only nodes, "type SYS/SYS"). */
static const char pcie_socket_log[] =
    "gpu23:1513:1528 [2] NCCL INFO Pattern 4, crossNic 0, nChannels 4, speed 1.200000/1.200000, "
    "type SYS/SYS, sameChannels 0\n"
    "user:852751:852807 [1] NCCL INFO Channel 01/0 : 1[2a000] -> 8[27000] [send] via "
    "NET/Socket/0\n"
    "user:169127:169179 [2] NCCL INFO Channel 00/0 : 10[51000] -> 11[57000] via P2P/IPC/read\n";

/* NVIDIA/nccl#1232: two nodes, sockets between them, SHM within. */
static const char shm_socket_log[] =
    "[0] node0:13571:13571 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
    "[2] node0:13572:13572 [1] NCCL INFO Channel 00 : 2[1] -> 0[0] via SHM/direct/direct\n"
    "[3] node2:22556:22556 [1] NCCL INFO Connected all trees\n";

/* NVIDIA/nccl#1189: InfiniBand with GPUDirect RDMA between nodes, P2P
 * within, NVLink per the GRAPH line. */
static const char ib_log[] =
    "H20-GPU-05:1789225:1789736 [1] NCCL INFO Pattern 4, crossNic 1, nChannels 4, bw "
    "24.000000/24.000000, type NVL/PIX, sameChannels 0\n"
    "H20-GPU-06:4015539:4015652 [0] NCCL INFO Channel 07/0 : 0[0] -> 2[0] [receive] via "
    "NET/IB/3/GDRDMA\n"
    "H20-GPU-06:4015540:4015653 [1] NCCL INFO Channel 00/0 : 3[1] -> 2[0] via P2P/CUMEM\n";

/* NVIDIA/nccl-tests#185 (H100 nodes on RoCE): the IB plugin's device line
 * says RoCE; the connection line itself always says NET/IB. */
static const char roce_log[] =
    "dgxh100-4:460770:460842 [0] NCCL INFO NET/IB : Using [0]mlx5_10:1/RoCE [1]mlx5_11:1/RoCE "
    "[RO]; OOB enp220s0np0:11.1.128.136<0>\n"
    "dgxh100-4:460770:460842 [0] NCCL INFO Using network IB\n"
    "dgxh100-4:460770:460842 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n";

/* NVIDIA/nccl#1267: one rank, no connection at all. */
static const char one_rank_log[] =
    "instance-8g-96c-2:525781:525957 [0] NCCL INFO Using network Socket\n"
    "instance-8g-96c-2:525781:525957 [0] NCCL INFO Channel 00/32 :    0\n";

/* TUNING lines in NCCL 2.28.9's own format: the string
 * "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}" as found in
 * /usr/local/cuda/lib64/libnccl.so.2 (and NVIDIA/nccl src/enqueue.cc), with
 * ncclAlgoToString / ncclProtoToString names; the prefix as in the logs
 * above. A later suffix ("cgaClusterSize 4", in newer NCCL) must parse
 * too; the Broadcast line with bare indexes is made up, for the fallback. */
static const char tuning_log[] =
    "node1:7046:7046 [0] NCCL INFO AllReduce: 4 Bytes -> Algo TREE proto LL "
    "channel{Lo..Hi}={0..0}\n"
    "node1:7046:7046 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE "
    "channel{Lo..Hi}={0..31}\n"
    "node1:7046:7046 [0] NCCL INFO AllGather: 1048576 Bytes -> Algo PAT proto LL128 "
    "channel{Lo..Hi}={0..3}\n"
    "node1:7046:7046 [0] NCCL INFO ReduceScatter: 1048576 Bytes -> Algo NVLS_TREE proto SIMPLE "
    "channel{Lo..Hi}={0..15} cgaClusterSize 4\n"
    "node1:7046:7046 [0] NCCL INFO Broadcast: 65536 Bytes -> Algo 1 proto 0 time 12.3\n"
    "node1:7046:7046 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
    "node1:7046:7046 [0] NCCL INFO AllReduce: 10485760 Bytes -> Algo NVLS proto SIMPLE "
    "channel{Lo..Hi}={0..15}\n"
    "node1:7046:7046 [0] NCCL INFO AllReduce: 10485760 Bytes -> Algo RING proto LL128 "
    "channel{Lo..Hi}={0..31}\n";

static int last_channels;

static void choice_is(const char *func, uint64_t bytes, const char *algo, const char *proto,
                      const char *what) {
  char a[32], p[32];
  cb_nccl_log_choice(tuning_log, func, bytes, a, sizeof a, p, sizeof p, &last_channels);
  ok(strcmp(a, algo) == 0 && strcmp(p, proto) == 0, "%s: algo '%s' proto '%s'", what, a, p);
}

static void label_is(const char *log, const char *want, const char *what) {
  char label[64];
  cb_nccl_log_paths(log, label, sizeof label);
  is_str(label, want, "%s -> '%s'", what, want);
}

/* MPS detection (--share-gpu's warning): a control pipe in a pipe
 * directory made here, never the machine's /tmp/nvidia-mps */
static void test_mps(void) {
  char dir[] = "/tmp/test_mps.XXXXXX";
  if (!mkdtemp(dir)) {
    ok(0, "mkdtemp for a pipe directory");
    return;
  }
  ok(!cb_mps_running(dir), "an empty pipe directory: no MPS daemon");
  char path[sizeof dir + 16];
  snprintf(path, sizeof path, "%s/control", dir);
  FILE *f = fopen(path, "w");
  if (f)
    fclose(f);
  ok(!cb_mps_running(dir), "a plain file named control is not its pipe");
  unlink(path);
  ok(mkfifo(path, 0600) == 0 && cb_mps_running(dir), "a control FIFO: MPS is running");
  char missing[sizeof dir + 16];
  snprintf(missing, sizeof missing, "%s/none", dir);
  ok(!cb_mps_running(missing), "a pipe directory that does not exist: no MPS");
  unlink(path);
  rmdir(dir);
}

/* --register against NCCL's versions, as nccl-tests -R checks them */
static void test_register(void) {
  char why[160];
  ok(!cb_nccl_register_refusal(0, 21800, why, sizeof why), "none: any NCCL");
  ok(!cb_nccl_register_refusal(1, 21900, why, sizeof why), "local on 2.19.0");
  ok(!cb_nccl_register_refusal(2, 22809, why, sizeof why), "symmetric on 2.28.9");
  const char *w = cb_nccl_register_refusal(1, 21803, why, sizeof why);
  ok(w && strstr(w, "--register local needs NCCL 2.19 or newer (ncclCommRegister); this NCCL "
                    "is 2.18.3"),
     "local on 2.18.3 refused: %s", w ? w : "(none)");
  w = cb_nccl_register_refusal(2, 22607, why, sizeof why);
  ok(w && strstr(w, "symmetric needs NCCL 2.27 or newer (ncclCommWindowRegister)") &&
         strstr(w, "2.26.7"),
     "symmetric on 2.26.7 refused: %s", w ? w : "(none)");
}

int main(void) {
  test_mps();
  test_register();
  label_is(nvlink_log, "nvlink", "P2P/CUMEM with a NVL graph");
  label_is(pcie_socket_log, "pcie+net-socket", "P2P/IPC over SYS plus NET/Socket");
  label_is(shm_socket_log, "shm+net-socket", "SHM/direct plus NET/Socket");
  label_is(ib_log, "nvlink+net-ib", "NET/IB/3/GDRDMA plus P2P over NVLink");
  label_is(roce_log, "net-roce", "NET/IB on RoCE ports");
  label_is(one_rank_log, "", "one rank: no connection, empty label");
  label_is("x NCCL INFO Channel 00/0 : 0[0] -> 1[0] via P2P/CUMEM\n", "p2p",
           "P2P without a GRAPH line: link unknown");
  label_is("", "", "empty log");
  label_is(tuning_log, "p2p", "TUNING lines do not disturb the path");
  /* NVLink SHARP: nvls.cc's INFO(NCCL_INIT | NCCL_NVLS, "NVLS comm %p headRank %d
   * nHeads %d nvlsRanks %d buffSize %zu nvlsPerRankSize %zu nvlsTotalSize %zu")
   * at NCCL 2.28.9, next to the P2P connections of an NVLink node */
  label_is("dgx:1201:1290 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 16, bw 40.000000/"
           "40.000000, type NVL/PIX, sameChannels 1\n"
           "dgx:1201:1290 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
           "dgx:1201:1290 [0] NCCL INFO NVLS comm 0x55d0c1f0 headRank 0 nHeads 8 nvlsRanks 8 "
           "buffSize 1048576 nvlsPerRankSize 402653184 nvlsTotalSize 3221225472\n",
           "nvlink+nvls", "an NVLS comm line: nvls, after nvlink");
  label_is("dgx:1201:1290 [0] NCCL INFO NVLS multicast support is not available on dev 0 "
           "(NVLS_NCHANNELS 0)\n",
           "", "NVLS not available: no nvls");

  /* how NCCL used the network (issue 41): devices listed, GPUDirect RDMA */
  int nics, gdr;
  cb_nccl_log_net(roce_log, &nics, &gdr);
  ok(nics == 2 && gdr == -1, "RoCE: 2 devices listed, NET/IB without GDRDMA (got %d, %d)", nics,
     gdr);
  cb_nccl_log_net(ib_log, &nics, &gdr);
  ok(nics == 0 && gdr == 1, "NET/IB/3/GDRDMA: GPUDirect RDMA used; no device line (got %d, %d)",
     nics, gdr);
  cb_nccl_log_net(shm_socket_log, &nics, &gdr);
  ok(gdr == -1, "sockets: network connections without GPUDirect RDMA (got %d)", gdr);
  cb_nccl_log_net("h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.1.1<0>\n", &nics, &gdr);
  ok(nics == 1 && gdr == 0, "the Socket plugin's line: 1 device; no connection (got %d, %d)", nics,
     gdr);
  cb_nccl_log_net(nvlink_log, &nics, &gdr);
  ok(nics == 0 && gdr == 0, "one node over NVLink: no network at all (got %d, %d)", nics, gdr);

  /* the algorithm and protocol per collective and size */
  choice_is("AllReduce", 1048576, "Ring", "Simple", "allreduce 1 MiB: its own line only");
  is_long(last_channels, 32, "allreduce 1 MiB ran on channels 0..31: 32");
  choice_is("AllReduce", 4, "Tree", "LL", "allreduce 4 B: a small size's own choice");
  is_long(last_channels, 1, "allreduce 4 B on channels 0..0: 1");
  choice_is("AllGather", 1048576, "PAT", "LL128", "allgather at the same bytes as allreduce");
  choice_is("ReduceScatter", 1048576, "NVLSTree", "Simple",
            "NVLS_TREE is NVLSTree, not NVLS; a cgaClusterSize suffix is fine");
  is_long(last_channels, 16, "a suffix after the channel range: 16");
  choice_is("Reduce", 1048576, "", "", "Reduce does not match ReduceScatter's line");
  choice_is("Broadcast", 65536, "Ring", "LL", "a bare index (fallback): Algo 1 proto 0");
  is_long(last_channels, 0, "no channel range in the line: unknown (0)");
  choice_is("AllReduce", 10485760, "Ring+NVLS", "LL128+Simple",
            "two choices at one size: both, in NCCL's order");
  is_long(last_channels, 32, "two choices at one size: the most channels (32)");
  choice_is("AllReduce", 104857, "", "", "a size that is a prefix of a logged one: none");
  choice_is("AllReduce", 2097152, "", "", "a size never logged: none");
  choice_is(NULL, 4, "", "", "no NCCL collective: none");
  is_str(cb_nccl_func_name("reducescatter"), "ReduceScatter", "reducescatter is ReduceScatter");
  ok(cb_nccl_func_name("p2p_bw") == NULL && cb_nccl_func_name("alltoall") == NULL,
     "point-to-point and alltoall (send/receive) have no tuning line");
  char small[8];
  cb_nccl_log_paths(ib_log, small, sizeof small);
  ok(strlen(small) < sizeof small, "a short label buffer is not overrun ('%s')", small);

  /* the --transport table */
  const char *const *t;
  int n = 0, all = 1;
  for (t = cb_nccl_transports; *t; t++, n++)
    all &= cb_nccl_transport_env(*t) != NULL;
  ok(n == 8 && all, "every one of the 8 transports has a table row");
  ok(cb_nccl_transport_env("infiniband") == NULL, "an unknown transport has none");
  const struct cb_env_setting *e = cb_nccl_transport_env("socket");
  int net_socket = 0;
  for (; e->name; e++)
    net_socket |= strcmp(e->name, "NCCL_NET") == 0 && strcmp(e->value, "Socket") == 0;
  ok(net_socket, "socket sets NCCL_NET=Socket");
  ok(cb_nccl_transport_env("auto")->name == NULL, "auto sets nothing");

  /* never override what the user set; say so */
  unsetenv("NCCL_P2P_DISABLE");
  unsetenv("NCCL_SHM_DISABLE");
  setenv("NCCL_NET", "IB", 1);
  unsetenv("NCCL_IB_DISABLE");
  char kept[256] = "";
  int k = cb_env_apply(cb_nccl_transport_env("socket"), kept, sizeof kept);
  is_long(k, 1, "one variable kept");
  is_str(getenv("NCCL_NET"), "IB", "the user's NCCL_NET stays");
  is_str(kept, "NCCL_NET=IB (wanted Socket)", "and the message says so");
  is_str(getenv("NCCL_P2P_DISABLE"), "1", "unset ones are set (NCCL_P2P_DISABLE=1)");

  unsetenv("NCCL_HOSTID");
  setenv("NCCL_SOCKET_IFNAME", "eth0", 1);
  kept[0] = '\0';
  cb_nccl_share_gpu_env(3, kept, sizeof kept);
  is_str(getenv("NCCL_HOSTID"), "collbench-3", "--share-gpu: NCCL_HOSTID per rank");
  is_str(kept, "NCCL_SOCKET_IFNAME=eth0 (wanted lo)", "a set NCCL_SOCKET_IFNAME is kept");

  /* which GPU: local rank, --gpu-list, --share-gpu */
  int list[] = {3, 1};
  is_long(cb_gpu_choose(2, NULL, 0, 0), 2, "local rank 2 uses GPU 2");
  is_long(cb_gpu_choose(1, list, 2, 0), 1, "--gpu-list 3,1: local rank 1 uses GPU 1");
  is_long(cb_gpu_choose(0, list, 2, 0), 3, "--gpu-list 3,1: local rank 0 uses GPU 3");
  is_long(cb_gpu_choose(2, list, 2, 0), -1, "--gpu-list too short for local rank 2: -1");
  is_long(cb_gpu_choose(5, NULL, 0, 1), 0, "--share-gpu: everyone on GPU 0");
  is_long(cb_gpu_choose(5, list, 2, 1), 3, "--share-gpu --gpu-list 3,1: everyone on GPU 3");
  done_testing();
  return exit_status();
}
