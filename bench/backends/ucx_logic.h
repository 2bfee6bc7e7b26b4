/* The ucx backend's pure logic, apart from any UCP context so that it is
 * unit-tested without a GPU or a CUDA-enabled UCX: which UCX memory type a
 * collbench memory kind is, and why device memory cannot run. */
#ifndef CB_UCX_LOGIC_H
#define CB_UCX_LOGIC_H

#include <stddef.h>
#include <stdint.h>
#include <ucs/memory/memory_type.h>

/* What UCX is told a buffer of memory kind `mem` (enum cb_mem) is: pinned
 * memory (cudaHostAlloc) is host memory to UCX, device memory is CUDA. */
ucs_memory_type_t cb_ucx_mem_type(int mem);

/* The memory types in a ucp_context_attr_t.memory_types mask, as UCX
 * names them: "host, cuda, cuda-managed". */
void cb_ucx_mem_types_text(uint64_t mask, char *buf, size_t len);

/* Whether a context with these memory types moves CUDA memory; 0 with the
 * reason ("UCX 1.13.1 was built without CUDA memory support (memory types:
 * host)") when it does not. */
int cb_ucx_cuda_capable(uint64_t mask, const char *version, char *why, size_t len);

#endif
