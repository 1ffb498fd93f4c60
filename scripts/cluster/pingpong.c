/* Ping-pong between ranks 0 and 1 (8 MiB by default): the bandwidth and latency a rank pair
 * gets on the emulated cluster. Ranks 0 and 1 share a host under --map-by slot and sit on two
 * hosts under --map-by node.
 *   mpicc.openmpi -O2 -o /tmp/pingpong scripts/cluster/pingpong.c
 *   topocoll cluster run --np 2 --map-by node /tmp/pingpong [BYTES] [REPS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double pingpong(char* buf, long bytes, int reps, int rank) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < reps; i++) {
    if (rank == 0) {
      MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - t0) / reps / 2; /* one way */
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, len;
  char host[MPI_MAX_PROCESSOR_NAME], peer[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "pingpong: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long bytes = argc > 1 ? atol(argv[1]) : 8L << 20;
  int reps = argc > 2 ? atoi(argv[2]) : 10;
  char* buf = calloc(bytes > 0 ? bytes : 1, 1);
  MPI_Get_processor_name(host, &len);
  if (rank == 1) MPI_Send(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
  if (rank == 0) MPI_Recv(peer, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  pingpong(buf, bytes, 2, rank); /* warm up: connections, buffers */
  double t = pingpong(buf, bytes, reps, rank);
  double lat = pingpong(buf, 0, 1000, rank);
  if (rank == 0) {
    printf("%s <-> %s: %ld B one way in %.3f ms = %.1f MB/s; 0 B one way %.1f us\n", host, peer, bytes, t * 1e3,
           bytes / t / 1e6, lat * 1e6);
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
