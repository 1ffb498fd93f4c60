/* The shared-memory collectives from C under the preload library: MPI_Barrier, MPI_Bcast,
 * MPI_Allgather and MPI_Alltoall (blocking, in place, nonblocking, a derived datatype, a
 * sub-communicator) with whatever algorithms TOPOCOLL_* force; every received byte is checked.
 * Prints "ok <rank> <checks>" or the first mismatches on stderr and exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks = 0, bad = 0;

static unsigned char pattern(long seed, long i) { return (unsigned char)((seed * 131 + i * 7 + (i >> 8)) % 251); }

static void expect_bytes(const char *what, const unsigned char *got, long n, long seed, int rank) {
  checks++;
  for (long i = 0; i < n; i++) {
    if (got[i] != pattern(seed, i)) {
      if (bad++ < 10) fprintf(stderr, "rank %d: %s: byte %ld is %d, want %d\n", rank, what, i, got[i], pattern(seed, i));
      return;
    }
  }
}

static void collectives(MPI_Comm comm, const char *name) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  char what[128];

  for (int i = 0; i < 10; i++) MPI_Barrier(comm);
  checks++;

  /* bcast: sizes around the short-message bound and through several shm chunks */
  const long bcast_sizes[] = {1, 100, 12289, 200000, 1500000};
  for (size_t s = 0; s < sizeof bcast_sizes / sizeof *bcast_sizes; s++) {
    long n = bcast_sizes[s];
    unsigned char *buf = malloc(n);
    for (int root = 0; root < p; root += (p > 2 ? p - 1 : 1)) {
      long seed = n + root;
      for (long i = 0; i < n; i++) buf[i] = me == root ? pattern(seed, i) : 0;
      MPI_Bcast(buf, (int)n, MPI_BYTE, root, comm);
      snprintf(what, sizeof what, "%s bcast %ld B root %d", name, n, root);
      expect_bytes(what, buf, n, seed, me);
    }
    free(buf);
  }

  /* bcast of a strided derived type: every other int of 2 * 5000 */
  {
    MPI_Datatype every_other;
    MPI_Type_vector(5000, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int *v = malloc(sizeof(int) * 10000);
    for (int i = 0; i < 10000; i++) v[i] = me == 0 ? i : (i % 2 ? -7 : -1);
    MPI_Bcast(v, 1, every_other, 0, comm);
    int ok = 1;
    for (int i = 0; i < 10000 && ok; i++) ok = v[i] == (i % 2 == 0 || me == 0 ? i : -7);
    checks++;
    if (!ok && bad++ < 10) fprintf(stderr, "rank %d: %s bcast of a vector type wrong\n", me, name);
    free(v);
    MPI_Type_free(&every_other);
  }

  /* allgather, also in place */
  const long ag_sizes[] = {1, 1000, 70000};
  for (size_t s = 0; s < sizeof ag_sizes / sizeof *ag_sizes; s++) {
    long n = ag_sizes[s];
    unsigned char *mine = malloc(n), *all = malloc(n * p);
    for (long i = 0; i < n; i++) mine[i] = pattern(me * 17 + n, i);
    for (int mode = 0; mode < 2; mode++) {
      memset(all, 0, n * p);
      if (mode == 0) {
        MPI_Allgather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, comm);
      } else {
        memcpy(all + me * n, mine, n);
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, (int)n, MPI_BYTE, comm);
      }
      for (int r = 0; r < p; r++) {
        snprintf(what, sizeof what, "%s allgather%s %ld B block %d", name, mode ? " in place" : "", n, r);
        expect_bytes(what, all + r * n, n, r * 17 + n, me);
      }
    }
    free(mine);
    free(all);
  }

  /* alltoall: block j of rank r carries seed r * 1000 + j */
  const long aa_sizes[] = {1, 5000, 300000};
  for (size_t s = 0; s < sizeof aa_sizes / sizeof *aa_sizes; s++) {
    long n = aa_sizes[s];
    unsigned char *send = malloc(n * p), *recv = malloc(n * p);
    for (int j = 0; j < p; j++)
      for (long i = 0; i < n; i++) send[j * n + i] = pattern(me * 1000 + j + n, i);
    memset(recv, 0, n * p);
    MPI_Alltoall(send, (int)n, MPI_BYTE, recv, (int)n, MPI_BYTE, comm);
    for (int j = 0; j < p; j++) {
      snprintf(what, sizeof what, "%s alltoall %ld B from %d", name, n, j);
      expect_bytes(what, recv + j * n, n, j * 1000 + me + n, me);
    }
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, send, (int)n, MPI_BYTE, comm);
    for (int j = 0; j < p; j++) {
      snprintf(what, sizeof what, "%s alltoall in place %ld B from %d", name, n, j);
      expect_bytes(what, send + j * n, n, j * 1000 + me + n, me);
    }
    free(send);
    free(recv);
  }

  /* nonblocking: several in flight on one communicator, completed together */
  {
    long n = 60000;
    unsigned char *a = malloc(n), *b = malloc(n);
    for (long i = 0; i < n; i++) {
      a[i] = me == 0 ? pattern(5, i) : 0;
      b[i] = me == p - 1 ? pattern(6, i) : 0;
    }
    MPI_Request req[3];
    MPI_Ibcast(a, (int)n, MPI_BYTE, 0, comm, &req[0]);
    MPI_Ibarrier(comm, &req[1]);
    MPI_Ibcast(b, (int)n, MPI_BYTE, p - 1, comm, &req[2]);
    MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
    snprintf(what, sizeof what, "%s ibcast a", name);
    expect_bytes(what, a, n, 5, me);
    snprintf(what, sizeof what, "%s ibcast b", name);
    expect_bytes(what, b, n, 6, me);
    free(a);
    free(b);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  collectives(MPI_COMM_WORLD, "world");
  /* A sub-communicator of the odd and even ranks, reversed: its own hierarchy and segments. */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
  collectives(half, "half");
  MPI_Comm_free(&half);
  MPI_Barrier(MPI_COMM_WORLD);
  if (bad) {
    fprintf(stderr, "rank %d: %d of %d checks failed\n", rank, bad, checks);
    MPI_Finalize();
    return 1;
  }
  printf("ok %d %d\n", rank, checks);
  MPI_Finalize();
  return 0;
}
