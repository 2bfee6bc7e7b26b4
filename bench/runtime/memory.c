/* Memory kinds (host, pinned, device) by name, and host buffers
 * (memory.h). */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "memory.h"

const char *const cb_mem_names[CB_NMEMS] = {"host", "pinned", "device"};

int cb_mem_lookup(const char *name) {
  for (int i = 0; i < CB_NMEMS; i++)
    if (strcmp(name, cb_mem_names[i]) == 0)
      return i;
  return -1;
}

void *cb_host_alloc(size_t bytes) {
  void *ptr;
  return posix_memalign(&ptr, 4096, bytes ? bytes : 1) == 0 ? ptr : NULL;
}

int cb_mem_built(int mem) {
  return mem == CB_MEM_HOST || CB_HAVE_CUDA;
}
