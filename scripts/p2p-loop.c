/* The plainest possible point-to-point timing between ranks 0 and 1, as an
 * anchor for collbench's p2p_lat and p2p_bw (the OSU patterns):
 *   lat: blocking ping-pong; one time = half a round trip
 *   bw:  a window of WINDOW non-blocking sends, acknowledged by the receiver
 *        (osu_bw); one time = window time / WINDOW
 * 10 warm-up repetitions, then ITERS timed ones back to back on rank 0's
 * clock. Prints the mean (loop time / ITERS) and the median of the
 * per-repetition times, in microseconds per message.
 * usage: mpirun -np 2 p2p-loop lat|bw BYTES ITERS [WINDOW]  -> "MEAN MEDIAN" */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void once(int bw, int rank, char *buf, int bytes, int window, MPI_Request *req) {
  int peer = 1 - rank, ack = 0;
  if (!bw) {
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    }
    return;
  }
  for (int i = 0; i < window; i++)
    if (rank == 0)
      MPI_Isend(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &req[i]);
    else
      MPI_Irecv(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &req[i]);
  MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
  if (rank == 0)
    MPI_Recv(&ack, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  else
    MPI_Send(&ack, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4 || size != 2) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -np 2 p2p-loop lat|bw BYTES ITERS [WINDOW]\n");
    MPI_Finalize();
    return 2;
  }
  int bw = strcmp(argv[1], "bw") == 0, bytes = atoi(argv[2]), iters = atoi(argv[3]);
  int window = bw ? (argc > 4 ? atoi(argv[4]) : 64) : 1;
  char *buf = malloc(bytes ? (size_t)bytes : 1);
  memset(buf, 1, bytes ? (size_t)bytes : 1);
  MPI_Request *req = malloc((size_t)window * sizeof *req);
  for (int i = 0; i < 10; i++)
    once(bw, rank, buf, bytes, window, req);
  double *stamp = malloc((size_t)(iters + 1) * sizeof *stamp);
  MPI_Barrier(MPI_COMM_WORLD);
  stamp[0] = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    once(bw, rank, buf, bytes, window, req);
    stamp[i + 1] = MPI_Wtime();
  }
  /* per message: a window carries WINDOW, a round trip two */
  double per = bw ? window : 2.0;
  double mean = (stamp[iters] - stamp[0]) / iters / per * 1e6;
  for (int i = 0; i < iters; i++)
    stamp[i] = stamp[i + 1] - stamp[i];
  qsort(stamp, (size_t)iters, sizeof *stamp, cmp);
  if (rank == 0)
    printf("%.3f %.3f\n", mean, stamp[iters / 2] / per * 1e6);
  free(stamp);
  free(req);
  free(buf);
  return MPI_Finalize();
}
