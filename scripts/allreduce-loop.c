/* The plainest possible MPI_Allreduce timing, as an anchor for collbench's
 * figure: 20 warm-up calls, then back-to-back timed calls on rank 0's clock.
 * usage: mpirun -np 2 allreduce-loop BYTES ITERS  -> prints microseconds */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  size_t count = (argc > 1 ? strtoull(argv[1], NULL, 10) : 1 << 20) / sizeof(float);
  int iters = argc > 2 ? atoi(argv[2]) : 200;
  float *in = malloc(count * sizeof *in), *out = malloc(count * sizeof *out);
  for (size_t i = 0; i < count; i++)
    in[i] = (float)(i % 13);
  for (int i = 0; i < 20; i++)
    MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++)
    MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double us = (MPI_Wtime() - t0) / iters * 1e6;
  if (rank == 0)
    printf("%.3f\n", us);
  free(in);
  free(out);
  return MPI_Finalize();
}
