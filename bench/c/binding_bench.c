/* The C side of `npm run bench:binding`: the same timing loops as the Node worker in
 * bench/binding.mjs, so that the difference is what the binding costs per call.
 *   binding_bench <small-iterations> <large-iterations> <repetitions> <large-bytes>
 *                 [<halo-calls> <halo-blocks> <halo-bytes>...]
 * Cases: barrier; bcast and allgather of 8 B and of <large-bytes> (allgather: per rank); with the
 * halo arguments, the Node worker's ring halo exchange at each size, by two MPI_Sendrecv and by
 * MPI_Irecv, MPI_Irecv, MPI_Isend, MPI_Isend and MPI_Waitall (blocks interleaved as there).
 * Rank 0 prints one JSON line: {"program":"c","results":[{"op","bytes","us":[per-call µs per
 * repetition]}],"haloResults":[{"op","bytes","us":[per-call µs per block]}]}.
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

/* One ring halo exchange of n doubles to each neighbour: tag 0 to the right, tag 1 to the left. */
static void halo(int blocking, double *send, double *from_left, double *from_right, int n) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  if (blocking) {
    MPI_Sendrecv(send, n, MPI_DOUBLE, right, 0, from_left, n, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(send, n, MPI_DOUBLE, left, 1, from_right, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return;
  }
  MPI_Request q[4];
  MPI_Irecv(from_left, n, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &q[0]);
  MPI_Irecv(from_right, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &q[1]);
  MPI_Isend(send, n, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &q[2]);
  MPI_Isend(send, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &q[3]);
  MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
}

/* The halo at `bytes` both ways, in `blocks` interleaved blocks (and one untimed) of as many calls
 * as the Node worker makes at that size. */
static void run_halo(long bytes, int calls, int blocks, int first) {
  static const char *names[2] = {"halo by MPI_Waitall", "halo by sendrecv"};
  int n = (int)(bytes / 8);
  double *send = malloc(bytes), *from_left = malloc(bytes), *from_right = malloc(bytes);
  for (int i = 0; i < n; i++) send[i] = rank + 1;
  int per_block = (int)((calls * 1024.0) / (bytes > 1024 ? bytes : 1024) + 0.5);
  if (per_block < 10) per_block = 10;
  double *us = malloc(sizeof(double) * 2 * blocks);
  for (int b = -1; b < blocks; b++) {
    for (int blocking = 0; blocking < 2; blocking++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int i = 0; i < per_block; i++) halo(blocking, send, from_left, from_right, n);
      if (b >= 0) us[blocking * blocks + b] = (MPI_Wtime() - t0) / per_block * 1e6;
    }
  }
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  if (from_left[n - 1] + from_right[n - 1] != left + right + 2) {
    fprintf(stderr, "binding_bench: halo of %ld B received %g, want %d\n", bytes, from_left[n - 1] + from_right[n - 1], left + right + 2);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    for (int blocking = 1; blocking >= 0; blocking--) {
      printf("%s{\"op\":\"%s\",\"bytes\":%ld,\"us\":[", first && blocking ? "" : ",", names[blocking], bytes);
      for (int b = 0; b < blocks; b++) printf("%s%.4f", b ? "," : "", us[blocking * blocks + b]);
      printf("]}");
    }
  }
  free(send);
  free(from_left);
  free(from_right);
  free(us);
}

int main(int argc, char **argv) {
  if (argc != 5 && argc < 8) {
    fprintf(stderr, "usage: binding_bench <small-iterations> <large-iterations> <repetitions> <large-bytes> [<halo-calls> <halo-blocks> <halo-bytes>...]\n");
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
  if (rank == 0) printf("],\"haloResults\":[");
  for (int i = 7; i < argc; i++) run_halo(atol(argv[i]), atoi(argv[5]), atoi(argv[6]), i == 7);
  if (rank == 0) printf("]}\n");
  MPI_Finalize();
  return 0;
}
