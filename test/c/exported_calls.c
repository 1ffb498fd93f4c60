/* One collective of the system MPI, without the preload: what `topocoll tune --export` files
 * are proved on (test/mpi/tune-export.test.ts). Each rank checks every byte it receives, then an
 * MPI_Allreduce and an MPI_Bcast (collectives the export leaves to the MPI) check the MPI still
 * runs the rest. A witness library, when preloaded (test/c/profiler/ucp_witness.c), records the
 * messages between witness_record(rank) and witness_record(-1): first a ring of MPI_Send (which
 * peer each message went to, known here), then the collective.
 *   exported_calls allgather|bcast|barrier|alltoall BLOCK_BYTES
 * Prints "ok <rank>" on success; exits 1 naming the first wrong byte. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char expected(int from, int to, long i) { return (unsigned char)(from * 31 + to * 7 + i); }

static void record(int rank) {
  void (*witness)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "witness_record");
  if (witness) witness(rank);
}

static int check(const unsigned char *got, int from, int to, long n, const char *what, int rank) {
  for (long i = 0; i < n; ++i) {
    if (got[i] != expected(from, to, i)) {
      fprintf(stderr, "rank %d: %s: byte %ld of the block from %d is %d, expected %d\n", rank, what, i, from, got[i], expected(from, to, i));
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: exported_calls allgather|bcast|barrier|alltoall BLOCK_BYTES\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *coll = argv[1];
  const long n = atol(argv[2]);
  unsigned char *send = malloc((size_t)(n * p + 1)), *recv = malloc((size_t)(n * p + 1));
  int bad = 0;
  /* The witness's map from its endpoints to ranks: each rank sends to the next. */
  unsigned char token = 0;
  record(rank);
  MPI_Send(&token, 1, MPI_BYTE, (rank + 1) % p, 99, MPI_COMM_WORLD);
  record(-1);
  MPI_Recv(&token, 1, MPI_BYTE, (rank + p - 1) % p, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  if (strcmp(coll, "allgather") == 0) {
    for (long i = 0; i < n; ++i) send[i] = expected(rank, 0, i);
    record(rank);
    MPI_Allgather(send, (int)n, MPI_BYTE, recv, (int)n, MPI_BYTE, MPI_COMM_WORLD);
    record(-1);
    for (int r = 0; r < p && !bad; ++r) bad = check(recv + r * n, r, 0, n, coll, rank);
  } else if (strcmp(coll, "bcast") == 0) {
    for (long i = 0; i < n; ++i) recv[i] = rank == 0 ? expected(0, 0, i) : 0;
    record(rank);
    MPI_Bcast(recv, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
    record(-1);
    bad = check(recv, 0, 0, n, coll, rank);
  } else if (strcmp(coll, "barrier") == 0) {
    record(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    record(-1);
  } else if (strcmp(coll, "alltoall") == 0) {
    for (int r = 0; r < p; ++r)
      for (long i = 0; i < n; ++i) send[r * n + i] = expected(rank, r, i);
    record(rank);
    MPI_Alltoall(send, (int)n, MPI_BYTE, recv, (int)n, MPI_BYTE, MPI_COMM_WORLD);
    record(-1);
    for (int r = 0; r < p && !bad; ++r) bad = check(recv + r * n, r, rank, n, coll, rank);
  } else {
    if (rank == 0) fprintf(stderr, "exported_calls: \"%s\" is not allgather, bcast, barrier or alltoall\n", coll);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* Collectives the export leaves to the MPI's own choice still run. */
  int mine = rank, sum = 0, root = rank == 0 ? 12345 : 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(&root, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (sum != p * (p - 1) / 2 || root != 12345) {
    fprintf(stderr, "rank %d: allreduce %d, bcast %d\n", rank, sum, root);
    bad = 1;
  }
  if (!bad) printf("ok %d\n", rank);
  free(send);
  free(recv);
  MPI_Finalize();
  return bad;
}
