/* Conformance of the intercepted collectives, for a C program under the preload library.
 *
 * Every data case runs twice: through MPI_* (the engine, when libtopocoll.so is preloaded) and
 * through PMPI_* (the system MPI), from identical buffers. Both results must equal the expected
 * bytes, and the whole receive buffers, holes of non-contiguous types included, must be identical.
 *
 * 1. Every algorithm this build has (asked of the library: topocoll_algorithms, so that new ones
 *    are covered without a list here), plus native and auto, forced in turn with
 *    topocoll_force_algorithm: allgather, bcast, alltoall x counts {7, large} (and {0, 1} for two
 *    kinds) x element kinds {byte, strided vector resized, struct with holes, indexed resized
 *    with lb > 0} x {same types, MPI_IN_PLACE, packed bytes against the derived receive type;
 *    bcast: root 0, last, middle}, blocking and nonblocking in turn; barrier x {blocking,
 *    nonblocking}.
 * 2. With auto: every completion call (Wait, Test, Waitall/any/some mixed with point-to-point
 *    requests, Testall/any/some, Request_get_status), split/dup/self communicators, several
 *    collectives in flight, progress while blocked elsewhere (MPI_Recv; the first collective on
 *    another communicator; under Open MPI, MPI_Allreduce), MPI_Cancel/MPI_Request_free,
 *    intercommunicators (passed through), many communicators created and freed (state freed with
 *    them), and the MPI-4 `_c` entry points where the MPI has them.
 *   conformance [--large N] [--max-bytes N] [--comms N] [--require-topocoll]
 *     --large: payload bytes per block of the large count (default 70000)
 *     --max-bytes: sizes above it are left out of part 2 (default 1 MiB)
 *     --comms: communicators created, used and freed in the loop (default 300)
 *     --require-topocoll: fail unless libtopocoll.so is loaded and handles the calls
 * Rank 0 prints "algorithms <coll>: a,b,c" lines and "conformance: N cases on P ranks,
 * F failures"; every rank exits 1 on any failure. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum Coll { ALLGATHER, BCAST, BARRIER, ALLTOALL, NCOLL };
static const char* const kCollNames[] = {"allgather", "bcast", "barrier", "alltoall"};

enum Mode { BLOCKING, WAIT, TEST_LOOP, WAITALL_P2P, TESTALL, WAITANY_P2P, TESTANY, WAITSOME_P2P, TESTSOME, GET_STATUS, NMODE };
static const char* const kModeNames[] = {"blocking", "wait", "test-loop", "waitall+p2p", "testall",
                                         "waitany+p2p", "testany", "waitsome+p2p", "testsome", "request_get_status"};

/* An element type: `payload` data bytes at byte offsets disp[0..payload) inside `extent` bytes.
 * `packed`: an element of the same type signature with its payload bytes contiguous, in order. */
typedef struct {
  const char* name;
  MPI_Datatype type, packed;
  int payload;
  MPI_Aint extent;
  int disp[16];
} Kind;

enum { KIND_BYTES, KIND_STRIDED, KIND_STRUCT, KIND_INDEXED_LB, NKIND };
static Kind kinds[NKIND];

typedef struct {
  enum Coll coll;
  enum Mode mode;
  const Kind* kind;
  MPI_Count count; /* elements per block */
  int in_place;
  int packed_send; /* the send side uses kind->packed: same signature, another type map */
  int root;
  int large; /* through the MPI-4 _c entry points */
  MPI_Comm comm;
  const char* comm_name;
  const char* algorithm;
} Case;

static int g_world_rank, g_cases, g_failures;
static int g_id; /* case number: seeds the data of each case */
static const unsigned char kHole = 0xEE;

static void fail(const Case* c, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const Case* c, const char* fmt, ...) {
  if (++g_failures > 20) return;
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  fprintf(stderr, "FAIL rank %d: %s[%s] %s count=%lld %s%s%sroot=%d mode=%s comm=%s: %s\n", g_world_rank, kCollNames[c->coll],
          c->algorithm ? c->algorithm : "auto", c->kind ? c->kind->name : "-", (long long)c->count, c->in_place ? "in-place " : "",
          c->packed_send ? "packed-send " : "", c->large ? "_c " : "", c->root, kModeNames[c->mode], c->comm_name, what);
}

static unsigned char pattern(uint32_t seed, uint64_t i) {
  uint32_t x = seed * 0x9E3779B1u ^ (uint32_t)(i * 0x85EBCA77u) ^ (uint32_t)(i >> 32);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return (unsigned char)x;
}

static uint32_t seedOf(int src, int dst) { return (uint32_t)(g_id * 1009 + src * 131 + dst * 7 + 1); }

static size_t blockBytes(const Case* c) { return (size_t)c->count * (size_t)c->kind->extent; }
/* A block of the send buffer: packed payload bytes, or laid out like the receive blocks. */
static size_t sendBlockBytes(const Case* c) { return c->packed_send ? (size_t)c->count * c->kind->payload : blockBytes(c); }

static void fillPacked(char* block, const Case* c, uint32_t seed) {
  for (MPI_Count i = 0; i < c->count * c->kind->payload; i++) block[i] = (char)pattern(seed, (uint64_t)i);
}

/* Writes the payload of one block; the holes are left as they are. */
static void fillBlock(char* block, const Case* c, uint32_t seed) {
  const Kind* k = c->kind;
  for (MPI_Count e = 0; e < c->count; e++)
    for (int j = 0; j < k->payload; j++) block[e * k->extent + k->disp[j]] = (char)pattern(seed, (uint64_t)e * k->payload + j);
}

/* Checks a block: payload equal to the seed's pattern, holes untouched. Returns mismatches. */
static int checkBlock(const char* block, const Case* c, uint32_t seed, const char* which, int index) {
  const Kind* k = c->kind;
  int bad = 0;
  for (MPI_Count e = 0; e < c->count; e++) {
    int next = 0;
    for (int b = 0; b < k->extent; b++) {
      unsigned char want = kHole;
      if (next < k->payload && k->disp[next] == b) want = pattern(seed, (uint64_t)e * k->payload + next++);
      unsigned char got = (unsigned char)block[e * k->extent + b];
      if (got != want && bad++ == 0)
        fail(c, "%s block %d element %lld byte %d: got 0x%02x, want 0x%02x", which, index, (long long)e, b, got, want);
    }
  }
  return bad;
}

/* ---- starting a collective through MPI_* (ours) or PMPI_* (the system MPI's) ------------------- */

typedef struct {
  char *send, *recv; /* recv is the buffer for bcast */
} Buffers;

static int run(const Case* c, const Buffers* b, int system, MPI_Request* req) {
  const void* sb = c->in_place ? MPI_IN_PLACE : b->send;
  MPI_Datatype t = c->kind ? c->kind->type : MPI_BYTE;
  MPI_Datatype st = c->packed_send ? c->kind->packed : t;
  int n = (int)c->count;
#if MPI_VERSION >= 4
  if (c->large && !system) {
    switch (c->coll) {
      case ALLGATHER: return req ? MPI_Iallgather_c(sb, c->count, t, b->recv, c->count, t, c->comm, req) : MPI_Allgather_c(sb, c->count, t, b->recv, c->count, t, c->comm);
      case ALLTOALL: return req ? MPI_Ialltoall_c(sb, c->count, t, b->recv, c->count, t, c->comm, req) : MPI_Alltoall_c(sb, c->count, t, b->recv, c->count, t, c->comm);
      case BCAST: return req ? MPI_Ibcast_c(b->recv, c->count, t, c->root, c->comm, req) : MPI_Bcast_c(b->recv, c->count, t, c->root, c->comm);
      default: break;
    }
  }
#endif
  if (system) {
    switch (c->coll) {
      case ALLGATHER: return PMPI_Allgather(sb, n, st, b->recv, n, t, c->comm);
      case ALLTOALL: return PMPI_Alltoall(sb, n, st, b->recv, n, t, c->comm);
      case BCAST: return PMPI_Bcast(b->recv, n, t, c->root, c->comm);
      default: return PMPI_Barrier(c->comm);
    }
  }
  switch (c->coll) {
    case ALLGATHER: return req ? MPI_Iallgather(sb, n, st, b->recv, n, t, c->comm, req) : MPI_Allgather(sb, n, st, b->recv, n, t, c->comm);
    case ALLTOALL: return req ? MPI_Ialltoall(sb, n, st, b->recv, n, t, c->comm, req) : MPI_Alltoall(sb, n, st, b->recv, n, t, c->comm);
    case BCAST: return req ? MPI_Ibcast(b->recv, n, t, c->root, c->comm, req) : MPI_Bcast(b->recv, n, t, c->root, c->comm);
    default: return req ? MPI_Ibarrier(c->comm, req) : MPI_Barrier(c->comm);
  }
}

/* Completes `coll` the way the mode says; the p2p modes exchange an int around a ring of the
 * case's communicator in the same call (tag 77: our traffic must never match the user's). */
static int complete(const Case* c, MPI_Request coll) {
  int rank, size, rc = MPI_SUCCESS, flag = 0, idx, out, indices[3];
  MPI_Comm_rank(c->comm, &rank);
  MPI_Comm_size(c->comm, &size);
  int token_out = g_id * 100 + rank, token_in = -1;
  MPI_Request reqs[3] = {coll, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status statuses[3];
  int n = 1;
  if (c->mode == WAITALL_P2P || c->mode == WAITANY_P2P || c->mode == WAITSOME_P2P) {
    MPI_Irecv(&token_in, 1, MPI_INT, (rank + size - 1) % size, 77, c->comm, &reqs[1]);
    MPI_Isend(&token_out, 1, MPI_INT, (rank + 1) % size, 77, c->comm, &reqs[2]);
    n = 3;
  }
  switch (c->mode) {
    case WAIT: rc = MPI_Wait(&reqs[0], MPI_STATUS_IGNORE); break;
    case TEST_LOOP:
      while (rc == MPI_SUCCESS && !flag) rc = MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE);
      break;
    case WAITALL_P2P: rc = MPI_Waitall(n, reqs, statuses); break;
    case TESTALL:
      while (rc == MPI_SUCCESS && !flag) rc = MPI_Testall(n, reqs, &flag, statuses);
      break;
    case WAITANY_P2P:
      for (int left = n; rc == MPI_SUCCESS && left > 0; left--) {
        rc = MPI_Waitany(n, reqs, &idx, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && (idx == MPI_UNDEFINED || reqs[idx] != MPI_REQUEST_NULL)) fail(c, "MPI_Waitany returned index %d", idx);
      }
      break;
    case TESTANY:
      while (rc == MPI_SUCCESS && !flag) rc = MPI_Testany(n, reqs, &idx, &flag, MPI_STATUS_IGNORE);
      if (rc == MPI_SUCCESS && idx != 0) fail(c, "MPI_Testany completed index %d", idx);
      break;
    case WAITSOME_P2P:
      for (int left = n; rc == MPI_SUCCESS && left > 0; left -= out) {
        rc = MPI_Waitsome(n, reqs, &out, indices, statuses);
        if (rc == MPI_SUCCESS && (out == MPI_UNDEFINED || out < 1)) {
          fail(c, "MPI_Waitsome returned outcount %d with %d pending", out, left);
          break;
        }
      }
      break;
    case TESTSOME:
      for (out = 0; rc == MPI_SUCCESS && out == 0;) rc = MPI_Testsome(n, reqs, &out, indices, statuses);
      if (rc == MPI_SUCCESS && (out != 1 || indices[0] != 0)) fail(c, "MPI_Testsome: outcount %d", out);
      break;
    case GET_STATUS: {
      MPI_Status st;
      while (rc == MPI_SUCCESS && !flag) rc = MPI_Request_get_status(reqs[0], &flag, &st);
      if (rc == MPI_SUCCESS && reqs[0] == MPI_REQUEST_NULL) fail(c, "MPI_Request_get_status freed the request");
      if (rc == MPI_SUCCESS) rc = MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
      break;
    }
    default: break;
  }
  if (rc != MPI_SUCCESS) fail(c, "completion returned %d", rc);
  for (int i = 0; i < n; i++)
    if (reqs[i] != MPI_REQUEST_NULL) fail(c, "request %d not freed by completion", i);
  if (n == 3 && token_in != g_id * 100 + (rank + size - 1) % size) fail(c, "p2p token %d mixed with the collective", token_in);
  return rc;
}

/* ---- data cases --------------------------------------------------------------------------- */

static void prepare(const Case* c, Buffers* b, int rank, int size) {
  size_t block = blockBytes(c), send_block = sendBlockBytes(c);
  size_t recv_blocks = c->coll == BCAST ? 1 : (size_t)size;
  b->send = malloc(send_block * size + 1);
  b->recv = malloc(block * recv_blocks + 1);
  memset(b->send, kHole, send_block * size + 1);
  memset(b->recv, kHole, block * recv_blocks + 1);
  switch (c->coll) {
    case ALLGATHER:
      if (c->packed_send) fillPacked(b->send, c, seedOf(rank, 0));
      else fillBlock(c->in_place ? b->recv + rank * block : b->send, c, seedOf(rank, 0));
      break;
    case ALLTOALL:
      for (int d = 0; d < size; d++) {
        if (c->packed_send) fillPacked(b->send + d * send_block, c, seedOf(rank, d));
        else fillBlock((c->in_place ? b->recv : b->send) + d * block, c, seedOf(rank, d));
      }
      break;
    case BCAST: {
      fillBlock(b->recv, c, rank == c->root ? seedOf(c->root, 0) : seedOf(size + 7, 3));
      break;
    }
    default: break;
  }
}

static int verify(const Case* c, const Buffers* b, int rank, int size, const char* which) {
  size_t block = blockBytes(c);
  int bad = 0;
  for (int s = 0; s < (c->coll == BCAST ? 1 : size); s++) {
    uint32_t seed = c->coll == ALLGATHER ? seedOf(s, 0) : c->coll == ALLTOALL ? seedOf(s, rank) : seedOf(c->root, 0);
    bad += checkBlock(b->recv + s * block, c, seed, which, s);
  }
  if ((unsigned char)b->recv[block * (c->coll == BCAST ? 1 : size)] != kHole) {
    fail(c, "%s: wrote past the end of the receive buffer", which);
    bad++;
  }
  return bad;
}

static size_t recvBytes(const Case* c, int size) { return blockBytes(c) * (c->coll == BCAST ? 1 : size) + 1; }

/* The receive buffer a correct collective leaves. */
static char* expected(const Case* c, int rank, int size) {
  size_t block = blockBytes(c);
  char* want = malloc(recvBytes(c, size));
  memset(want, kHole, recvBytes(c, size));
  for (int s = 0; s < (c->coll == BCAST ? 1 : size); s++)
    fillBlock(want + s * block, c, c->coll == ALLGATHER ? seedOf(s, 0) : c->coll == ALLTOALL ? seedOf(s, rank) : seedOf(c->root, 0));
  return want;
}

static int g_system_failures;

static void systemFailed(const Case* c, int rc) {
  if (g_system_failures++ > 0) return;
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  MPI_Error_string(rc, text, &len);
  char* newline = strchr(text, '\n');
  if (newline) *newline = 0;
  fprintf(stderr, "note rank %d: the system MPI fails %s %s count=%lld %s(%s); such cases are checked against the expected bytes only\n",
          g_world_rank, kCollNames[c->coll], c->kind ? c->kind->name : "-", (long long)c->count, c->in_place ? "in-place " : "", text);
}

static void dataCase(Case* c) {
  int rank, size;
  MPI_Comm_rank(c->comm, &rank);
  MPI_Comm_size(c->comm, &size);
  Buffers ours, sys;
  prepare(c, &ours, rank, size);
  prepare(c, &sys, rank, size);
  g_cases++;
  int rc;
  if (c->mode == BLOCKING) {
    rc = run(c, &ours, 0, NULL);
  } else {
    MPI_Request req = MPI_REQUEST_NULL;
    rc = run(c, &ours, 0, &req);
    if (rc == MPI_SUCCESS) rc = complete(c, req);
  }
  int rc_sys = run(c, &sys, 1, NULL);
  if (rc_sys != MPI_SUCCESS) {
    /* The system MPI cannot run this case itself (MPICH 4.0's in-place alltoall truncates some
     * derived types): ours is checked against the expected bytes alone, unless it ran the
     * system MPI's collective (native, or auto choosing it) and failed the same way. */
    systemFailed(c, rc_sys);
    if (rc == MPI_SUCCESS) verify(c, &ours, rank, size, "ours");
  } else if (rc != MPI_SUCCESS) {
    fail(c, "returned %d", rc);
  } else {
    int bad = verify(c, &ours, rank, size, "ours") + verify(c, &sys, rank, size, "system MPI");
    if (!bad && memcmp(ours.recv, sys.recv, recvBytes(c, size)) != 0) fail(c, "result differs from the system MPI's");
  }
  free(ours.send), free(ours.recv), free(sys.send), free(sys.recv);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* one clock for every process of the host */
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A barrier lets no rank out before the last one is in: min(exit) >= max(entry). The late rank
 * arrives 2 ms after the others. Times are exchanged by the system MPI. */
static void barrierCase(Case* c) {
  int rank, size, rc;
  MPI_Comm_rank(c->comm, &rank);
  MPI_Comm_size(c->comm, &size);
  g_cases++;
  if (rank == g_id % size) usleep(2000);
  double t[2];
  t[0] = now();
  if (c->mode == BLOCKING) {
    rc = MPI_Barrier(c->comm);
  } else {
    MPI_Request req = MPI_REQUEST_NULL;
    rc = MPI_Ibarrier(c->comm, &req);
    if (rc == MPI_SUCCESS) rc = complete(c, req);
  }
  t[1] = now();
  if (rc != MPI_SUCCESS) fail(c, "returned %d", rc);
  double* all = malloc(sizeof(double) * 2 * size);
  PMPI_Allgather(t, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, c->comm);
  double last_in = all[0], first_out = all[1];
  for (int r = 0; r < size; r++) {
    if (all[2 * r] > last_in) last_in = all[2 * r];
    if (all[2 * r + 1] < first_out) first_out = all[2 * r + 1];
  }
  if (first_out < last_in) fail(c, "a rank left %.1f us before the last one entered", (last_in - first_out) * 1e6);
  free(all);
}

static void runCase(Case* c) {
  g_id++;
  if (c->coll == BARRIER) barrierCase(c);
  else dataCase(c);
}

static const long kSizes[] = {0, 1, 7, 1024, 65539, 1 << 20};
enum { NSIZES = sizeof kSizes / sizeof kSizes[0] };

static MPI_Count countFor(const Kind* k, long bytes) { return (bytes + k->payload - 1) / k->payload; }

/* Every collective x size x kind x in-place/root x the modes in [first, last]. */
static void matrix(MPI_Comm comm, const char* name, long max_bytes, enum Mode first, enum Mode last, int size_stride) {
  int size;
  MPI_Comm_size(comm, &size);
  for (int coll = 0; coll < NCOLL; coll++) {
    for (int m = first; m <= last; m++) {
      Case c = {.coll = coll, .mode = m, .comm = comm, .comm_name = name};
      if (coll == BARRIER) {
        runCase(&c);
        continue;
      }
      for (int s = 0; s < NSIZES; s += size_stride) {
        if (kSizes[s] > max_bytes) continue;
        for (int k = 0; k < NKIND; k += 1 + (size_stride > 1)) {
          for (int variant = 0; variant < 2; variant++) {
            c.kind = &kinds[k];
            c.count = countFor(c.kind, kSizes[s]);
            c.in_place = coll != BCAST && variant;
            c.root = coll == BCAST && variant ? size - 1 : 0;
            runCase(&c);
          }
        }
      }
    }
  }
}

/* ---- every algorithm of the build -------------------------------------------------------------- */

typedef int (*AlgorithmsFn)(const char* collective, char* buf, int size);
typedef int (*ForceFn)(const char* collective, const char* algorithm);
static AlgorithmsFn g_algorithms; /* null without the library (or under TOPOCOLL_PASSTHROUGH) */
static ForceFn g_force;

static void force(enum Coll coll, const char* algorithm) {
  if (g_force && g_force(kCollNames[coll], algorithm) != 0) {
    fprintf(stderr, "FAIL rank %d: topocoll_force_algorithm(%s, %s) refused\n", g_world_rank, kCollNames[coll], algorithm);
    g_failures++;
  }
}

/* One algorithm of one collective: counts {0, 1, 7, large} x every kind x three variants, each
 * case blocking or nonblocking in turn (so that every count, kind and variant meets both).
 * Count 0 and 1 are left to two kinds: they take no path the others do not. A barrier has no
 * data: blocking and nonblocking. */
static void algorithmCases(enum Coll coll, const char* algorithm, long large_bytes) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Case c = {.coll = coll, .comm = MPI_COMM_WORLD, .comm_name = "world", .algorithm = algorithm};
  if (coll == BARRIER) {
    for (int m = BLOCKING; m <= WAIT; m++) {
      c.mode = m;
      runCase(&c);
    }
    return;
  }
  int turn = 0;
  for (int k = 0; k < NKIND; k++) {
    MPI_Count counts[] = {0, 1, 7, countFor(&kinds[k], large_bytes)};
    for (int n = 0; n < 4; n++) {
      if (n < 2 && k != KIND_BYTES && k != KIND_STRUCT) continue;
      for (int variant = 0; variant < 3; variant++) {
        if (variant == 2 && coll != BCAST && k == KIND_BYTES) continue; /* packed bytes are the bytes */
        c.kind = &kinds[k];
        c.count = counts[n];
        c.mode = turn++ % 2 ? WAIT : BLOCKING;
        c.in_place = coll != BCAST && variant == 1;
        c.packed_send = coll != BCAST && variant == 2;
        c.root = coll != BCAST ? 0 : variant == 0 ? 0 : variant == 1 ? size - 1 : size / 2;
        runCase(&c);
      }
    }
  }
}

/* Native, auto and every algorithm the library can run, forced in turn. */
static void everyAlgorithm(long large_bytes) {
  for (int coll = 0; coll < NCOLL; coll++) {
    char list[1024] = "native,auto";
    if (g_algorithms) {
      size_t used = strlen(list);
      list[used] = ',';
      if (g_algorithms(kCollNames[coll], list + used + 1, (int)(sizeof list - used - 1)) <= 0) list[used] = 0;
    } else {
      strcpy(list, "system");
    }
    if (g_world_rank == 0) printf("algorithms %s: %s\n", kCollNames[coll], list);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
      force(coll, name);
      algorithmCases(coll, name, large_bytes);
    }
    force(coll, "auto");
  }
}

/* ---- requests beyond completion: MPI_Cancel, MPI_Request_free ------------------------------- */

static void cancelAndFree(MPI_Comm comm, int under_system_mpi) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Case c = {.coll = BCAST, .mode = WAIT, .kind = &kinds[KIND_STRIDED], .count = 300, .comm = comm, .comm_name = "world"};
  /* MPI calls MPI_Cancel and MPI_Request_free on a nonblocking collective's request erroneous
   * (MPI-3.1 5.12), and Open MPI's own collectives fail them; the library's requests tolerate
   * both (docs/preload.md), which is what is checked here, with the library only. */
  if (!under_system_mpi) {
    g_id++, g_cases++;
    Buffers b;
    prepare(&c, &b, rank, size);
    MPI_Request req;
    MPI_Status st;
    int cancelled = 1;
    MPI_Ibcast(b.recv, (int)c.count, c.kind->type, c.root, comm, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &cancelled);
    if (cancelled) fail(&c, "MPI_Test_cancelled reports a cancelled collective");
    verify(&c, &b, rank, size, "after MPI_Cancel");
    free(b.send), free(b.recv);

    /* A freed request completes in the background; polling MPI_Test on anything progresses it. */
    g_id++, g_cases++;
    c.coll = ALLGATHER;
    prepare(&c, &b, rank, size);
    char* want = expected(&c, rank, size);
    MPI_Iallgather(b.send, (int)c.count, c.kind->type, b.recv, (int)c.count, c.kind->type, comm, &req);
    MPI_Request_free(&req);
    if (req != MPI_REQUEST_NULL) fail(&c, "MPI_Request_free left the handle set");
    MPI_Request none = MPI_REQUEST_NULL;
    int flag;
    for (double deadline = now() + 30; memcmp(b.recv, want, recvBytes(&c, size)) != 0 && now() < deadline;) {
      MPI_Test(&none, &flag, MPI_STATUS_IGNORE);
    }
    verify(&c, &b, rank, size, "after MPI_Request_free");
    free(want);
    free(b.send), free(b.recv);
  }
}

/* ---- progress: a rank blocked in something else still moves its pending collectives on ---------- */

static void progressCases(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2) return;
  Case c = {.coll = BARRIER, .mode = WAIT, .comm = comm, .comm_name = "world: blocked in MPI_Recv"};
  g_id++, g_cases++;
  /* Rank 0 waits in MPI_Recv for a message the last rank sends only after its MPI_Wait returns. */
  MPI_Request req;
  int token = 0;
  MPI_Ibarrier(comm, &req);
  if (rank == 0) {
    MPI_Recv(&token, 1, MPI_INT, size - 1, 78, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (token != 4242) fail(&c, "received %d", token);
  } else {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    token = 4242;
    if (rank == size - 1) MPI_Send(&token, 1, MPI_INT, 0, 78, comm);
  }

  /* Rank 0 runs a blocking bcast on another communicator while an allgather is pending that the
   * others wait for first; they start late, so that rank 0 surely has it pending and they do not.
   * binomial: our schedule, polled together with the allgather. native: the MPI's blocking bcast
   * on every rank, because a blocking collective never matches a nonblocking one (rank 0 is the
   * root and sends eagerly, so MPICH, which has no progress hook, passes too). */
  MPI_Comm other;
  PMPI_Comm_dup(comm, &other);
#if !defined(OMPI_MAJOR_VERSION)
  /* MPICH has no progress hook: the setup collectives of a communicator's first use would not
   * progress the pending allgather (docs/preload.md), so `other` is set up beforehand. */
  MPI_Barrier(other);
#endif
  static const char* const bcast_algorithms[] = {"binomial", "native"};
  static const char* const bcast_cases[] = {"world: blocked in a binomial MPI_Bcast on another comm",
                                            "world: blocked in a native MPI_Bcast on another comm"};
  Buffers b;
  for (int a = 0; a < 2; a++) {
    c = (Case){.coll = ALLGATHER, .mode = WAIT, .kind = &kinds[KIND_BYTES], .count = 3000, .comm = comm,
               .comm_name = bcast_cases[a]};
    g_id++, g_cases++;
    prepare(&c, &b, rank, size);
    int value = rank == 0 ? 99 + a : 0;
    force(BCAST, bcast_algorithms[a]);
    if (rank != 0) usleep(20000);
    MPI_Iallgather(b.send, (int)c.count, MPI_BYTE, b.recv, (int)c.count, MPI_BYTE, comm, &req);
    if (rank == 0) {
      MPI_Bcast(&value, 1, MPI_INT, 0, other);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      MPI_Bcast(&value, 1, MPI_INT, 0, other);
    }
    force(BCAST, "auto");
    if (value != 99 + a) fail(&c, "bcast on the other communicator delivered %d", value);
    verify(&c, &b, rank, size, "ours");
    free(b.send), free(b.recv);
  }
  PMPI_Comm_free(&other);

#if defined(OMPI_MAJOR_VERSION)
  /* Open MPI only (its progress hook): rank 0 blocks in a call the library does not define,
   * MPI_Allreduce, while a ring allgather is pending that the others complete first: every
   * round of the ring needs rank 0 to forward a block from inside MPI_Allreduce. */
  c = (Case){.coll = ALLGATHER, .mode = WAIT, .kind = &kinds[KIND_STRUCT], .count = 500, .comm = comm,
             .comm_name = "world: blocked in MPI_Allreduce (not intercepted)", .algorithm = "ring"};
  g_id++, g_cases++;
  prepare(&c, &b, rank, size);
  int sum = 0, one = 1;
  force(ALLGATHER, "ring");
  MPI_Iallgather(b.send, (int)c.count, c.kind->type, b.recv, (int)c.count, c.kind->type, comm, &req);
  force(ALLGATHER, "auto");
  if (rank == 0) {
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
  }
  if (sum != size) fail(&c, "allreduce gave %d", sum);
  verify(&c, &b, rank, size, "ours");
  free(b.send), free(b.recv);
#endif
}

/* Several nonblocking collectives in flight at once on one communicator, completed in reverse. */
static void overlapping(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Case cs[3] = {{.coll = ALLGATHER, .mode = WAITALL_P2P, .kind = &kinds[KIND_STRIDED], .count = 50},
                {.coll = ALLTOALL, .mode = WAITALL_P2P, .kind = &kinds[KIND_BYTES], .count = 777},
                {.coll = BCAST, .mode = WAITALL_P2P, .kind = &kinds[KIND_STRIDED], .count = 2000, .root = size - 1}};
  Buffers b[3];
  MPI_Request reqs[4];
  g_id++;
  for (int i = 0; i < 3; i++) {
    cs[i].comm = comm;
    cs[i].comm_name = "world: three at once";
    prepare(&cs[i], &b[i], rank, size);
    run(&cs[i], &b[i], 0, &reqs[2 - i]);
    g_cases++;
  }
  MPI_Ibarrier(comm, &reqs[3]);
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 3; i++) {
    verify(&cs[i], &b[i], rank, size, "ours");
    free(b[i].send), free(b[i].recv);
  }
}

static void largeCount(MPI_Comm comm, long max_bytes) {
#if MPI_VERSION >= 4
  int size;
  MPI_Comm_size(comm, &size);
  for (int coll = 0; coll < NCOLL; coll++) {
    if (coll == BARRIER) continue;
    for (int m = BLOCKING; m <= WAIT; m++) {
      for (int s = 1; s < NSIZES; s += 2) {
        if (kSizes[s] > max_bytes) continue;
        Case c = {.coll = coll, .mode = m, .kind = &kinds[KIND_STRIDED], .large = 1, .comm = comm, .comm_name = "world"};
        c.count = countFor(c.kind, kSizes[s]);
        c.root = coll == BCAST ? size / 2 : 0;
        runCase(&c);
      }
    }
  }
#else
  (void)comm, (void)max_bytes;
#endif
}

/* ---- intercommunicators: passed through to the system MPI, which must give the same bytes -------- */

static void intercommCases(void) {
  int wrank, wsize;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) return;
  int color = wrank % 2;
  MPI_Comm local, inter;
  PMPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local);
  PMPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 91, &inter);
  int rank, remote;
  MPI_Comm_rank(inter, &rank);
  MPI_Comm_remote_size(inter, &remote);
  const int n = 1000;
  Case c = {.coll = ALLGATHER, .mode = BLOCKING, .kind = &kinds[KIND_BYTES], .count = n, .comm = inter, .comm_name = "intercomm"};
  char *send = malloc((size_t)n * remote), *ours = malloc((size_t)n * remote), *sys = malloc((size_t)n * remote);
  for (int m = BLOCKING; m <= WAIT; m++) {
    c.mode = m;
    /* allgather: block r of the result is remote rank r's; its byte i is (color, r, i) */
    for (int i = 0; i < n; i++) send[i] = (char)(color * 100 + rank * 7 + i);
    for (int coll = ALLGATHER; coll <= ALLTOALL; coll++) {
      c.coll = coll;
      g_id++, g_cases++;
      memset(ours, 0, (size_t)n * remote);
      memset(sys, 0, (size_t)n * remote);
      MPI_Request req = MPI_REQUEST_NULL;
      int rc = MPI_SUCCESS, root = MPI_PROC_NULL;
      if (coll == BCAST) { /* group 0's rank 0 broadcasts to group 1 */
        root = color == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        if (root == MPI_ROOT) memcpy(ours, send, n), memcpy(sys, send, n);
      }
      switch (coll) {
        case ALLGATHER: rc = m ? MPI_Iallgather(send, n, MPI_BYTE, ours, n, MPI_BYTE, inter, &req) : MPI_Allgather(send, n, MPI_BYTE, ours, n, MPI_BYTE, inter); break;
        case BCAST: rc = m ? MPI_Ibcast(ours, n, MPI_BYTE, root, inter, &req) : MPI_Bcast(ours, n, MPI_BYTE, root, inter); break;
        case BARRIER: rc = m ? MPI_Ibarrier(inter, &req) : MPI_Barrier(inter); break;
        default: {
          char* blocks = malloc((size_t)n * remote);
          for (int d = 0; d < remote; d++)
            for (int i = 0; i < n; i++) blocks[d * n + i] = (char)(color * 50 + rank * 11 + d * 3 + i);
          rc = m ? MPI_Ialltoall(blocks, n, MPI_BYTE, ours, n, MPI_BYTE, inter, &req) : MPI_Alltoall(blocks, n, MPI_BYTE, ours, n, MPI_BYTE, inter);
          if (rc == MPI_SUCCESS && m) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
          PMPI_Alltoall(blocks, n, MPI_BYTE, sys, n, MPI_BYTE, inter);
          for (int r = 0; r < remote; r++)
            for (int i = 0; i < n; i++)
              if (ours[r * n + i] != (char)((1 - color) * 50 + r * 11 + rank * 3 + i)) {
                fail(&c, "alltoall block %d byte %d wrong", r, i);
                r = remote;
                break;
              }
          free(blocks);
          req = MPI_REQUEST_NULL;
          break;
        }
      }
      if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) fail(&c, "returned %d", rc);
      if (coll == ALLGATHER) {
        PMPI_Allgather(send, n, MPI_BYTE, sys, n, MPI_BYTE, inter);
        for (int r = 0; r < remote; r++)
          if (ours[r * n] != (char)((1 - color) * 100 + r * 7) || ours[r * n + n - 1] != (char)((1 - color) * 100 + r * 7 + n - 1))
            fail(&c, "allgather block %d is not remote rank %d's", r, r);
      } else if (coll == BCAST) {
        PMPI_Bcast(sys, n, MPI_BYTE, root, inter);
        if (color == 1 && ours[n - 1] != (char)(0 * 100 + 0 * 7 + n - 1)) fail(&c, "bcast did not deliver the root's bytes");
      }
      if (memcmp(ours, sys, (size_t)n * remote) != 0) fail(&c, "result differs from the system MPI's");
    }
  }
  free(send), free(ours), free(sys);
  PMPI_Comm_free(&inter);
  PMPI_Comm_free(&local);
}

/* ---- communicator state is freed with the communicator ----------------------------------------- */

/* Creates, uses and frees `iterations` communicators. Each first use makes the engine cache state
 * on the communicator, with a private duplicate of it; freeing the communicator must free both.
 * A freed handle is reused by the next one (Open MPI: its table index, MPICH: its object slot),
 * so the handles seen stay few; a leaked duplicate would make every one of them new, and
 * eventually exhaust MPICH's 2048 context ids. */
static void commLifecycle(int iterations) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Case c = {.coll = ALLGATHER, .mode = BLOCKING, .kind = &kinds[KIND_BYTES], .count = 8, .comm_name = "create/use/free loop"};
  MPI_Fint seen[16];
  int distinct = 0, bad = 0;
  g_cases++;
  for (int i = 0; i < iterations && !bad; i++) {
    MPI_Comm comm;
    int rc = i % 2 ? MPI_Comm_dup(MPI_COMM_WORLD, &comm) : MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comm);
    if (rc != MPI_SUCCESS) {
      fail(&c, "iteration %d: creating the communicator returned %d", i, rc);
      break;
    }
    int mine[2] = {i, rank}, all[64][2];
    int p = size < 64 ? size : 64;
    if (size <= 64) {
      rc = MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
      for (int r = 0; r < p && rc == MPI_SUCCESS; r++) {
        int want = i % 2 ? r : size - 1 - r;
        if (all[r][0] != i || all[r][1] != want) {
          fail(&c, "iteration %d: block %d holds (%d, %d)", i, r, all[r][0], all[r][1]);
          bad = 1;
          break;
        }
      }
    }
    if (rc == MPI_SUCCESS) rc = MPI_Barrier(comm);
    if (rc != MPI_SUCCESS) {
      fail(&c, "iteration %d: collective returned %d", i, rc);
      bad = 1;
    }
    MPI_Fint handle = MPI_Comm_c2f(comm);
    int known = 0;
    for (int k = 0; k < distinct; k++) known |= seen[k] == handle;
    if (!known && distinct < 16) seen[distinct++] = handle;
    MPI_Comm_free(&comm);
  }
  if (distinct >= 16) fail(&c, "%d communicators created and freed one at a time gave 16 or more distinct handles: state leaks", iterations);
}

static void defineKinds(void) {
  kinds[KIND_BYTES] = (Kind){.name = "byte", .type = MPI_BYTE, .packed = MPI_BYTE, .payload = 1, .extent = 1, .disp = {0}};
  MPI_Datatype t, packed;

  /* 3 blocks of 2 bytes, stride 4 (extent 10), resized to 16: 6 data bytes, 10 holes. */
  MPI_Type_vector(3, 2, 4, MPI_BYTE, &t);
  MPI_Type_create_resized(t, 0, 16, &kinds[KIND_STRIDED].type);
  MPI_Type_free(&t);
  MPI_Type_contiguous(6, MPI_BYTE, &packed);
  kinds[KIND_STRIDED] = (Kind){.name = "vector(3,2,4)/16", .type = kinds[KIND_STRIDED].type, .packed = packed, .payload = 6, .extent = 16,
                               .disp = {0, 1, 4, 5, 8, 9}};

  /* struct {char @0; short @2; int @8}, extent 16: 7 data bytes of three basic types, 9 holes. */
  int lens[3] = {1, 1, 1};
  MPI_Aint disps[3] = {0, 2, 8}, packed_disps[3] = {0, 1, 3};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_SHORT, MPI_INT};
  MPI_Type_create_struct(3, lens, disps, types, &t);
  MPI_Type_create_resized(t, 0, 16, &kinds[KIND_STRUCT].type);
  MPI_Type_free(&t);
  MPI_Type_create_struct(3, lens, packed_disps, types, &t);
  MPI_Type_create_resized(t, 0, 7, &packed);
  MPI_Type_free(&t);
  kinds[KIND_STRUCT] = (Kind){.name = "struct{char,short,int}/16", .type = kinds[KIND_STRUCT].type, .packed = packed, .payload = 7,
                              .extent = 16, .disp = {0, 2, 3, 8, 9, 10, 11}};

  /* indexed {2 bytes @2, 1 byte @7} resized to lb 2, extent 8: the data starts past the origin. */
  int ilens[2] = {2, 1}, idisps[2] = {2, 7};
  MPI_Type_indexed(2, ilens, idisps, MPI_BYTE, &t);
  MPI_Type_create_resized(t, 2, 8, &kinds[KIND_INDEXED_LB].type);
  MPI_Type_free(&t);
  MPI_Type_contiguous(3, MPI_BYTE, &packed);
  kinds[KIND_INDEXED_LB] = (Kind){.name = "indexed{2@2,1@7}/lb2/8", .type = kinds[KIND_INDEXED_LB].type, .packed = packed, .payload = 3,
                                  .extent = 8, .disp = {2, 3, 7}};
  for (int k = 1; k < NKIND; k++) {
    MPI_Type_commit(&kinds[k].type);
    MPI_Type_commit(&kinds[k].packed);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long max_bytes = 1 << 20, large_bytes = 70000;
  int require_topocoll = 0, comms = 300;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc) max_bytes = atol(argv[++i]);
    else if (!strcmp(argv[i], "--large") && i + 1 < argc) large_bytes = atol(argv[++i]);
    else if (!strcmp(argv[i], "--comms") && i + 1 < argc) comms = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--require-topocoll")) require_topocoll = 1;
    else {
      fprintf(stderr, "conformance: unknown argument \"%s\"; valid: --max-bytes N, --large N, --comms N, --require-topocoll\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  const char* pass = getenv("TOPOCOLL_PASSTHROUGH");
  int under_system_mpi = pass && !strcmp(pass, "1");
  g_algorithms = (AlgorithmsFn)dlsym(RTLD_DEFAULT, "topocoll_algorithms");
  g_force = (ForceFn)dlsym(RTLD_DEFAULT, "topocoll_force_algorithm");
  if (under_system_mpi) g_algorithms = NULL, g_force = NULL;
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (require_topocoll && !g_force) {
    if (g_world_rank == 0) fprintf(stderr, "conformance: libtopocoll.so is not loaded (topocoll_force_algorithm not found)\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  defineKinds();
  /* Errors come back as return codes: the system MPI's own failures are told apart from ours. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  double t0 = now();
#define SECTION(name) \
  do { \
    if (g_world_rank == 0) printf("section %s: %.2f s\n", name, now() - t0); \
    t0 = now(); \
  } while (0)
  everyAlgorithm(large_bytes);
  SECTION("every algorithm");

  matrix(MPI_COMM_WORLD, "world", max_bytes, TEST_LOOP, WAITALL_P2P, 2);
  matrix(MPI_COMM_WORLD, "world", max_bytes < 1024 ? max_bytes : 1024, TESTALL, GET_STATUS, 3);
  SECTION("completion calls");

  MPI_Comm split, dup;
  MPI_Comm_split(MPI_COMM_WORLD, g_world_rank % 2, size - g_world_rank, &split); /* reversed order */
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  long medium = max_bytes < 65539 ? max_bytes : 65539;
  matrix(split, "split", medium, BLOCKING, WAIT, 3);
  matrix(dup, "dup", medium, TEST_LOOP, TEST_LOOP, 3);
  matrix(MPI_COMM_SELF, "self", medium, BLOCKING, WAIT, 3);
  MPI_Comm_free(&split);
  MPI_Comm_free(&dup);
  SECTION("split, dup, self");

  overlapping(MPI_COMM_WORLD);
  progressCases(MPI_COMM_WORLD);
  cancelAndFree(MPI_COMM_WORLD, under_system_mpi || !g_force);
  largeCount(MPI_COMM_WORLD, max_bytes);
  SECTION("overlap, progress, cancel, large count");
  intercommCases();
  commLifecycle(comms);
  SECTION("intercomm, create/free loop");

  int failures = 0, cases = 0;
  PMPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(&g_cases, &cases, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int system_failures = 0;
  PMPI_Allreduce(&g_system_failures, &system_failures, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_world_rank == 0) printf("conformance: %d cases on %d ranks, %d failures (the system MPI failed %d)\n", cases, size, failures, system_failures);
  for (int k = 1; k < NKIND; k++) {
    MPI_Type_free(&kinds[k].type);
    MPI_Type_free(&kinds[k].packed);
  }
  MPI_Finalize();
  return failures ? 1 : 0;
}
