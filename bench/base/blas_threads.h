/* OpenBLAS (its pthreads build) starts worker threads from a library
 * constructor, before main, in every process that links it, and stops them
 * in its destructor at exit, after main's cleanup: a thread outliving main
 * (issue 28: an ASan SEGV in a secondary thread at teardown after --fit).
 * The modes that never call BLAS stop them first. */
#ifndef CB_BLAS_THREADS_H
#define CB_BLAS_THREADS_H

/* Joins OpenBLAS's worker threads now; a no-op without OpenBLAS or where
 * it exports no blas_thread_shutdown_. Only for processes that will not
 * call BLAS afterwards. */
void cb_blas_threads_stop(void);

#endif
