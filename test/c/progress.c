/* A pending nonblocking collective moved on while its rank blocks in a call the library does not
 * define (issue 17; MPICH 4.0 has no progress hook: interpose/requests.cc). Rank 0 starts an
 * MPI_Ibcast of N bytes from ROOT, then calls MPI_Allreduce before MPI_Wait; the other ranks wait
 * for the Ibcast first. MPI's progress rule makes the program correct.
 *   progress N ROOT [multiple]   (multiple: MPI_THREAD_MULTIPLE)
 * Prints "progress: ok on P ranks (thread level L)" on rank 0; exits 1 on a wrong byte. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int provided = 0;
  int multiple = argc > 3 && !strcmp(argv[3], "multiple");
  MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = argc > 1 ? atol(argv[1]) : 1 << 25;
  int root = argc > 2 ? atoi(argv[2]) % size : 0;
  char* b = malloc(n);
  MPI_Bcast(b, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD); /* sets up what the Ibcast needs */
  for (long i = 0; i < n; i++) b[i] = rank == root ? (char)(i * 7 + 3) : 0;
  MPI_Request r;
  int one = 1, sum = 0;
  MPI_Ibcast(b, (int)n, MPI_BYTE, root, MPI_COMM_WORLD, &r);
  if (rank == 0) {
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  long bad = 0;
  for (long i = 0; i < n; i++) bad += b[i] != (char)(i * 7 + 3);
  if (bad || sum != size) fprintf(stderr, "FAIL rank %d: %ld wrong bytes, sum %d\n", rank, bad, sum);
  int any = 0, mine = bad || sum != size;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any) printf("progress: ok on %d ranks (thread level %d)\n", size, provided);
  free(b);
  MPI_Finalize();
  return any;
}
