/* The evidence's pure parts (issue 41): the ACS control register found in
 * PCI config space through the extended capability chain, and a PCIe link
 * trained down. */
#include <string.h>

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

int main(void) {
  test_acs();
  test_downtrained();
  done_testing();
  return exit_status();
}
