/* A known number of collectives, for the TOPOCOLL_STATS report (test/mpi/stats-report.test.ts):
 *   stats_calls <barriers> <allreduces> [--no-finalize]
 * Every rank calls MPI_Barrier <barriers> times and MPI_Allreduce of 4 doubles <allreduces>
 * times, then MPI_Bcast of 16 bytes from rank 0 once; each checks what it received. With
 * --no-finalize the ranks exit without MPI_Finalize (the report must then print nothing). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: stats_calls <barriers> <allreduces> [--no-finalize]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long barriers = strtol(argv[1], NULL, 10), allreduces = strtol(argv[2], NULL, 10);
  int finalize = !(argc > 3 && strcmp(argv[3], "--no-finalize") == 0);
  for (long i = 0; i < barriers; i++) MPI_Barrier(MPI_COMM_WORLD);
  double in[4] = {rank, 1, 2, 3}, out[4];
  long wrong = 0;
  for (long i = 0; i < allreduces; i++) {
    MPI_Allreduce(in, out, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (out[0] != size * (size - 1) / 2.0 || out[3] != 3.0 * size) wrong++;
  }
  char message[16] = {0};
  if (rank == 0) memcpy(message, "from rank zero", 15);
  MPI_Bcast(message, 16, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (strcmp(message, "from rank zero") != 0) wrong++;
  printf("stats_calls: rank %d of %d, %ld wrong\n", rank, size, wrong);
  fflush(stdout);
  if (finalize) MPI_Finalize();
  return 0;
}
