/* A pending nonblocking collective moved on while its rank blocks in a call the library does not
 * define (issue 17; MPICH 4.0 has no progress hook: interpose/requests.cc). Rank 0 starts an
 * MPI_Ibcast of N bytes from ROOT, then makes the blocking call CALL before MPI_Wait; the other
 * ranks wait for the Ibcast first, then make CALL. MPI's progress rule makes the program correct.
 *   progress N ROOT [LEVEL [CALL]]
 * LEVEL: init (MPI_Init), single, funneled, serialized or multiple (MPI_Init_thread; default
 * single). CALL: comm_split (default), gather, scan or allreduce. The program checks that MPI
 * tells it the level it asked for (provided, MPI_Query_thread), and MPI_Is_thread_main.
 * Prints "progress: ok on P ranks (thread level L, CALL)" on rank 0; exits 1 on a wrong byte. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char* const kLevels[] = {"single", "funneled", "serialized", "multiple"};
static const int kLevelValues[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};

static void* isMain(void* out) {
  MPI_Is_thread_main((int*)out);
  return NULL;
}

/* The blocking call rank 0 makes with the Ibcast pending; every rank makes it once. */
static int blockingCall(const char* call, int rank, int size) {
  int one = 1, sum = 0;
  if (!strcmp(call, "allreduce")) {
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return sum == size;
  }
  if (!strcmp(call, "scan")) {
    MPI_Scan(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return sum == rank + 1;
  }
  if (!strcmp(call, "gather")) {
    int* all = malloc(sizeof(int) * size);
    MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int ok = 1;
    for (int i = 0; rank == 0 && i < size; i++) ok &= all[i] == i;
    free(all);
    return ok;
  }
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int half_rank = -1, half_size = 0;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);
  MPI_Comm_free(&half);
  return half_size == (size + 1 - rank % 2) / 2 && half_rank == half_size - 1 - rank / 2;
}

int main(int argc, char** argv) {
  const char* level_name = argc > 3 ? argv[3] : "single";
  const char* call = argc > 4 ? argv[4] : "comm_split";
  int asked = -1, provided = -1, queried = -1;
  if (!strcmp(level_name, "init")) {
    MPI_Init(&argc, &argv);
    /* MPI_Init gives single, unless MPICH's MPIR_CVAR_DEFAULT_THREAD_LEVEL says otherwise */
    const char* v = getenv("MPIR_CVAR_DEFAULT_THREAD_LEVEL");
    asked = MPI_THREAD_SINGLE;
    for (int i = 0; v && i < 4; i++)
      if (!strncasecmp(v, "MPI_THREAD_", 11) && !strcasecmp(v + 11, kLevels[i])) asked = kLevelValues[i];
    provided = asked;
  } else {
    for (int i = 0; i < 4; i++)
      if (!strcmp(level_name, kLevels[i])) asked = kLevelValues[i];
    if (asked < 0) {
      fprintf(stderr, "progress: unknown level %s\n", level_name);
      return 2;
    }
    MPI_Init_thread(&argc, &argv, asked, &provided);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Query_thread(&queried);
  int main_here = 0, main_there = 1;
  pthread_t t;
  MPI_Is_thread_main(&main_here);
  pthread_create(&t, NULL, isMain, &main_there);
  pthread_join(t, NULL);
  int bad_level = provided != asked || queried != asked || !main_here || main_there;
  if (bad_level)
    fprintf(stderr, "FAIL rank %d: asked for thread level %d, provided %d, MPI_Query_thread %d, MPI_Is_thread_main %d here, %d in another thread\n",
            rank, asked, provided, queried, main_here, main_there);

  long n = argc > 1 ? atol(argv[1]) : 1 << 25;
  int root = argc > 2 ? atoi(argv[2]) % size : 0;
  char* b = malloc(n);
  MPI_Bcast(b, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD); /* sets up what the Ibcast needs */
  for (long i = 0; i < n; i++) b[i] = rank == root ? (char)(i * 7 + 3) : 0;
  MPI_Request r;
  int call_ok;
  MPI_Ibcast(b, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &r);
  if (rank == 0) {
    call_ok = blockingCall(call, rank, size);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    call_ok = blockingCall(call, rank, size);
  }
  long bad = 0;
  for (long i = 0; i < n; i++) bad += b[i] != (char)(i * 7 + 3);
  if (bad || !call_ok) fprintf(stderr, "FAIL rank %d: %ld wrong bytes, %s %s\n", rank, bad, call, call_ok ? "right" : "wrong");
  int any = 0, mine = bad || !call_ok || bad_level;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any) printf("progress: ok on %d ranks (thread level %d, %s)\n", size, provided, call);
  free(b);
  MPI_Finalize();
  return any;
}
