/* Communicator churn: N times create a communicator, run one barrier, bcast and allgather on it
 * with the bytes checked, and free it. Behind `npm run bench:comms` (with and without the
 * preload library) and the preload test of pooled shared memory.
 *   comm_churn [iterations=1000] [dup|split|pair|all=all] [bytes=4096]
 * dup: MPI_Comm_dup of the world; split: MPI_Comm_split into two halves; pair: rank 0 and one
 * other rank, a different one each time (the others get MPI_COMM_NULL); all: the three in turn.
 * Rank 0 prints one line:
 *   comm_churn: ok on P ranks iterations N mode M seconds S rss_kib A B C shm_entries X Y Z
 *   shm_mapped U V W
 * rss (VmRSS), shm_entries (this user's topocoll-* names in /dev/shm) and shm_mapped (the
 * topocoll segments rank 0 has mapped) are read before the loop, at its middle and after it.
 * Exits 1 on a wrong byte. */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int g_bad;

static void check(int ok, const char* what, int iter, int rank) {
  if (!ok && g_bad++ < 10) fprintf(stderr, "FAIL rank %d iteration %d: %s\n", rank, iter, what);
}

static long rssKib(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "VmRSS:", 6) == 0) kib = strtol(line + 6, NULL, 10);
  }
  if (f) fclose(f);
  return kib;
}

static int shmEntries(void) {
  DIR* d = opendir("/dev/shm");
  int n = 0;
  struct dirent* e;
  struct stat st;
  char path[512];
  while (d && (e = readdir(d))) {
    if (strncmp(e->d_name, "topocoll-", 9) != 0) continue;
    snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
    if (lstat(path, &st) == 0 && st.st_uid == geteuid()) n++;
  }
  if (d) closedir(d);
  return n;
}

static int shmMapped(void) {
  FILE* f = fopen("/proc/self/maps", "r");
  char line[1024];
  int n = 0;
  while (f && fgets(line, sizeof line, f)) n += strstr(line, "/dev/shm/topocoll-") != NULL;
  if (f) fclose(f);
  return n;
}

static void collectives(MPI_Comm comm, int bytes, char* send, char* recv, int iter) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Barrier(comm);
  for (int i = 0; i < bytes; i++) recv[i] = rank == 0 ? (char)(iter + i * 3) : 0;
  MPI_Bcast(recv, bytes, MPI_BYTE, 0, comm);
  check(recv[0] == (char)iter && recv[bytes - 1] == (char)(iter + (bytes - 1) * 3), "bcast", iter, rank);
  for (int i = 0; i < bytes; i++) send[i] = (char)(iter + rank * 7 + i);
  MPI_Allgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm);
  for (int r = 0; r < size; r++) {
    const char* b = recv + (size_t)r * bytes;
    check(b[0] == (char)(iter + r * 7) && b[bytes - 1] == (char)(iter + r * 7 + bytes - 1), "allgather", iter, rank);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iterations = argc > 1 ? atoi(argv[1]) : 1000;
  const char* mode = argc > 2 ? argv[2] : "all";
  int bytes = argc > 3 ? atoi(argv[3]) : 4096;
  if (bytes < 1) bytes = 1;
  char* send = malloc((size_t)bytes);
  char* recv = malloc((size_t)bytes * size);
  long rss[3];
  int shm[3], mapped[3];

  MPI_Barrier(MPI_COMM_WORLD);
  rss[0] = rssKib();
  shm[0] = shmEntries();
  mapped[0] = shmMapped();
  double t0 = MPI_Wtime();
  for (int i = 0; i < iterations; i++) {
    MPI_Comm comm;
    const char* m = strcmp(mode, "all") == 0 ? (const char*[]){"dup", "split", "pair"}[i % 3] : mode;
    if (strcmp(m, "split") == 0) {
      MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2, rank, &comm);
    } else if (strcmp(m, "pair") == 0) {
      int partner = size > 1 ? 1 + (i / 3) % (size - 1) : 0;
      MPI_Comm_split(MPI_COMM_WORLD, rank == 0 || rank == partner ? 0 : MPI_UNDEFINED, rank, &comm);
    } else {
      MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    }
    if (comm != MPI_COMM_NULL) {
      collectives(comm, bytes, send, recv, i);
      MPI_Comm_free(&comm);
    }
    if (i == iterations / 2) {
      rss[1] = rssKib();
      shm[1] = shmEntries();
      mapped[1] = shmMapped();
    }
  }
  double seconds = MPI_Wtime() - t0;
  rss[2] = rssKib();
  shm[2] = shmEntries();
  mapped[2] = shmMapped();
  if (iterations == 0) rss[1] = rss[0], shm[1] = shm[0], mapped[1] = mapped[0];

  int bad = g_bad, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && !any) {
    printf("comm_churn: ok on %d ranks iterations %d mode %s seconds %.6f rss_kib %ld %ld %ld shm_entries %d %d %d shm_mapped %d %d %d\n",
           size, iterations, mode, seconds, rss[0], rss[1], rss[2], shm[0], shm[1], shm[2], mapped[0], mapped[1], mapped[2]);
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return any ? 1 : 0;
}
