/* The plainest possible timed ncclAllReduce loop, as an anchor for
 * collbench's nccl figures: one GPU per rank (local rank modulo the GPUs),
 * float sum out of place on one stream, 20 warm-up calls, then ITERS
 * back-to-back calls timed with CUDA events. Prints the mean time per call
 * in microseconds and the bus bandwidth (2(n-1)/n x bytes / time).
 * With SHARE_GPU=1 each rank gets its own NCCL_HOSTID, so several ranks can
 * share one GPU (NCCL then treats each as a node of its own).
 * build: mpicc -O2 -I$CUDA/include nccl-allreduce-loop.c -L$CUDA/lib64 -lnccl -lcudart
 * usage: mpirun -np N nccl-allreduce-loop BYTES ITERS -> "TIME_US BUSBW_GBPS" on rank 0 */
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
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

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks, local;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  size_t bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : 1 << 20;
  int iters = argc > 2 ? atoi(argv[2]) : 100;
  size_t count = bytes / sizeof(float);
  if (getenv("SHARE_GPU") && atoi(getenv("SHARE_GPU"))) {
    char id[64];
    snprintf(id, sizeof id, "nccl-allreduce-loop-rank-%d", rank);
    setenv("NCCL_HOSTID", id, 1);
  }
  int ngpus;
  TRY(cudaGetDeviceCount(&ngpus));
  TRY(cudaSetDevice(local % ngpus));
  float *in, *out;
  TRY(cudaMalloc((void **)&in, count * sizeof(float)));
  TRY(cudaMalloc((void **)&out, count * sizeof(float)));
  TRY(cudaMemset(in, 0, count * sizeof(float)));
  cudaStream_t stream;
  TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ncclUniqueId uid;
  if (rank == 0)
    TRY(ncclGetUniqueId(&uid));
  MPI_Bcast(&uid, sizeof uid, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  TRY(ncclCommInitRank(&comm, nranks, uid, rank));
  for (int i = 0; i < 20; i++)
    TRY(ncclAllReduce(in, out, count, ncclFloat, ncclSum, comm, stream));
  TRY(cudaStreamSynchronize(stream));
  MPI_Barrier(MPI_COMM_WORLD);
  cudaEvent_t start, end;
  TRY(cudaEventCreate(&start));
  TRY(cudaEventCreate(&end));
  TRY(cudaEventRecord(start, stream));
  for (int i = 0; i < iters; i++)
    TRY(ncclAllReduce(in, out, count, ncclFloat, ncclSum, comm, stream));
  TRY(cudaEventRecord(end, stream));
  TRY(cudaEventSynchronize(end));
  float ms;
  TRY(cudaEventElapsedTime(&ms, start, end));
  double us = ms * 1e3 / iters, worst;
  /* the slowest rank's time, like collbench's */
  MPI_Reduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%.3f %.3f\n", worst, (double)bytes / (worst * 1e3) * 2.0 * (nranks - 1) / nranks);
  ncclCommDestroy(comm);
  cudaFree(in);
  cudaFree(out);
  MPI_Finalize();
  return 0;
}
