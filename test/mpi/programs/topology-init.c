/* A plain C MPI program for the preload library: MPI_Init reads TOPOCOLL_TOPOLOGY (a bad file
 * stops the job there), then an allgather and a 1 MiB float allreduce through the engine are
 * checked. Prints "ok <rank>". */
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
  const int n = 1 << 18;
  float* mine_v = malloc(sizeof(float) * n);
  float* sum = malloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) mine_v[i] = (float)(rank + i % 7);
  MPI_Allreduce(mine_v, sum, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; i++) bad += sum[i] != (float)(size * (size - 1) / 2 + size * (i % 7));
  free(mine_v);
  free(sum);
  printf("%s %d\n", bad ? "bad" : "ok", rank);
  free(all);
  MPI_Finalize();
  return bad != 0;
}
