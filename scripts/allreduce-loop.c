/* The plainest possible MPI_Allreduce timing, as an anchor for collbench's
 * figure: 20 warm-up calls, then back-to-back timed calls on rank 0's clock.
 * Prints the mean (loop time / ITERS) and, from a timestamp per call, the
 * median, in microseconds: collbench reports a median.
 * usage: mpirun -np 2 allreduce-loop BYTES ITERS  -> "MEAN MEDIAN" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

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
  double *stamp = malloc((size_t)(iters + 1) * sizeof *stamp);
  MPI_Barrier(MPI_COMM_WORLD);
  stamp[0] = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    stamp[i + 1] = MPI_Wtime();
  }
  double mean = (stamp[iters] - stamp[0]) / iters * 1e6;
  for (int i = 0; i < iters; i++)
    stamp[i] = stamp[i + 1] - stamp[i];
  qsort(stamp, (size_t)iters, sizeof *stamp, cmp);
  if (rank == 0)
    printf("%.3f %.3f\n", mean, stamp[iters / 2] * 1e6);
  free(stamp);
  free(in);
  free(out);
  return MPI_Finalize();
}
