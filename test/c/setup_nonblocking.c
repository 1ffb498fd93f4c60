/* The first call on a new communicator c is nonblocking, with an algorithm forced (issue 17):
 * rank 0 calls MPI_I<COLL>(c), then MPI_Barrier(d); the other ranks call MPI_Barrier(d) first,
 * then MPI_I<COLL>(c); then every rank waits. MPI lets MPI_I<COLL> return at once, so the library
 * may not wait there for the others while it sets c up (its duplicate, its shared memory).
 * Then MPI_Barrier(c), and the rounds after the first repeat the call on c, set up by then.
 *   setup_nonblocking COLL INTS [ROUNDS]    (COLL: bcast, allgather, alltoall, barrier; INTS per
 *                                            block; bcast from the last rank)
 * Prints "setup_nonblocking: ok on P ranks (COLL)" on rank 0; exits 1 on a wrong int. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int valueOf(int from, int block, int i, int round) { return from * 1000003 + block * 10007 + i * 3 + round; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* coll = argc > 1 ? argv[1] : "bcast";
  int n = argc > 2 ? atoi(argv[2]) : 4096, rounds = argc > 3 ? atoi(argv[3]) : 2;
  int blocks = !strcmp(coll, "bcast") || !strcmp(coll, "barrier") ? 1 : size, root = size - 1;
  int* send = malloc(sizeof(int) * n * size);
  int* recv = malloc(sizeof(int) * n * size);
  MPI_Comm c, d;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  long bad = 0;
  for (int round = 0; round < rounds; round++) {
    for (int b = 0; b < size; b++)
      for (int i = 0; i < n; i++) send[b * n + i] = valueOf(rank, !strcmp(coll, "alltoall") ? b : 0, i, round);
    for (int i = 0; i < n * size; i++) recv[i] = rank == root && !strcmp(coll, "bcast") && i < n ? send[i] : -1;
    MPI_Request r = MPI_REQUEST_NULL;
    for (int turn = 0; turn < 2; turn++) {
      if ((rank == 0) == (turn == 0)) {
        if (!strcmp(coll, "bcast")) MPI_Ibcast(recv, n, MPI_INT, root, c, &r);
        else if (!strcmp(coll, "allgather")) MPI_Iallgather(send, n, MPI_INT, recv, n, MPI_INT, c, &r);
        else if (!strcmp(coll, "alltoall")) MPI_Ialltoall(send, n, MPI_INT, recv, n, MPI_INT, c, &r);
        else MPI_Ibarrier(c, &r);
      }
      if (turn == 0) MPI_Barrier(d);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int b = 0; b < blocks && strcmp(coll, "barrier"); b++) {
      int from = !strcmp(coll, "bcast") ? root : b, block = !strcmp(coll, "alltoall") ? rank : 0;
      for (int i = 0; i < n; i++) bad += recv[b * n + i] != valueOf(from, block, i, round);
    }
    if (round == 0) MPI_Barrier(c);
  }
  if (bad) fprintf(stderr, "FAIL rank %d: %ld wrong ints (%s)\n", rank, bad, coll);
  long any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && !any) printf("setup_nonblocking: ok on %d ranks (%s)\n", size, coll);
  MPI_Comm_free(&c);
  MPI_Comm_free(&d);
  free(send);
  free(recv);
  MPI_Finalize();
  return any != 0;
}
