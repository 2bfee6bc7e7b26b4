/* libFuzzer harness for topology files (bench/topology/topology.c, with
 * acceptance's sections: bench/accept/spec.c), as --accept,
 * --predict and --report --topology load them, and the lookups made on a
 * file that loaded. */
#include "fuzz_file.h" /* first: it defines _GNU_SOURCE */
#include <stdint.h>

#include "accept/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct cb_accept_spec t;
  struct cb_error err = {0};
  if (cb_accept_spec_load(fuzz_file(data, size), &t, NULL, &err) != CB_OK)
    return 0;
  double refs[CB_NREFS] = {0, 1e9, 2e9};
  volatile double sum = 0;
  for (int s = CB_SCOPE_INTRA; s <= CB_SCOPE_INTER; s++)
    sum += cb_topology_tier(&t.system, s) != 0;
  for (int i = 0; i < t.nchecks; i++)
    sum +=
        cb_threshold_value(&t.checks[i].warn, refs) + cb_threshold_value(&t.checks[i].fail, refs);
  (void)sum;
  return 0;
}
