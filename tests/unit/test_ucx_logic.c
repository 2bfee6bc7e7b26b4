/* The ucx backend's memory-type logic, and what this host's UCX says. */
#include <string.h>
#include <ucp/api/ucp.h>

#include "backends/backend.h"
#include "backends/ucx_logic.h"
#include "tap.h"

#define BIT(t) ((uint64_t)1 << (t))

int main(void) {
  ok(cb_ucx_mem_type(CB_MEM_HOST) == UCS_MEMORY_TYPE_HOST, "host memory is host to UCX");
  ok(cb_ucx_mem_type(CB_MEM_PINNED) == UCS_MEMORY_TYPE_HOST,
     "pinned memory (cudaHostAlloc) is host to UCX");
  ok(cb_ucx_mem_type(CB_MEM_DEVICE) == UCS_MEMORY_TYPE_CUDA, "device memory is CUDA to UCX");
  ok(cb_ucx_mem_type(CB_NMEMS) == UCS_MEMORY_TYPE_UNKNOWN, "an unknown kind is unknown");

  char text[96], why[200];
  cb_ucx_mem_types_text(BIT(UCS_MEMORY_TYPE_HOST) | BIT(UCS_MEMORY_TYPE_CUDA) |
                            BIT(UCS_MEMORY_TYPE_CUDA_MANAGED),
                        text, sizeof text);
  is_str(text, "host, cuda, cuda-managed", "memory types as UCX names them");
  cb_ucx_mem_types_text(0, text, sizeof text);
  is_str(text, "none", "an empty mask says none");

  ok(cb_ucx_cuda_capable(BIT(UCS_MEMORY_TYPE_HOST) | BIT(UCS_MEMORY_TYPE_CUDA), "1.16.0", why,
                         sizeof why),
     "a mask with cuda moves device memory");
  ok(!cb_ucx_cuda_capable(BIT(UCS_MEMORY_TYPE_HOST) | BIT(UCS_MEMORY_TYPE_ROCM), "1.13.1", why,
                          sizeof why),
     "a mask without cuda does not");
  is_str(why, "UCX 1.13.1 was built without CUDA memory support (memory types: host, rocm)",
         "the reason names the version and the memory types UCX has");

  /* This host's UCX, asked the way the backend asks it. */
  ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_TAG};
  ucp_context_h ctx;
  ucs_status_t st = ucp_init(&params, NULL, &ctx);
  ok(st == UCS_OK, "ucp_init");
  if (st == UCS_OK) {
    ucp_context_attr_t attr = {.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES};
    ok(ucp_context_query(ctx, &attr) == UCS_OK && (attr.memory_types & BIT(UCS_MEMORY_TYPE_HOST)),
       "ucp_context_query lists host memory");
    int cuda = cb_ucx_cuda_capable(attr.memory_types, ucp_get_version_string(), why, sizeof why);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "UCX %s was built without CUDA", ucp_get_version_string());
    ok(cuda || strncmp(why, prefix, strlen(prefix)) == 0, "this UCX: %s",
       cuda ? "moves CUDA memory" : why);
    ucp_cleanup(ctx);
  }
  done_testing();
  return exit_status();
}
