/* Legal MPI programs that a transparent override must not change (issue 17), each checked byte by
 * byte against the bytes MPI defines, under every algorithm the preloaded library has (forced in
 * turn with topocoll_force_algorithm), and without the library as a control:
 *   types      ranks pass different datatypes with equal type signatures: the root broadcasts N
 *              MPI_INT while others receive N/4 of contiguous(4, MPI_INT) or N/2 of a strided
 *              vector; allgather/alltoall with a different receive (and send) type on every rank;
 *              the gaps of the vector type must stay untouched
 *   root       MPI_Bcast/MPI_Ibcast with root = p, 10^6, -3: MPI_ERR_ROOT through the
 *              communicator's handler, called once, the buffer untouched
 *   free       MPI_Comm_free, and MPI_Type_free of a derived receive type, with collectives
 *              pending on them, then MPI_Wait
 *   first      (default selection) the program's first collective on MPI_COMM_WORLD is
 *              nonblocking, and rank 0 starts it before a barrier on another communicator that
 *              the others enter first: MPI lets MPI_Ibcast return at once, so nothing the library
 *              sets up may wait there; and (first forced) the same on a new communicator, for
 *              every collective, with every algorithm forced
 *   reuse      a communicator made while rank 0 has freed an earlier one of the same ranks and
 *              the others have not: the library's pooled duplicates (shadow_comm.h) must never
 *              pair one rank's reused duplicate with another's new one
 *   self       a program's own pending receive and send on MPI_COMM_SELF (tag 0) across
 *              collectives of derived types: they match only each other
 *   intercomm  "unidirectional" intercommunicator allgather/alltoall (one group sends 0 and
 *              receives, the other sends and receives 0), blocking and nonblocking
 * Prints "transparency: N checks on P ranks, F failures"; exits 1 on any failure.
 *   transparency [--ints N]   (N ints per block, a multiple of 4; default 4096)          */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALLGATHER, BCAST, BARRIER, ALLTOALL, NCOLL };
static const char* const kColl[] = {"allgather", "bcast", "barrier", "alltoall"};
typedef int (*AlgorithmsFn)(const char*, char*, int);
typedef int (*ForceFn)(const char*, const char*);
static ForceFn g_force;

static int g_rank, g_size, g_checks, g_failures;
static const char* g_what = "";
static const unsigned char kGap = 0xEE;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    g_checks++;                                                                \
    if (!(cond)) {                                                             \
      if (++g_failures <= 30) {                                                \
        fprintf(stderr, "FAIL rank %d [%s] line %d: ", g_rank, g_what, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                          \
        fputc('\n', stderr);                                                   \
      }                                                                        \
    }                                                                          \
  } while (0)

/* The value of int i of rank r's contribution (block b of alltoall). */
static int valueOf(int r, int b, int i) { return (r * 7919 + b * 104729 + i * 31 + 1) ^ 0x5a5a; }

/* Receive layouts of N ints with equal signatures: variant 0 N MPI_INT, 1 N/4 contiguous(4),
 * 2 N/2 of vector(2, 1, 2) (ints at 0 and 8 of every 12 bytes: a gap of 4 bytes in each). */
typedef struct {
  MPI_Datatype type;
  int count;         /* elements of `type` for N ints */
  size_t bytes;      /* memory N ints span */
} Layout;
static MPI_Datatype g_contig4, g_vec2;

static Layout layoutOf(int variant, int n) {
  Layout l;
  if (variant == 1) l = (Layout){g_contig4, n / 4, (size_t)n * 4};
  else if (variant == 2) l = (Layout){g_vec2, n / 2, (size_t)n / 2 * 12};
  else l = (Layout){MPI_INT, n, (size_t)n * 4};
  return l;
}
/* Byte offset of int i in a buffer of the layout. */
static size_t offsetOf(int variant, int i) { return variant == 2 ? (size_t)(i / 2) * 12 + (i % 2) * 8 : (size_t)i * 4; }

static char* gapFilled(size_t bytes) {
  char* b = malloc(bytes + 16);
  memset(b, kGap, bytes + 16);
  return b;
}
static void writeInts(char* buf, int variant, int n, int r, int blk) {
  for (int i = 0; i < n; i++) {
    int v = valueOf(r, blk, i);
    memcpy(buf + offsetOf(variant, i), &v, 4);
  }
}
/* Checks n ints of rank r (block blk) at buf in the layout. */
static void checkInts(const char* buf, int variant, int n, int r, int blk, const char* what) {
  int bad = 0;
  for (int i = 0; i < n && bad < 3; i++) {
    int v;
    memcpy(&v, buf + offsetOf(variant, i), 4);
    if (v != valueOf(r, blk, i)) { bad++; CHECK(0, "%s: int %d of rank %d block %d is %d, want %d", what, i, r, blk, v, valueOf(r, blk, i)); }
  }
  if (!bad) CHECK(1, "ok");
}
static void checkGaps(const char* buf, int variant, int ints_total, size_t bytes, const char* what) {
  char* covered = calloc(bytes + 16, 1);
  if (variant != 2) memset(covered, 1, (size_t)ints_total * 4);
  else
    for (int i = 0; i < ints_total; i++) memset(covered + offsetOf(2, i), 1, 4);
  int bad = 0;
  for (size_t b = 0; b < bytes + 16; b++)
    if (!covered[b] && (unsigned char)buf[b] != kGap) bad++;
  CHECK(bad == 0, "%s: %d gap bytes written", what, bad);
  free(covered);
}

/* ---- types: signature-equal, differing datatypes ------------------------------------------- */
static void typesCase(int n) {
  int mine = g_rank % 3;
  for (int root = 0; root < g_size; root += (g_size > 1 ? g_size - 1 : 1)) {
    /* bcast: the root sends MPI_INT, the others receive in their own layout */
    int variant = g_rank == root ? 0 : mine;
    Layout l = layoutOf(variant, n);
    char* buf = gapFilled(l.bytes);
    if (g_rank == root) writeInts(buf, 0, n, root, 0);
    for (int nb = 0; nb < 2; nb++) {
      if (g_rank != root) memset(buf, kGap, l.bytes + 16);
      int rc;
      if (nb) {
        MPI_Request r;
        rc = MPI_Ibcast(buf, l.count, l.type, root, MPI_COMM_WORLD, &r);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
      } else {
        rc = MPI_Bcast(buf, l.count, l.type, root, MPI_COMM_WORLD);
      }
      CHECK(rc == MPI_SUCCESS, "bcast rc %d", rc);
      checkInts(buf, variant, n, root, 0, nb ? "ibcast" : "bcast");
      checkGaps(buf, variant, n, l.bytes, nb ? "ibcast" : "bcast");
    }
    free(buf);
  }
  /* allgather and alltoall: every rank its own receive layout, and a send layout of its own */
  int send_variant = (g_rank + 1) % 3;
  for (int coll = 0; coll < 2; coll++) {
    int alltoall = coll == 1;
    int sblocks = alltoall ? g_size : 1;
    Layout sl = layoutOf(send_variant, n * sblocks), rl = layoutOf(mine, n * g_size);
    char* send = gapFilled(sl.bytes);
    for (int b = 0; b < sblocks; b++) {
      /* block b's ints sit at ints [b*n, (b+1)*n) of the send layout */
      for (int i = 0; i < n; i++) {
        int v = valueOf(g_rank, alltoall ? b : 0, i);
        memcpy(send + offsetOf(send_variant, b * n + i), &v, 4);
      }
    }
    for (int nb = 0; nb < 2; nb++) {
      char* recv = gapFilled(rl.bytes);
      int scount = sl.count / sblocks, rcount = rl.count / g_size, rc;
      MPI_Request r;
      if (alltoall)
        rc = nb ? MPI_Ialltoall(send, scount, sl.type, recv, rcount, rl.type, MPI_COMM_WORLD, &r)
                : MPI_Alltoall(send, scount, sl.type, recv, rcount, rl.type, MPI_COMM_WORLD);
      else
        rc = nb ? MPI_Iallgather(send, scount, sl.type, recv, rcount, rl.type, MPI_COMM_WORLD, &r)
                : MPI_Allgather(send, scount, sl.type, recv, rcount, rl.type, MPI_COMM_WORLD);
      if (nb && rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
      CHECK(rc == MPI_SUCCESS, "%s rc %d", kColl[alltoall ? ALLTOALL : ALLGATHER], rc);
      for (int src = 0; src < g_size; src++) {
        int bad = 0;
        for (int i = 0; i < n && bad < 3; i++) {
          int v, want = valueOf(src, alltoall ? g_rank : 0, i);
          memcpy(&v, recv + offsetOf(mine, src * n + i), 4);
          if (v != want) { bad++; CHECK(0, "%s: int %d from rank %d is %d, want %d", kColl[alltoall ? ALLTOALL : ALLGATHER], i, src, v, want); }
        }
        if (!bad) CHECK(1, "ok");
      }
      checkGaps(recv, mine, n * g_size, rl.bytes, alltoall ? "alltoall" : "allgather");
      free(recv);
    }
    free(send);
  }
  /* in place, each rank its own layout */
  Layout rl = layoutOf(mine, n * g_size);
  char* recv = gapFilled(rl.bytes);
  for (int i = 0; i < n; i++) {
    int v = valueOf(g_rank, 0, i);
    memcpy(recv + offsetOf(mine, g_rank * n + i), &v, 4);
  }
  int rc = MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, rl.count / g_size, rl.type, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS, "allgather in place rc %d", rc);
  for (int src = 0; src < g_size; src++) {
    int v, want = valueOf(src, 0, n - 1);
    memcpy(&v, recv + offsetOf(mine, src * n + n - 1), 4);
    CHECK(v == want, "allgather in place: last int from %d is %d, want %d", src, v, want);
  }
  checkGaps(recv, mine, n * g_size, rl.bytes, "allgather in place");
  free(recv);
}

/* ---- root: invalid roots raise MPI_ERR_ROOT once, through the handler ----------------------- */
static int g_handler_calls, g_handler_class;
static void countingHandler(MPI_Comm* comm, int* code, ...) {
  g_handler_calls++;
  MPI_Error_class(*code, &g_handler_class);
}

static void rootCase(void) {
  MPI_Comm comm;
  MPI_Errhandler eh;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_create_errhandler(countingHandler, &eh);
  MPI_Comm_set_errhandler(comm, eh);
  const int roots[] = {g_size, 1000000, -3, -1000000};
  for (int k = 0; k < 4; k++) {
    for (int nb = 0; nb < 2; nb++) {
      int buf[16];
      for (int i = 0; i < 16; i++) buf[i] = 77 + i;
      g_handler_calls = 0, g_handler_class = 0;
      MPI_Request r = MPI_REQUEST_NULL;
      int rc = nb ? MPI_Ibcast(buf, 16, MPI_INT, roots[k], comm, &r) : MPI_Bcast(buf, 16, MPI_INT, roots[k], comm);
      int cls = -1;
      MPI_Error_class(rc, &cls);
      CHECK(cls == MPI_ERR_ROOT, "%s root %d: error class %d, want MPI_ERR_ROOT (%d)", nb ? "ibcast" : "bcast", roots[k], cls, MPI_ERR_ROOT);
      CHECK(g_handler_calls == 1 && g_handler_class == MPI_ERR_ROOT, "%s root %d: handler called %d times (class %d), want once",
            nb ? "ibcast" : "bcast", roots[k], g_handler_calls, g_handler_class);
      int intact = 1;
      for (int i = 0; i < 16; i++) intact &= buf[i] == 77 + i;
      CHECK(intact, "%s root %d: buffer written", nb ? "ibcast" : "bcast", roots[k]);
    }
  }
  /* the communicator still works after the errors */
  int v = g_rank == 0 ? 4242 : 0;
  CHECK(MPI_Bcast(&v, 1, MPI_INT, 0, comm) == MPI_SUCCESS && v == 4242, "bcast after errors: %d", v);
  MPI_Comm_free(&comm);
  MPI_Errhandler_free(&eh);
}

/* ---- free: MPI_Comm_free with collectives pending ------------------------------------------ */
static void freeCase(int n) {
  for (int rep = 0; rep < 3; rep++) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    int* b = malloc(sizeof(int) * n);
    int* ag = malloc(sizeof(int) * n * g_size);
    int mine[4] = {g_rank, g_rank + 1, g_rank + 2, g_rank + 3};
    for (int i = 0; i < n; i++) b[i] = g_rank == 0 ? valueOf(0, rep, i) : -1;
    /* Two pending: with a third (an Ibarrier) Open MPI 4.1's own libnbc crashes at 3 ranks. */
    MPI_Request r[2];
    MPI_Ibcast(b, n, MPI_INT, 0, comm, &r[0]);
    MPI_Iallgather(mine, 4, MPI_INT, ag, 4, MPI_INT, comm, &r[1]);
    MPI_Comm_free(&comm);
    CHECK(comm == MPI_COMM_NULL, "freed comm not null");
    int rc = MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    CHECK(rc == MPI_SUCCESS, "waitall after free: rc %d", rc);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += b[i] != valueOf(0, rep, i);
    for (int s = 0; s < g_size; s++)
      for (int i = 0; i < 4; i++) bad += ag[s * 4 + i] != s + i;
    CHECK(bad == 0, "collectives on a freed communicator: %d wrong ints", bad);
    free(b);
    free(ag);
  }
}

/* ---- first: a nonblocking first collective, started in a different order on each rank ----- */
static void firstCase(int n) {
  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  int* b = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) b[i] = g_rank == 0 ? valueOf(0, 9, i) : -1;
  MPI_Request r;
  if (g_rank == 0) MPI_Ibcast(b, n, MPI_INT, 0, MPI_COMM_WORLD, &r);
  MPI_Barrier(other);
  if (g_rank != 0) MPI_Ibcast(b, n, MPI_INT, 0, MPI_COMM_WORLD, &r);
  int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS, "wait of the first collective: rc %d", rc);
  int bad = 0;
  for (int i = 0; i < n; i++) bad += b[i] != valueOf(0, 9, i);
  CHECK(bad == 0, "a nonblocking first collective: %d wrong ints", bad);
  free(b);
  MPI_Comm_free(&other);
}

/* ---- first forced: the same on a new communicator c, every collective with its algorithm forced.
 * Rank 0 starts MPI_I<coll>(c), then calls MPI_Barrier(d); the others call MPI_Barrier(d) first.
 * A forced algorithm sets c up (its duplicate, its shared memory) within the nonblocking call: it
 * must not wait there for the others. Rank 0's block is its datatype variant 1 (signature-equal). */
static void firstForcedCase(int n) {
  for (int coll = 0; coll < NCOLL; coll++) {
    MPI_Comm c, d;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    int variant = g_rank == 0 ? 1 : 0;
    Layout l = layoutOf(variant, n);
    size_t total = (coll == ALLGATHER || coll == ALLTOALL) ? l.bytes * g_size : l.bytes;
    char* send = gapFilled(l.bytes * g_size);
    char* recv = gapFilled(total);
    for (int b = 0; b < g_size; b++) writeInts(send + l.bytes * b, variant, n, g_rank, coll == ALLTOALL ? b : 0);
    if (coll == BCAST && g_rank == 0) writeInts(recv, variant, n, 0, 0);
    MPI_Request r = MPI_REQUEST_NULL;
    for (int turn = 0; turn < 2; turn++) {
      if ((g_rank == 0) == (turn == 0)) {
        int rc = coll == BCAST      ? MPI_Ibcast(recv, l.count, l.type, 0, c, &r)
                 : coll == BARRIER  ? MPI_Ibarrier(c, &r)
                 : coll == ALLGATHER ? MPI_Iallgather(send, l.count, l.type, recv, l.count, l.type, c, &r)
                                    : MPI_Ialltoall(send, l.count, l.type, recv, l.count, l.type, c, &r);
        CHECK(rc == MPI_SUCCESS, "MPI_I%s on a new communicator: rc %d", kColl[coll], rc);
      }
      if (turn == 0) MPI_Barrier(d);
    }
    int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "wait of MPI_I%s: rc %d", kColl[coll], rc);
    if (coll == BCAST) checkInts(recv, variant, n, 0, 0, "first forced ibcast");
    for (int b = 0; (coll == ALLGATHER || coll == ALLTOALL) && b < g_size; b++)
      checkInts(recv + l.bytes * b, variant, n, b, coll == ALLTOALL ? g_rank : 0, coll == ALLTOALL ? "first forced ialltoall" : "first forced iallgather");
    if (coll != BARRIER) checkGaps(recv, variant, (int)(total / l.bytes) * n, total, "first forced");
    free(send);
    free(recv);
    MPI_Comm_free(&c);
    MPI_Comm_free(&d);
  }
}

/* ---- reuse: communicators of the same ranks, freed in a different order on each rank ------- */
static void bcastAllgatherChecked(MPI_Comm comm, int n, int rep) {
  int* b = malloc(sizeof(int) * n);
  int* ag = malloc(sizeof(int) * 4 * g_size);
  int mine[4] = {g_rank * 3, g_rank * 3 + rep, 7, rep};
  for (int i = 0; i < n; i++) b[i] = g_rank == 0 ? valueOf(0, rep, i) : -1;
  MPI_Bcast(b, n, MPI_INT, 0, comm);
  MPI_Allgather(mine, 4, MPI_INT, ag, 4, MPI_INT, comm);
  MPI_Barrier(comm);
  int bad = 0;
  for (int i = 0; i < n; i++) bad += b[i] != valueOf(0, rep, i);
  for (int s = 0; s < g_size; s++) bad += ag[4 * s] != s * 3 || ag[4 * s + 1] != s * 3 + rep || ag[4 * s + 2] != 7 || ag[4 * s + 3] != rep;
  CHECK(bad == 0, "collectives on a communicator made after a free on some ranks only: %d wrong ints", bad);
  free(b);
  free(ag);
}

static void reuseCase(int n) {
  for (int rep = 0; rep < 4; rep++) {
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    bcastAllgatherChecked(a, n, rep);
    if (g_rank == 0) MPI_Comm_free(&a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    bcastAllgatherChecked(b, n, rep + 100);
    if (g_rank != 0) MPI_Comm_free(&a);
    MPI_Comm_free(&b);
  }
}

/* A derived receive type freed while an Iallgather and an Ibcast using it are pending. */
static void freeTypeCase(int n) {
  MPI_Datatype v, vec;
  MPI_Type_vector(2, 1, 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 12, &vec);
  MPI_Type_commit(&vec);
  MPI_Type_free(&v);
  Layout l = layoutOf(2, n * g_size);
  char* recv = gapFilled(l.bytes);
  char* bc = gapFilled(layoutOf(2, n).bytes);
  int* send = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) send[i] = valueOf(g_rank, 0, i);
  if (g_rank == 0) writeInts(bc, 2, n, 0, 3);
  MPI_Request r[2];
  MPI_Iallgather(send, n, MPI_INT, recv, n / 2, vec, MPI_COMM_WORLD, &r[0]);
  MPI_Ibcast(bc, n / 2, vec, 0, MPI_COMM_WORLD, &r[1]);
  MPI_Type_free(&vec);
  int rc = MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  CHECK(rc == MPI_SUCCESS, "waitall after MPI_Type_free: rc %d", rc);
  for (int s = 0; s < g_size; s++) checkInts(recv + offsetOf(2, s * n), 2, n, s, 0, "iallgather into a freed type");
  checkGaps(recv, 2, n * g_size, l.bytes, "iallgather into a freed type");
  checkInts(bc, 2, n, 0, 3, "ibcast of a freed type");
  free(recv);
  free(bc);
  free(send);
}

/* ---- self: the program's own MPI_COMM_SELF traffic is never matched by the library's -------- */
static void selfCase(int n) {
  int inbox[4] = {0, 0, 0, 0}, outbox[4] = {11, 22, 33, 44 + g_rank};
  MPI_Request rr, sr;
  MPI_Irecv(inbox, 4, MPI_INT, 0, 0, MPI_COMM_SELF, &rr);
  /* derived types on every rank: local copies of non-contiguous data */
  Layout l = layoutOf(2, n * g_size);
  char* recv = gapFilled(l.bytes);
  char* send = gapFilled(layoutOf(2, n).bytes);
  writeInts(send, 2, n, g_rank, 0);
  MPI_Allgather(send, n / 2, g_vec2, recv, n / 2, g_vec2, MPI_COMM_WORLD);
  MPI_Bcast(recv, n / 2, g_vec2, 0, MPI_COMM_WORLD);
  int flag = 0;
  MPI_Test(&rr, &flag, MPI_STATUS_IGNORE);
  CHECK(!flag, "the program's MPI_COMM_SELF receive completed before anything was sent to it");
  /* a send of ours pending on MPI_COMM_SELF during collectives */
  int inbox2[4] = {0, 0, 0, 0}, outbox2[4] = {5, 6, 7, 8};
  MPI_Isend(outbox2, 4, MPI_INT, 0, 0, MPI_COMM_SELF, &sr);
  /* the pending receive takes it: MPI matches in order */
  MPI_Wait(&rr, MPI_STATUS_IGNORE);
  CHECK(memcmp(inbox, outbox2, sizeof inbox) == 0, "self receive got %d %d %d %d", inbox[0], inbox[1], inbox[2], inbox[3]);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  MPI_Isend(outbox, 4, MPI_INT, 0, 0, MPI_COMM_SELF, &sr);
  MPI_Request ar;
  MPI_Iallgather(send, n / 2, g_vec2, recv, n / 2, g_vec2, MPI_COMM_WORLD, &ar);
  MPI_Wait(&ar, MPI_STATUS_IGNORE);
  MPI_Status st;
  MPI_Recv(inbox2, 4, MPI_INT, 0, 0, MPI_COMM_SELF, &st);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  CHECK(memcmp(inbox2, outbox, sizeof outbox) == 0, "self send pending across collectives: got %d %d %d %d", inbox2[0], inbox2[1],
        inbox2[2], inbox2[3]);
  for (int s = 0; s < g_size; s++) checkInts(recv + offsetOf(2, s * n), 2, n, s, 0, "allgather of vectors");
  free(recv);
  free(send);
}

/* ---- intercomm: unidirectional allgather and alltoall --------------------------------------- */
static void intercommCase(int count) {
  if (g_size < 2) return;
  int color = g_rank % 2;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, color, g_rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 99, &inter);
  int remote = 0;
  MPI_Comm_remote_size(inter, &remote);
  for (int alltoall = 0; alltoall < 2; alltoall++) {
    for (int nb = 0; nb < 2; nb++) {
      /* group 0 sends `count` ints and receives none; group 1 the other way round */
      int scount = color == 0 ? count : 0, rcount = color == 0 ? 0 : count;
      int sblocks = alltoall ? remote : 1;
      int* send = malloc(sizeof(int) * (size_t)count * (sblocks + 1));
      int* recv = malloc(sizeof(int) * (size_t)count * (remote + 1));
      int lrank;
      MPI_Comm_rank(local, &lrank);
      for (int b = 0; b < sblocks; b++)
        for (int i = 0; i < count; i++) send[b * count + i] = valueOf(lrank, alltoall ? b : 0, i);
      for (int i = 0; i < count * remote; i++) recv[i] = -7;
      MPI_Request r;
      int rc = alltoall ? (nb ? MPI_Ialltoall(send, scount, MPI_INT, recv, rcount, MPI_INT, inter, &r)
                              : MPI_Alltoall(send, scount, MPI_INT, recv, rcount, MPI_INT, inter))
                        : (nb ? MPI_Iallgather(send, scount, MPI_INT, recv, rcount, MPI_INT, inter, &r)
                              : MPI_Allgather(send, scount, MPI_INT, recv, rcount, MPI_INT, inter));
      if (nb && rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
      CHECK(rc == MPI_SUCCESS, "intercomm %s%s rc %d", nb ? "i" : "", alltoall ? "alltoall" : "allgather", rc);
      int bad = 0;
      if (color == 1)
        for (int s = 0; s < remote; s++)
          for (int i = 0; i < count; i++) bad += recv[s * count + i] != valueOf(s, alltoall ? lrank : 0, i);
      else
        for (int i = 0; i < count * remote; i++) bad += recv[i] != -7;
      CHECK(bad == 0, "intercomm %s%s: %d wrong ints", nb ? "i" : "", alltoall ? "alltoall" : "allgather", bad);
      free(send);
      free(recv);
    }
  }
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
}

int main(int argc, char** argv) {
  int n = 4096;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--ints") && i + 1 < argc) n = atoi(argv[++i]) / 4 * 4;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Type_contiguous(4, MPI_INT, &g_contig4);
  MPI_Type_commit(&g_contig4);
  MPI_Datatype v;
  MPI_Type_vector(2, 1, 2, MPI_INT, &v);
  MPI_Type_create_resized(v, 0, 12, &g_vec2);
  MPI_Type_commit(&g_vec2);
  MPI_Type_free(&v);

  g_what = "first";
  firstCase(n);
  AlgorithmsFn algorithms = (AlgorithmsFn)dlsym(RTLD_DEFAULT, "topocoll_algorithms");
  g_force = (ForceFn)dlsym(RTLD_DEFAULT, "topocoll_force_algorithm");
  /* Every algorithm of every collective, forced together: round k forces each collective's k-th
   * (its list cycled), so that the longest list sets the number of rounds. */
  char lists[NCOLL][1024];
  int counts[NCOLL], rounds = 1;
  for (int c = 0; c < NCOLL; c++) {
    counts[c] = 1;
    strcpy(lists[c], "system");
    if (algorithms && algorithms(kColl[c], lists[c], sizeof lists[c]) > 0) {
      counts[c] = 1;
      for (char* p = lists[c]; *p; p++) counts[c] += *p == ',';
    }
    if (counts[c] > rounds) rounds = counts[c];
  }
  for (int k = 0; k < rounds; k++) {
    char label[256] = "";
    for (int c = 0; c < NCOLL; c++) {
      char copy[1024], *save = NULL, *name = NULL;
      strcpy(copy, lists[c]);
      int idx = k % counts[c];
      name = strtok_r(copy, ",", &save);
      for (int i = 0; i < idx && name; i++) name = strtok_r(NULL, ",", &save);
      if (g_force && name && g_force(kColl[c], name) != 0) CHECK(0, "topocoll_force_algorithm(%s, %s) refused", kColl[c], name);
      snprintf(label + strlen(label), sizeof label - strlen(label), "%s%s=%s", c ? " " : "", kColl[c], name ? name : "?");
    }
    g_what = label;
    typesCase(n);
    typesCase(4);
    rootCase();
    freeCase(n);
    firstForcedCase(n);
    reuseCase(n);
    freeTypeCase(n);
    selfCase(n);
    intercommCase(n / 4);
    if (g_rank == 0) printf("round %d: %s\n", k, label);
  }
  int total_failures = 0;
  MPI_Allreduce(&g_failures, &total_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("transparency: %d checks on %d ranks, %d failures\n", g_checks, g_size, total_failures);
  MPI_Type_free(&g_contig4);
  MPI_Type_free(&g_vec2);
  MPI_Finalize();
  return total_failures ? 1 : 0;
}
