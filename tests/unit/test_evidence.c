/* The evidence's pure parts (issue 41): the ACS control register found in
 * PCI config space through the extended capability chain, and a PCIe link
 * trained down; the RDMA error counters read from a node's tree and their
 * rise over a window. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/counters.h"
#include "probe/evidence.h"
#include "tap.h"

/* An extended capability header at off: id, version 1, next. */
static void cap(unsigned char *cfg, int off, int id, int next) {
  unsigned h = (unsigned)id | 1u << 16 | (unsigned)next << 20;
  for (int i = 0; i < 4; i++)
    cfg[off + i] = (unsigned char)(h >> (8 * i));
}

static void test_acs(void) {
  unsigned char cfg[4096];
  memset(cfg, 0, sizeof cfg);
  ok(cb_pci_acs_ctrl(cfg, sizeof cfg) == -1, "no capability at 0x100: no ACS");
  cap(cfg, 0x100, 0x000d, 0);
  cfg[0x106] = 0x1d;
  is_long(cb_pci_acs_ctrl(cfg, sizeof cfg), 0x1d, "ACS first in the chain: its control register");
  ok(cb_pci_acs_ctrl(cfg, 64) == -1, "64 bytes (a non-root reader's view): unknown, not 'off'");
  memset(cfg, 0, sizeof cfg);
  cap(cfg, 0x100, 0x0001, 0x148); /* AER, then ACS at 0x148 */
  cap(cfg, 0x148, 0x000d, 0);
  cfg[0x14e] = CB_ACS_REQ_REDIR;
  is_long(cb_pci_acs_ctrl(cfg, sizeof cfg), CB_ACS_REQ_REDIR, "ACS second in the chain: found");
  cap(cfg, 0x148, 0x000b, 0x100); /* a loop back to the first: must end */
  ok(cb_pci_acs_ctrl(cfg, sizeof cfg) == -1, "a looping chain ends without ACS");
  cap(cfg, 0x100, 0x0001, 0xffc); /* next past the space read */
  ok(cb_pci_acs_ctrl(cfg, 0x200) == -1, "a chain pointing past what was read ends");
}

static void test_downtrained(void) {
  struct cb_evid_dev d = {0};
  d.gts = 32, d.max_gts = 32, d.width = 16, d.max_width = 16;
  ok(!cb_evid_downtrained(&d), "Gen5 x16 of Gen5 x16: not trained down");
  d.width = 8;
  ok(cb_evid_downtrained(&d), "x8 of x16: trained down");
  d.width = 16, d.gts = 16;
  ok(cb_evid_downtrained(&d), "16 GT/s of 32: trained down");
  d.max_gts = 0, d.max_width = 0;
  ok(!cb_evid_downtrained(&d), "the maximum unknown: not claimed");
}

static void put(const char *root, const char *name, int v) {
  char path[512];
  snprintf(path, sizeof path, "%s/sys/class/infiniband/mlx5_0/ports/1/%s", root, name);
  FILE *f = fopen(path, "w");
  if (f)
    fprintf(f, "%d\n", v), fclose(f);
}

static void test_counters(void) {
  char dir[] = "/tmp/cb-counters-XXXXXX", root[64], cmd[256];
  if (!mkdtemp(dir)) {
    ok(0, "a temporary folder");
    return;
  }
  snprintf(root, sizeof root, "%s/n", dir);
  snprintf(cmd, sizeof cmd, "sh tests/fixtures/sysfs/make-node.sh %s", root);
  ok(system(cmd) == 0, "a node tree (tests/fixtures/sysfs/make-node.sh)");
  setenv("COLLBENCH_SYSFS_ROOT", root, 1);
  struct cb_counters *a = malloc(sizeof *a), *b = malloc(sizeof *b), *d = malloc(sizeof *d);
  cb_counters_read(a);
  is_long(a->n, 11, "mlx5_0 port 1: 8 PortCounters errors and 3 hw_counters");
  put(root, "counters/symbol_error", 412);
  put(root, "hw_counters/out_of_buffer", 3);
  cb_counters_read(b);
  is_long(cb_counters_delta(a, b, d), 2, "two rose");
  ok(d->n == 2 && strcmp(d->c[0].name, "symbol_error") == 0 && d->c[0].value == 412 &&
         strcmp(d->c[1].name, "out_of_buffer") == 0 && d->c[1].value == 3 &&
         strcmp(d->c[0].dev, "mlx5_0") == 0 && d->c[0].port == 1,
     "each with its device, port and rise");
  put(root, "counters/symbol_error", 0); /* a reset is not a rise */
  cb_counters_read(a);
  is_long(cb_counters_delta(b, a, d), 0, "a counter that went down (reset): not counted");
  /* an Xid's counter exists from its first event: absent before, it rose from 0 */
  struct cb_counter *x = &a->c[a->n++];
  snprintf(x->dev, sizeof x->dev, "GPU 0000:1b:00.0");
  snprintf(x->name, sizeof x->name, "xid_79");
  x->port = 0, x->value = 2;
  is_long(cb_counters_delta(b, a, d), 1, "a counter absent before: counted");
  ok(d->n == 1 && strcmp(d->c[0].name, "xid_79") == 0 && d->c[0].value == 2,
     "... from 0 (got %llu)", d->n ? (unsigned long long)d->c[0].value : 0ULL);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0)
    diag("could not remove %s", dir);
  free(a), free(b), free(d);
}

int main(void) {
  test_acs();
  test_downtrained();
  test_counters();
  done_testing();
  return exit_status();
}
