/* --import-nccl-tests FILE: nccl-tests' output (the table all_reduce_perf
 * and the others print, or their -J JSON file) as collbench's records, so
 * reports, baselines and the model read both tools' runs. Reads files only:
 * no MPI, no GPU. Formats: NVIDIA/nccl-tests src/util.cu (writeDeviceReport,
 * writeResultHeader, writeBenchmarkLine*, the json* writers). */
#ifndef CB_IMPORT_NCCL_TESTS_H
#define CB_IMPORT_NCCL_TESTS_H

#include "base/error.h"
#include "results/record.h"

/* One line of the table: the out-of-place and in-place records (either
 * may be absent), as the engine hands rows to the sinks. */
struct cb_import_row {
  struct cb_record rec[2]; /* [0] out of place, [1] in place */
  int has[2];
  char dtype[16], redop[16]; /* the records' strings */
};

struct cb_import {
  struct cb_import_row *rows;
  int nrows, cap;
  char op[32];       /* collbench's name: all_reduce_perf -> allreduce */
  char program[64];  /* as the file says, e.g. all_reduce_perf; "" unknown */
  int nranks;        /* "#  Rank N ..." lines or JSON devices; 0 unknown */
  int nnodes;        /* distinct hosts among them */
  char (*hosts)[64]; /* as many as the file names */
  int hosts_cap;
  long iters; /* op executions timed per record (iters x agg x graph) */
  int json;   /* read from -J JSON rather than the text table */
  int nan;    /* figures nccl-tests wrote as "nan": left out */
};

/* Reads PATH (text or JSON, told by its first character). `op` names the
 * collective when the file does not (nccl-tests before 2.16.7 printed no
 * "# Collective test starting:" line); NULL otherwise. A malformed file is
 * a usage error naming the file and line (JSON: the place in the document). */
int cb_import_nccl_tests(const char *path, const char *op, struct cb_import *im,
                         struct cb_error *err);
void cb_import_free(struct cb_import *im);

/* nccl-tests' program name to collbench's op name: all_reduce_perf,
 * all_reduce_perf_mpi -> allreduce; 0 when it is not a *_perf name of one
 * of nccl-tests' programs. */
int cb_import_op_name(const char *program, char *op, size_t len);

#endif
