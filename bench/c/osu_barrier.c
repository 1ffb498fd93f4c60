/* MPI_Barrier timed as the OSU micro-benchmarks' osu_barrier does (OMB 7.x, c/mpi/collective/
 * blocking/osu_barrier.c), for `npm run bench:barrier` (bench/barrier.mjs): `skip` warm-up
 * calls, then `iterations` back-to-back MPI_Barrier on MPI_COMM_WORLD timed by MPI_Wtime from
 * the first timed call to the last, the mean per call reduced to min/avg/max over the ranks.
 *   osu_barrier [iterations [skip]]        (OSU's defaults for small messages: 1000 and 200)
 * Rank 0 prints OSU's line, "# Avg Latency(us)  Min Latency(us)  Max Latency(us)  Iterations",
 * then the values, to 3 decimals (OSU prints 2: too coarse for a barrier of 0.2 us). Run it plain
 * (the system MPI) or with LD_PRELOAD=libtopocoll.so. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  long skip = argc > 2 ? strtol(argv[2], NULL, 10) : 200;
  if (iterations < 1 || skip < 0) {
    if (rank == 0) fprintf(stderr, "osu_barrier: iterations (%s) must be >= 1 and skip (%s) >= 0\n", argv[1], argc > 2 ? argv[2] : "200");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double t_start = 0.0;
  /* As OSU: the warm-up runs in the same loop; the clock starts at the first timed call. */
  MPI_Barrier(MPI_COMM_WORLD);
  for (long i = 0; i < iterations + skip; i++) {
    if (i == skip) t_start = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double latency = (MPI_Wtime() - t_start) * 1e6 / (double)iterations;
  double min_time, max_time, avg_time;
  MPI_Reduce(&latency, &min_time, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&latency, &max_time, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&latency, &avg_time, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("# OSU-style MPI Barrier Latency Test, %d ranks\n", size);
    printf("# Avg Latency(us)  Min Latency(us)  Max Latency(us)  Iterations\n");
    printf("%17.3f %16.3f %16.3f %11ld\n", avg_time / size, min_time, max_time, iterations);
  }
  MPI_Finalize();
  return 0;
}
