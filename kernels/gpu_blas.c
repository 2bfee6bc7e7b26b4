/* cuBLAS loaded on first use (gpu_blas.h says why). */
#include "gpu_blas.h"

#include <dlfcn.h>

#include "config.h"

struct cb_cublas cb_cublas;

#define CB_STR(f) #f
#define CB_XSTR(f) CB_STR(f)

int cb_cublas_load(struct cb_error *err) {
  if (cb_cublas.cublasGemmEx)
    return CB_OK;
  void *h = dlopen(CB_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return cb_fail(err, CB_RUNTIME, "GPU step: cannot load cuBLAS (%s): %s", CB_CUBLAS_SONAME,
                   dlerror());
  const char *missing = NULL;
#define CB_CUBLAS_LOAD(f)                                                                          \
  if (!(*(void **)&cb_cublas.f = dlsym(h, CB_XSTR(f))) && !missing)                                \
    missing = CB_XSTR(f);
  CB_CUBLAS_FNS(CB_CUBLAS_LOAD)
  if (missing) {
    cb_cublas.cublasGemmEx = NULL;
    return cb_fail(err, CB_RUNTIME, "GPU step: %s has no %s", CB_CUBLAS_SONAME, missing);
  }
  return CB_OK;
}
