/* A minimal PMPI profiler, standing in for mpiP in the stacking test: counts the calls that reach
 * it and prints them at MPI_Finalize ("countcalls: rank R init 1 allgather N ..."). Preloaded
 * after libtopocoll.so, it sees what topocoll hands on to the next definition. "init" counts
 * MPI_Init and MPI_Init_thread. */
#include <mpi.h>
#include <stdio.h>

static int g_init, g_allgather, g_bcast, g_send, g_wait;

int MPI_Init(int* argc, char*** argv) {
  g_init++;
  return PMPI_Init(argc, argv);
}

/* Under MPICH topocoll hands on MPI_Init as MPI_Init_thread (docs/preload.md). */
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  g_init++;
  return PMPI_Init_thread(argc, argv, required, provided);
}

int MPI_Allgather(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm comm) {
  g_allgather++;
  return PMPI_Allgather(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Bcast(void* b, int c, MPI_Datatype t, int root, MPI_Comm comm) {
  g_bcast++;
  return PMPI_Bcast(b, c, t, root, comm);
}

int MPI_Send(const void* b, int c, MPI_Datatype t, int dest, int tag, MPI_Comm comm) {
  g_send++;
  return PMPI_Send(b, c, t, dest, tag, comm);
}

int MPI_Wait(MPI_Request* r, MPI_Status* s) {
  g_wait++;
  return PMPI_Wait(r, s);
}

int MPI_Finalize(void) {
  int rank;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "countcalls: rank %d init %d allgather %d bcast %d send %d wait %d\n", rank, g_init, g_allgather, g_bcast, g_send, g_wait);
  return PMPI_Finalize();
}
