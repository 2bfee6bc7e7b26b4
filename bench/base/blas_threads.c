/* OpenBLAS (its pthreads build) starts worker threads from a library constructor, before main,
 * in every process that links it, and stops them in its ... (blas_threads.h says more). */
#include "blas_threads.h"

#include "config.h"

#if CB_HAVE_OPENBLAS
/* OpenBLAS's own (driver/others/blas_server.c, exported by its pthreads
 * and OpenMP builds alike); weak: a BLAS without it leaves the threads be */
extern int blas_thread_shutdown_(void) __attribute__((weak));
#endif

void cb_blas_threads_stop(void) {
#if CB_HAVE_OPENBLAS
  if (blas_thread_shutdown_)
    blas_thread_shutdown_();
#endif
}
