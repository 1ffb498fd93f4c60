/* A plain C MPI program for the preload library: MPI_Allgather and MPI_Iallgather on the world,
 * a dup and a split with reversed rank order, in place and not, several sizes and two types,
 * received bytes checked. Run with TOPOCOLL_ALLGATHER_ALGORITHM=<a remapped allgather> and
 * TOPOCOLL_VIRTUAL_NODES=<layout>. Prints "ok <rank> <checks>" or "bad <rank> <what>". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks = 0, failed = 0;

static int value(int rank, int i, int n) { return rank * 7919 + i * 31 + n; }

static void run(const char* name, MPI_Comm comm, int world_rank) {
  int p, me;
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &me);
  const int counts[] = {1, 3, 1000};
  for (int c = 0; c < 3; c++) {
    int n = counts[c];
    for (int mode = 0; mode < 4; mode++) { /* 0 blocking, 1 in place, 2 nonblocking, 3 doubles */
      int* send = malloc(sizeof(int) * n);
      int* recv = malloc(sizeof(int) * n * p);
      double* dsend = malloc(sizeof(double) * n);
      double* drecv = malloc(sizeof(double) * n * p);
      for (int i = 0; i < n * p; i++) recv[i] = -1, drecv[i] = -1;
      for (int i = 0; i < n; i++) send[i] = value(me, i, n), dsend[i] = value(me, i, n) + 0.5;
      if (mode == 0) {
        MPI_Allgather(send, n, MPI_INT, recv, n, MPI_INT, comm);
      } else if (mode == 1) {
        memcpy(recv + (size_t)me * n, send, sizeof(int) * n);
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, comm);
      } else if (mode == 2) {
        MPI_Request req;
        MPI_Iallgather(send, n, MPI_INT, recv, n, MPI_INT, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      } else {
        MPI_Allgather(dsend, n, MPI_DOUBLE, drecv, n, MPI_DOUBLE, comm);
      }
      for (int r = 0; r < p; r++) {
        for (int i = 0; i < n; i++) {
          int ok = mode == 3 ? drecv[(size_t)r * n + i] == value(r, i, n) + 0.5 : recv[(size_t)r * n + i] == value(r, i, n);
          if (!ok) {
            if (failed++ < 5) printf("bad %d %s n=%d mode=%d block %d[%d]\n", world_rank, name, n, mode, r, i);
            r = p;
            break;
          }
        }
      }
      checks++;
      free(send), free(recv), free(dsend), free(drecv);
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup, split;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &split);
  run("world", MPI_COMM_WORLD, rank);
  run("dup", dup, rank);
  run("split", split, rank);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&split);
  /* A communicator created and freed again: its cached mapping goes with it. */
  for (int i = 0; i < 3; i++) {
    MPI_Comm again;
    MPI_Comm_dup(MPI_COMM_WORLD, &again);
    run("again", again, rank);
    MPI_Comm_free(&again);
  }
  if (!failed) printf("ok %d %d\n", rank, checks);
  MPI_Finalize();
  return failed != 0;
}
