/* Whether a test stand-in library (tests/fixtures/standin: CUDA, NCCL, cuBLAS, libibverbs) is
 * the one loaded (standin.c). */
#ifndef CB_STANDIN_H
#define CB_STANDIN_H

/* What the stand-in says it is, when one is loaded (it exports collbench_standin); NULL
 * otherwise. Nothing measured through one is a figure of hardware: the run's header, its
 * record and the library's version say so. */
const char *cb_standin(void);

#endif
