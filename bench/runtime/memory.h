/* Memory kinds (host, pinned, device) by name, and page-aligned host
 * buffers: below the backends, which allocate them, and the settings and
 * GPU code, which name them. */
#ifndef CB_MEMORY_H
#define CB_MEMORY_H

#include <stddef.h>

enum cb_mem { CB_MEM_HOST, CB_MEM_PINNED, CB_MEM_DEVICE, CB_NMEMS };
extern const char *const cb_mem_names[CB_NMEMS];
int cb_mem_lookup(const char *name); /* -1 when unknown */
/* Whether this build can allocate a memory kind at all (host: always). */
int cb_mem_built(int mem);

/* Page-aligned host memory, like every benchmark's host buffers; NULL on
 * failure. Free with free(). */
void *cb_host_alloc(size_t bytes);

#endif
