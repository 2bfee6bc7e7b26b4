/* The probe's and copy matrix's pure parts: link distance names, bus id
 * matching, versions, the NVLink/PCIe label, the node summary, and the copy
 * cells in the table and JSON outputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "copy/copy.h"
#include "copy/link.h"
#include "output/sink.h"
#include "probe/probe.h"
#include "tap.h"

static char *summary(const struct cb_probe_node *n) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cb_probe_print(f, n);
  fclose(f);
  return buf;
}

static void filled_node(struct cb_probe_node *n) {
  memset(n, 0, sizeof *n);
  strcpy(n->hostname, "gpu01");
  strcpy(n->cpu_model, "Xeon");
  n->packages = 2, n->cores = 64, n->pus = 128, n->numa_nodes = 2;
  strcpy(n->placement, "hwloc 2.9.0");
  n->ngpus = 2;
  strcpy(n->driver, "580.65");
  strcpy(n->cuda_driver, "13.0");
  strcpy(n->cuda_runtime, "13.0");
  strcpy(n->nccl, "2.28.9 (library)");
  for (int g = 0; g < 2; g++) {
    struct cb_probe_gpu *d = &n->gpus[g];
    strcpy(d->name, "NVIDIA H100 80GB HBM3");
    sprintf(d->bus_id, "0000:%02x:00.0", 0x1b + g);
    d->mem_bytes = 80ull << 30;
    d->sms = 132, d->cc_major = 9, d->numa = g;
    d->nvlinks = 18, d->nvlinks_active = 18, d->nvlinks_to_switch = 18;
  }
  n->nnics = 2, n->nrdma = 1;
  struct cb_probe_nic *c = &n->nics[0];
  strcpy(c->name, "mlx5_0");
  strcpy(c->link, "InfiniBand");
  strcpy(c->state, "ACTIVE");
  strcpy(c->rate, "4x NDR");
  strcpy(c->bus_id, "0000:1a:00.0");
  c->rdma = 1, c->port = 1, c->gbps = 400, c->numa = 0;
  c = &n->nics[1];
  strcpy(c->name, "eth0");
  strcpy(c->link, "Ethernet");
  strcpy(c->state, "up");
  c->numa = -1;
  strcpy(n->gpu_nic[0][0], "PIX");
  strcpy(n->gpu_nic[1][0], "SYS");
}

static void test_summary(void) {
  struct cb_probe_node n;
  filled_node(&n);
  char *s = summary(&n);
  ok(strstr(s, "node gpu01\n") != NULL, "summary names the node");
  ok(strstr(s, "2 packages, 64 cores, 128 threads, 2 NUMA nodes") != NULL, "CPU line");
  ok(strstr(s, "GPUs: 2; driver 580.65, CUDA driver 13.0, runtime 13.0; NCCL 2.28.9") != NULL,
     "GPU count and versions");
  ok(strstr(s, "GPU1 NVIDIA H100 80GB HBM3, 0000:1c:00.0, 80.0 GiB, 132 SMs, sm_90, NUMA 1") !=
         NULL,
     "one line per GPU with bus id, memory, SMs, compute capability, NUMA");
  ok(strstr(s, "NVLink 18/18 links active (18 to NVSwitch") != NULL, "NVLink state");
  ok(strstr(s, "mlx5_0 port 1: InfiniBand, ACTIVE, 400 Gb/s (4x NDR), PCI 0000:1a:00.0") != NULL,
     "RDMA NIC with state, link layer and rate");
  ok(strstr(s, "eth0: Ethernet, up, speed unknown, virtual") != NULL, "plain interface");
  ok(strstr(s, "GPU0       PIX") != NULL && strstr(s, "GPU1       SYS") != NULL,
     "GPU-NIC distance row per GPU");
  ok(strstr(s, "RDMA NICs: none") == NULL, "no 'none' line when there is an RDMA NIC");
  free(s);

  memset(&n, 0, sizeof n);
  strcpy(n.gpu_why, "cudaGetDeviceCount: no CUDA-capable device is detected");
  strcpy(n.rdma_why, "ibv_get_device_list: Function not implemented");
  s = summary(&n);
  ok(strstr(s, "GPUs: none (cudaGetDeviceCount: no CUDA-capable device is detected)") != NULL,
     "no GPU: says why");
  ok(strstr(s, "RDMA NICs: none (ibv_get_device_list: Function not implemented)") != NULL,
     "no RDMA NIC: says why");
  ok(strstr(s, "GPU-NIC") == NULL, "no distance block without GPUs");
  free(s);
}

static void test_pure(void) {
  is_str(cb_pci_distance(CB_ANC_PCI_BRIDGE, 1, 1), "PIX", "one switch between: PIX");
  is_str(cb_pci_distance(CB_ANC_PCI_BRIDGE, 0, 1), "PIX", "same bridge: PIX");
  is_str(cb_pci_distance(CB_ANC_PCI_BRIDGE, 2, 1), "PXB", "nested switches: PXB");
  is_str(cb_pci_distance(CB_ANC_HOST_BRIDGE, 3, 1), "PHB", "through the host bridge: PHB");
  is_str(cb_pci_distance(CB_ANC_CPU, 2, 1), "NODE", "two host bridges, one NUMA node: NODE");
  is_str(cb_pci_distance(CB_ANC_CPU, 2, 0), "SYS", "across NUMA nodes: SYS");

  ok(cb_bus_id_same("00000000:1B:00.0", "0000:1b:00.0"), "NVML's bus id matches CUDA's");
  ok(!cb_bus_id_same("00000000:1B:00.0", "0000:1c:00.0"), "another bus does not");
  ok(!cb_bus_id_same("", ""), "empty ids never match");

  char v[32];
  cb_cuda_version_string(13000, v, sizeof v);
  is_str(v, "13.0", "CUDA 13000 is 13.0");
  cb_cuda_version_string(12040, v, sizeof v);
  is_str(v, "12.4", "CUDA 12040 is 12.4");
  cb_nccl_version_string(22809, v, sizeof v);
  is_str(v, "2.28.9", "NCCL 22809 is 2.28.9");
  cb_nccl_version_string(2804, v, sizeof v);
  is_str(v, "2.8.4", "old NCCL code 2804 is 2.8.4");

  is_str(cb_copy_link(1, 1, 0, 0, 0, 0), "local", "one GPU: local");
  is_str(cb_copy_link(0, 1, 1, 0, 1, 0), "NVLink", "NVML: a direct link");
  is_str(cb_copy_link(0, 1, 0, 1, 1, 0), "NVLink", "NVML: both on NVSwitch");
  is_str(cb_copy_link(0, 1, 0, 0, 1, 1), "PCIe", "NVML says no link: PCIe despite atomics");
  is_str(cb_copy_link(0, 0, 0, 0, 1, 1), "NVLink", "no NVML: peer atomics mean NVLink");
  is_str(cb_copy_link(0, 0, 0, 0, 1, 0), "PCIe", "no NVML: peer access without atomics is PCIe");
  is_str(cb_copy_link(0, 0, 0, 0, 0, 0), "PCIe", "no peer access: PCIe through the host");
}

/* Copy cells in the table: one GB/s matrix per kind and node. */
static void test_table(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  struct cb_sink t;
  struct cb_error err = {0};
  cb_sink_table(f, &t, &err);
  struct cb_pair cells[] = {
      {0, 0, "n1", "n1", 1 << 20, 1500.5, NAN, 0, "copy_ce", "local", -1, -1},
      {0, 1, "n1", "n1", 1 << 20, 350.25, NAN, 0, "copy_ce", "NVLink", -1, -1},
      {1, 0, "n1", "n1", 1 << 20, 351.0, NAN, 0, "copy_ce", "NVLink", -1, -1},
      {-1, 0, "n1", "n1", 1 << 20, 25.5, NAN, 0, "copy_h2d", "host", -1, -1},
      {-1, 1, "n1", "n1", 1 << 20, 26.5, NAN, 0, "copy_h2d", "host", -1, -1},
  };
  for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++)
    t.pair(t.state, &cells[i], &err);
  struct cb_summary sum = {.rows = 5, .records = 5};
  t.finish(t.state, &sum, &err);
  t.close(t.state, &err);
  fclose(f);
  ok(strstr(buf, "# copy_ce on n1: copy engine") != NULL, "copy_ce matrix has a title");
  ok(strstr(buf, "  GPU0    1500.5    350.2\n") != NULL, "row GPU0: local copy and 0->1");
  ok(strstr(buf, "  GPU1     351.0        -\n") != NULL, "row GPU1: 1->0, no 1->1 cell");
  ok(strstr(buf, "# copy_h2d on n1") != NULL && strstr(buf, "  host      25.5     26.5\n") != NULL,
     "h2d: one row from the host");
  free(buf);
}

static void test_json(void) {
#if CB_HAVE_JANSSON
  char path[] = "/tmp/collbench-probe-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  struct cb_sink j;
  struct cb_error err = {0};
  cb_sink_jsonl(path, &j, &err);
  j.start(j.state, &err);
  struct cb_pair h2d = {-1, 0, "n1", "n1", 64 << 20, 25.5, NAN, 0, "copy_h2d", "host", -1, -1};
  struct cb_pair mpi = {0, 1, "n1", "n2", 1 << 20, 10.0, 2.0, 1, NULL, NULL, -1, -1};
  j.pair(j.state, &h2d, &err);
  j.pair(j.state, &mpi, &err);
  j.close(j.state, &err);
  char line[2][512] = {"", ""};
  FILE *f = fopen(path, "r");
  for (int i = 0; i < 2 && fgets(line[i], sizeof line[i], f); i++)
    ;
  fclose(f);
  unlink(path);
  ok(strstr(line[0], "\"src\":-1") && strstr(line[0], "\"matrix\":\"copy_h2d\"") &&
         strstr(line[0], "\"link\":\"host\"") && strstr(line[0], "\"lat_us\":null"),
     "copy pair line: src -1 (host), matrix, link, no latency");
  ok(!strstr(line[1], "\"matrix\"") && !strstr(line[1], "\"link\""),
     "an MPI pair line has neither field");
#else
  ok(1, "# SKIP built without jansson");
  ok(1, "# SKIP built without jansson");
#endif
}

int main(void) {
  test_summary();
  test_pure();
  test_table();
  test_json();
  done_testing();
  return exit_status();
}
