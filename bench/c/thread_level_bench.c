/* The side of `npm run bench:thread-level` that runs under MPI: small-message latency at a given
 * thread level, for what initializing MPICH at MPI_THREAD_MULTIPLE costs a program that never
 * uses a nonblocking collective (docs/preload.md).
 *   thread_level_bench init|single|funneled|serialized|multiple ITERATIONS REPETITIONS
 * Loops, 2 ranks: a ping-pong of 8 B (MPI_Send/MPI_Recv; half the round trip), MPI_Allreduce of
 * one double, MPI_Bcast of one double. On 1 rank the same loops run on MPI_COMM_SELF (the
 * ping-pong an MPI_Sendrecv to itself) and are timed in the thread's CPU time: what the calls themselves cost,
 * which a loaded machine's time slicing leaves alone. Rank 0 prints one JSON line:
 *   {"level":"init","provided":0,"clock":"wall","pingpong":[us...],"allreduce":[us...],"bcast":[us...]}
 * with the per-call time of every repetition. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_cpu_clock;

static double now(void) {
  if (!g_cpu_clock) return MPI_Wtime();
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void print(const char* name, const double* us, int reps) {
  printf(",\"%s\":[", name);
  for (int r = 0; r < reps; r++) printf("%s%.4f", r ? "," : "", us[r]);
  printf("]");
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: thread_level_bench init|single|funneled|serialized|multiple ITERATIONS REPETITIONS\n");
    return 2;
  }
  static const char* const kLevels[] = {"single", "funneled", "serialized", "multiple"};
  const char* level = argv[1];
  int iterations = atoi(argv[2]), reps = atoi(argv[3]), provided = -1;
  if (!strcmp(level, "init")) {
    MPI_Init(&argc, &argv);
  } else {
    int asked = -1;
    for (int i = 0; i < 4; i++)
      if (!strcmp(level, kLevels[i])) asked = i == 0 ? MPI_THREAD_SINGLE : i == 1 ? MPI_THREAD_FUNNELED : i == 2 ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;
    if (asked < 0) {
      fprintf(stderr, "thread_level_bench: unknown level %s\n", level);
      return 2;
    }
    MPI_Init_thread(&argc, &argv, asked, &provided);
  }
  MPI_Query_thread(&provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_cpu_clock = size == 1;
  MPI_Comm comm = size == 1 ? MPI_COMM_SELF : MPI_COMM_WORLD;
  int peer = size == 1 ? 0 : 1 - rank;
  double* pingpong = calloc(reps, sizeof(double));
  double* allreduce = calloc(reps, sizeof(double));
  double* bcast = calloc(reps, sizeof(double));
  double value = 1, sum = 0;
  for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (int i = 0; i < iterations && rank < 2; i++) {
      if (size == 1) {
        double back;
        MPI_Sendrecv(&value, 1, MPI_DOUBLE, 0, 0, &back, 1, MPI_DOUBLE, 0, 0, comm, MPI_STATUS_IGNORE);
      } else if (rank == 0) {
        MPI_Send(&value, 1, MPI_DOUBLE, peer, 0, comm);
        MPI_Recv(&value, 1, MPI_DOUBLE, peer, 0, comm, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&value, 1, MPI_DOUBLE, peer, 0, comm, MPI_STATUS_IGNORE);
        MPI_Send(&value, 1, MPI_DOUBLE, peer, 0, comm);
      }
    }
    double t1 = now();
    for (int i = 0; i < iterations; i++) MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, comm);
    double t2 = now();
    for (int i = 0; i < iterations; i++) MPI_Bcast(&value, 1, MPI_DOUBLE, 0, comm);
    double t3 = now();
    if (r < 0) continue;
    pingpong[r] = (t1 - t0) / iterations / (size == 1 ? 1 : 2) * 1e6;
    allreduce[r] = (t2 - t1) / iterations * 1e6;
    bcast[r] = (t3 - t2) / iterations * 1e6;
  }
  if (rank == 0) {
    printf("{\"level\":\"%s\",\"provided\":%d,\"clock\":\"%s\"", level, provided, g_cpu_clock ? "cpu" : "wall");
    print("pingpong", pingpong, reps);
    print("allreduce", allreduce, reps);
    print("bcast", bcast, reps);
    printf("}\n");
  }
  free(pingpong);
  free(allreduce);
  free(bcast);
  MPI_Finalize();
  return 0;
}
