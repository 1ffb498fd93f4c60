/* A plain C MPI program for the preload library: MPI_Init reads TOPOCOLL_TOPOLOGY (a bad file
 * stops the job there), then an allgather through the engine is checked. Prints "ok <rank>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int* all = malloc(sizeof(int) * size);
  int mine = 1000 + rank;
  MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; r++) bad += all[r] != 1000 + r;
  printf("%s %d\n", bad ? "bad" : "ok", rank);
  free(all);
  MPI_Finalize();
  return bad != 0;
}
