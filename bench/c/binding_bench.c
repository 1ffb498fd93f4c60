/* The C side of `npm run bench:binding`: the same timing loops as the Node worker in
 * bench/binding.mjs, so that the difference is what the binding costs per call.
 *   binding_bench <small-iterations> <large-iterations> <repetitions> <large-bytes>
 * Cases: barrier; bcast and allgather of 8 B and of <large-bytes> (allgather: per rank).
 * Rank 0 prints one JSON line: {"program":"c","results":[{"op","bytes","us":[per-call µs per repetition]}]}.
 * Run it plain (system MPI) or with LD_PRELOAD=libtopocoll.so (the topocoll engine, as Node uses). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void run_case(const char *op, long bytes, int iterations, int repetitions, int first) {
  unsigned char *send = malloc(bytes > 0 ? bytes : 1);
  unsigned char *recv = malloc(bytes > 0 ? (size_t)bytes * size : 1);
  memset(send, rank + 1, bytes > 0 ? bytes : 1);
  double *us = malloc(sizeof(double) * repetitions);
  int warmup = iterations / 10 > 10 ? iterations / 10 : 10;
  for (int r = -1; r < repetitions; r++) {
    int n = r < 0 ? warmup : iterations;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
      if (strcmp(op, "barrier") == 0) MPI_Barrier(MPI_COMM_WORLD);
      else if (strcmp(op, "bcast") == 0) MPI_Bcast(send, (int)bytes, MPI_UINT8_T, 0, MPI_COMM_WORLD);
      else MPI_Allgather(send, (int)bytes, MPI_UINT8_T, recv, (int)bytes, MPI_UINT8_T, MPI_COMM_WORLD);
    }
    if (r >= 0) us[r] = (MPI_Wtime() - t0) / n * 1e6;
  }
  if (rank == 0) {
    printf("%s{\"op\":\"%s\",\"bytes\":%ld,\"us\":[", first ? "" : ",", op, bytes);
    for (int r = 0; r < repetitions; r++) printf("%s%.4f", r ? "," : "", us[r]);
    printf("]}");
  }
  free(send);
  free(recv);
  free(us);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: binding_bench <small-iterations> <large-iterations> <repetitions> <large-bytes>\n");
    return 2;
  }
  int small = atoi(argv[1]), large = atoi(argv[2]), reps = atoi(argv[3]);
  long large_bytes = atol(argv[4]);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) printf("{\"program\":\"c\",\"results\":[");
  run_case("barrier", 0, small, reps, 1);
  run_case("bcast", 8, small, reps, 0);
  run_case("allgather", 8, small, reps, 0);
  run_case("bcast", large_bytes, large, reps, 0);
  run_case("allgather", large_bytes, large, reps, 0);
  if (rank == 0) printf("]}\n");
  MPI_Finalize();
  return 0;
}
