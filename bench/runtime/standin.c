/* A test stand-in library, found by the symbol each exports (standin.h). */
#include "standin.h"

#include <dlfcn.h>

const char *cb_standin(void) {
  return dlsym(RTLD_DEFAULT, "collbench_standin");
}
