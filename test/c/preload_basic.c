/* The four collectives, blocking and nonblocking, on MPI_COMM_WORLD and on an intercommunicator,
 * with the bytes checked: the small program behind the preload tests of environment forcing,
 * TOPOCOLL_VERBOSE, TOPOCOLL_PASSTHROUGH, bad settings, a profiler stacked below and
 * `topocoll mpirun`. Ends with one MPI_Send and one MPI_Wait on a receive (ranks 0 and 1).
 * Prints "preload_basic: ok on P ranks" from rank 0; exits 1 on a wrong byte. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_bad;

static void check(int ok, const char* what, int rank) {
  if (!ok && g_bad++ < 10) fprintf(stderr, "FAIL rank %d: %s\n", rank, what);
}

static void collectives(MPI_Comm comm, const char* name) {
  int rank, size, inter;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_test_inter(comm, &inter);
  if (inter) MPI_Comm_remote_size(comm, &size);
  else MPI_Comm_size(comm, &size);
  int color = 0;
  if (inter) { /* the group of world rank 0 is group 0 */
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    color = wrank % 2;
  }
  const int n = 3000;
  char* send = malloc((size_t)n * size);
  char* recv = malloc((size_t)n * size);
  char what[128];
  for (int nb = 0; nb < 2; nb++) {
    MPI_Request req = MPI_REQUEST_NULL;
    /* allgather: byte i of block r is (group, r, i) */
    for (int i = 0; i < n; i++) send[i] = (char)(color * 100 + rank * 7 + i);
    memset(recv, 0, (size_t)n * size);
    if (nb) MPI_Iallgather(send, n, MPI_BYTE, recv, n, MPI_BYTE, comm, &req), MPI_Wait(&req, MPI_STATUS_IGNORE);
    else MPI_Allgather(send, n, MPI_BYTE, recv, n, MPI_BYTE, comm);
    int other = inter ? 1 - color : color;
    for (int r = 0; r < size; r++) {
      snprintf(what, sizeof what, "%s allgather%s block %d", name, nb ? " (nonblocking)" : "", r);
      check(recv[r * n] == (char)(other * 100 + r * 7) && recv[r * n + n - 1] == (char)(other * 100 + r * 7 + n - 1), what, rank);
    }
    /* alltoall: byte i of the block from r to d is (group, r, d, i) */
    for (int d = 0; d < size; d++)
      for (int i = 0; i < n; i++) send[d * n + i] = (char)(color * 50 + rank * 11 + d * 3 + i);
    memset(recv, 0, (size_t)n * size);
    if (nb) MPI_Ialltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, comm, &req), MPI_Wait(&req, MPI_STATUS_IGNORE);
    else MPI_Alltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, comm);
    for (int r = 0; r < size; r++) {
      snprintf(what, sizeof what, "%s alltoall%s block %d", name, nb ? " (nonblocking)" : "", r);
      check(recv[r * n + 5] == (char)(other * 50 + r * 11 + rank * 3 + 5), what, rank);
    }
    /* bcast from rank 0 (of group 0 for an intercommunicator) */
    int root = 0;
    if (inter) root = color == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    for (int i = 0; i < n; i++) recv[i] = (char)((inter ? color == 0 && rank == 0 : rank == 0) ? i * 3 : 0);
    if (nb) MPI_Ibcast(recv, n, MPI_BYTE, root, comm, &req), MPI_Wait(&req, MPI_STATUS_IGNORE);
    else MPI_Bcast(recv, n, MPI_BYTE, root, comm);
    if (!inter || color == 1) {
      snprintf(what, sizeof what, "%s bcast%s", name, nb ? " (nonblocking)" : "");
      check(recv[n - 1] == (char)((n - 1) * 3), what, rank);
    }
    if (nb) MPI_Ibarrier(comm, &req), MPI_Wait(&req, MPI_STATUS_IGNORE);
    else MPI_Barrier(comm);
  }
  free(send);
  free(recv);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  collectives(MPI_COMM_WORLD, "world");
  if (size >= 2) {
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - rank % 2, 17, &inter);
    collectives(inter, "intercomm");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
  }
  if (size >= 2 && rank < 2) { /* point-to-point: rank 0 sends, rank 1 waits on a receive */
    int token = rank == 0 ? 4711 : 0;
    MPI_Request req;
    if (rank == 0) MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    else MPI_Irecv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &req), MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(token == 4711, "point-to-point token", rank);
  }
  int bad = 0;
  PMPI_Allreduce(&g_bad, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("preload_basic: %s on %d ranks\n", bad ? "FAILED" : "ok", size);
  MPI_Finalize();
  return bad ? 1 : 0;
}
