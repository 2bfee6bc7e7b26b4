/* The plainest possible timed ncclAllReduce loop, as an anchor for
 * collbench's nccl figures: one GPU per rank (local rank modulo the GPUs),
 * float sum out of place on one stream, 20 warm-up calls, then ITERS
 * back-to-back calls timed with CUDA events. Prints the mean time per call
 * in microseconds and the bus bandwidth (2(n-1)/n x bytes / time).
 * It waits as nccl-tests does (testStreamSynchronize): polling, yielding the
 * CPU between polls, and the device's own blocking waits yield too
 * (cudaDeviceScheduleYield). mpirun binds each rank to one core, which NCCL's
 * proxy thread shares: a spinning wait starves it (2 ranks sharing an H100
 * took 7.4 ms per 8-byte call instead of 46 us, tests/measured-2026.md).
 * With SHARE_GPU=1 each rank gets its own NCCL_HOSTID, so several ranks can
 * share one GPU (NCCL then treats each as a node of its own).
 * build: mpicc -O2 -I$CUDA/include nccl-allreduce-loop.c -L$CUDA/lib64 -lnccl -lcudart
 * usage: mpirun -np N nccl-allreduce-loop ITERS BYTES...
 *   -> "BYTES TIME_US BUSBW_GBPS" per size, on rank 0 */
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define TRY(call)                                                                                  \
  do {                                                                                             \
    int rc_ = (int)(call);                                                                         \
    if (rc_ != 0) {                                                                                \
      fprintf(stderr, "nccl-allreduce-loop: %s failed (%d) at line %d\n", #call, rc_, __LINE__);   \
      MPI_Abort(MPI_COMM_WORLD, 3);                                                                \
    }                                                                                              \
  } while (0)

/* Poll until done, yielding the CPU between polls. */
static cudaError_t stream_wait(cudaStream_t s) {
  cudaError_t rc;
  while ((rc = cudaStreamQuery(s)) == cudaErrorNotReady)
    sched_yield();
  return rc;
}
static cudaError_t event_wait(cudaEvent_t e) {
  cudaError_t rc;
  while ((rc = cudaEventQuery(e)) == cudaErrorNotReady)
    sched_yield();
  return rc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks, local;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  int iters = argc > 1 ? atoi(argv[1]) : 100;
  size_t most = 4;
  for (int i = 2; i < argc; i++)
    if (strtoull(argv[i], NULL, 10) > most)
      most = strtoull(argv[i], NULL, 10);
  if (getenv("SHARE_GPU") && atoi(getenv("SHARE_GPU"))) {
    char id[64];
    snprintf(id, sizeof id, "nccl-allreduce-loop-rank-%d", rank);
    setenv("NCCL_HOSTID", id, 1);
  }
  int ngpus;
  TRY(cudaGetDeviceCount(&ngpus));
  TRY(cudaSetDevice(local % ngpus));
  TRY(cudaSetDeviceFlags(cudaDeviceScheduleYield));
  float *in, *out;
  TRY(cudaMalloc((void **)&in, most));
  TRY(cudaMalloc((void **)&out, most));
  TRY(cudaMemset(in, 0, most));
  cudaStream_t stream;
  TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ncclUniqueId uid;
  if (rank == 0)
    TRY(ncclGetUniqueId(&uid));
  MPI_Bcast(&uid, sizeof uid, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  TRY(ncclCommInitRank(&comm, nranks, uid, rank));
  cudaEvent_t start, end;
  TRY(cudaEventCreate(&start));
  TRY(cudaEventCreate(&end));
  for (int k = 2; k < argc; k++) {
    size_t bytes = strtoull(argv[k], NULL, 10), count = bytes / sizeof(float);
    for (int i = 0; i < 20; i++)
      TRY(ncclAllReduce(in, out, count, ncclFloat, ncclSum, comm, stream));
    TRY(stream_wait(stream));
    MPI_Barrier(MPI_COMM_WORLD);
    TRY(cudaEventRecord(start, stream));
    for (int i = 0; i < iters; i++)
      TRY(ncclAllReduce(in, out, count, ncclFloat, ncclSum, comm, stream));
    TRY(cudaEventRecord(end, stream));
    TRY(event_wait(end));
    float ms;
    TRY(cudaEventElapsedTime(&ms, start, end));
    double us = ms * 1e3 / iters, worst;
    /* the slowest rank's time, like collbench's */
    MPI_Reduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
      printf("%zu %.3f %.3f\n", bytes, worst,
             (double)bytes / (worst * 1e3) * 2.0 * (nranks - 1) / nranks);
  }
  ncclCommDestroy(comm);
  cudaFree(in);
  cudaFree(out);
  MPI_Finalize();
  return 0;
}
