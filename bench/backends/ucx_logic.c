/* The ucx backend's pure logic, apart from any UCP context so that it is unit-tested without a
 * GPU or a CUDA-enabled UCX (ucx_logic.h says more). */
#include "ucx_logic.h"

#include <stdio.h>

#include "backend.h"

ucs_memory_type_t cb_ucx_mem_type(int mem) {
  static const ucs_memory_type_t types[CB_NMEMS] = {
      [CB_MEM_HOST] = UCS_MEMORY_TYPE_HOST,
      [CB_MEM_PINNED] = UCS_MEMORY_TYPE_HOST, /* cudaHostAlloc: host memory, page-locked */
      [CB_MEM_DEVICE] = UCS_MEMORY_TYPE_CUDA,
  };
  return mem >= 0 && mem < CB_NMEMS ? types[mem] : UCS_MEMORY_TYPE_UNKNOWN;
}

void cb_ucx_mem_types_text(uint64_t mask, char *buf, size_t len) {
  size_t used = 0;
  if (len)
    buf[0] = '\0';
  for (int t = 0; t < UCS_MEMORY_TYPE_LAST; t++)
    if (mask & ((uint64_t)1 << t)) {
      int n = snprintf(buf + used, len > used ? len - used : 0, "%s%s", used ? ", " : "",
                       ucs_memory_type_names[t]);
      used += n > 0 ? (size_t)n : 0;
    }
  if (used == 0)
    snprintf(buf, len, "none");
}

int cb_ucx_cuda_capable(uint64_t mask, const char *version, char *why, size_t len) {
  if (mask & ((uint64_t)1 << UCS_MEMORY_TYPE_CUDA))
    return 1;
  char types[96];
  cb_ucx_mem_types_text(mask, types, sizeof types);
  snprintf(why, len, "UCX %s was built without CUDA memory support (memory types: %s)", version,
           types);
  return 0;
}
