/* Allreduce and reduce under the preload library, byte for byte against the system MPI.
 *
 * Every algorithm the library has for the collective (topocoll_algorithms), plus native and auto,
 * forced in turn (topocoll_force_algorithm), runs every case through MPI_Allreduce or
 * MPI_Iallreduce (MPI_Reduce or MPI_Ireduce, to root 0 or the last rank in turn: the engine) and
 * through PMPI_Allreduce (PMPI_Reduce: the system MPI, which the preload does not see) from
 * identical buffers; the whole receive buffers must be identical, the holes of derived types
 * included (a reduce's non-root receive buffers untouched), and every rank of an allreduce must
 * hold the same bits (a hash compared across ranks).
 * Cases, each in place and not:
 *  - every predefined op on MPI_INT, and SUM/PROD/MIN/MAX on MPI_FLOAT and MPI_DOUBLE, with
 *    data whose results are exact (small integers, powers of two), at counts 0, 1, 7, 1024;
 *  - MPI_MINLOC/MPI_MAXLOC on MPI_DOUBLE_INT (ties, so the index rule shows), same counts;
 *  - a user-defined op that is not commutative (2x2 integer matrix product) on a contiguous type;
 *  - a derived type with holes (a resized vector of two ints, 16-byte extent) with a
 *    non-commutative user op (composition of affine maps), and MPI_SUM on a resized vector of
 *    doubles (a predefined op on a derived type, which both MPIs refuse with MPI_ERR_OP: the
 *    library must hand it on and return the same error class);
 *  - large counts (65539 elements and 1 MiB) for a few of them.
 * Blocking and nonblocking alternate. Under TOPOCOLL_FALLBACK=error a forced algorithm that
 * cannot run the call must fail on every rank, with no traffic: an op that is not commutative on
 * an algorithm that does not combine in rank order (ring), and a nonblocking call with a
 * user-defined op (the program may free the op while the call is pending).
 *   reductions [--max-count N] [--collective allreduce|reduce] [--algorithm NAME] [--require-topocoll]
 *     --max-count: leave out cases above N elements (default: none)
 *     --collective: only this collective (default: allreduce, then reduce)
 *     --algorithm: only this algorithm (default: native, auto and every algorithm listed)
 * Rank 0 prints "algorithms <collective>: a,b,c" per collective and "reductions: N cases on P
 * ranks, F failures". */
#include <dlfcn.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*AlgorithmsFn)(const char* collective, char* buf, int size);
typedef int (*ForceFn)(const char* collective, const char* algorithm);

enum Data { D_INT, D_FLOAT, D_DOUBLE, D_DOUBLE_INT, D_MATRIX, D_AFFINE, D_DVEC };
static const char* const kDataNames[] = {"int", "float", "double", "double_int", "matrix2x2", "affine(vector)", "dvec(vector)"};

typedef struct {
  enum Data data;
  MPI_Datatype type;
  MPI_Op op;
  const char* op_name;
  int commutative;
  long count;
  int in_place, nonblocking;
  const char* collective;
  int root; /* reduce */
  const char* algorithm;
} Case;

static int g_rank, g_size, g_cases, g_failures;
static MPI_Datatype g_matrix, g_affine, g_dvec;
static MPI_Op g_matmul, g_compose;
static const unsigned char kHole = 0xEE, kSendHole = 0x11;

static void fail(const Case* c, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const Case* c, const char* fmt, ...) {
  if (++g_failures > 20) return;
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  fprintf(stderr, "FAIL rank %d: %s[%s] %s %s count=%ld root=%d%s%s: %s\n", g_rank, c->collective, c->algorithm, kDataNames[c->data], c->op_name,
          c->count, c->root, c->in_place ? " in-place" : "", c->nonblocking ? " nonblocking" : "", what);
}

static uint32_t hash32(uint32_t a, uint32_t b) {
  uint32_t x = a * 0x9E3779B1u ^ b * 0x85EBCA77u;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  x *= 0x297A2D39u;
  x ^= x >> 15;
  return x;
}

/* ---- the user-defined ops ------------------------------------------------------------------- */

/* inout = in x inout, 2x2 int matrices (row-major): not commutative. */
static void matmul(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; i++, a += 4, b += 4) {
    int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    memcpy(b, c, sizeof c);
  }
}

/* Affine maps x -> a x + b as (a, b) in a 16-byte element with holes (a at 0, b at 8): inout =
 * in then inout, (a1 a2, a2 b1 + b2). Reads and writes only a and b. */
static void compose(void* in, void* inout, int* len, MPI_Datatype* type) {
  if (*type != g_affine) {
    fprintf(stderr, "FAIL rank %d: the affine op got another datatype\n", g_rank);
    g_failures++;
  }
  const char* x = in;
  char* y = inout;
  for (int i = 0; i < *len; i++, x += 16, y += 16) {
    int a1, b1, a2, b2;
    memcpy(&a1, x, 4), memcpy(&b1, x + 8, 4), memcpy(&a2, y, 4), memcpy(&b2, y + 8, 4);
    int a = a1 * a2, b = a2 * b1 + b2;
    memcpy(y, &a, 4), memcpy(y + 8, &b, 4);
  }
}

static void defineTypes(void) {
  MPI_Type_contiguous(4, MPI_INT, &g_matrix);
  MPI_Type_commit(&g_matrix);
  MPI_Datatype v;
  MPI_Type_vector(2, 1, 2, MPI_INT, &v); /* ints at 0 and 8 */
  MPI_Type_create_resized(v, 0, 16, &g_affine);
  MPI_Type_commit(&g_affine);
  MPI_Type_free(&v);
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &v); /* doubles at 0 and 16 */
  MPI_Type_create_resized(v, 0, 32, &g_dvec);
  MPI_Type_commit(&g_dvec);
  MPI_Type_free(&v);
  MPI_Op_create(matmul, 0, &g_matmul);
  MPI_Op_create(compose, 0, &g_compose);
}

/* ---- data ---------------------------------------------------------------------------------- */

static size_t extentOf(enum Data d) {
  switch (d) {
    case D_INT: return sizeof(int);
    case D_FLOAT: return sizeof(float);
    case D_DOUBLE: return sizeof(double);
    case D_DOUBLE_INT: return sizeof(struct { double v; int i; });
    case D_MATRIX: return 4 * sizeof(int);
    case D_AFFINE: return 16;
    case D_DVEC: return 32;
  }
  return 0;
}

/* Bytes of an element the datatype covers (the rest are holes). */
static int covered(enum Data d, size_t byte) {
  switch (d) {
    case D_DOUBLE_INT: return byte < 12;
    case D_AFFINE: return byte < 4 || (byte >= 8 && byte < 12);
    case D_DVEC: return byte < 8 || (byte >= 16 && byte < 24);
    default: return 1;
  }
}

/* Rank r's operand, element e: values whose combination is exact whatever the order. */
static void fillElement(const Case* c, char* at, int r, long e) {
  uint32_t h = hash32((uint32_t)(r * 7919 + 1), (uint32_t)e ^ (uint32_t)(c->op_name[1] * 131));
  int small = (int)(h % 201) - 100;
  int pm = h & 1 ? 1 : -1;
  switch (c->data) {
    case D_INT: {
      int v = small;
      if (c->op == MPI_PROD) v = (h % 5 == 0) ? 2 * pm : pm;
      else if (c->op == MPI_LAND || c->op == MPI_LOR || c->op == MPI_LXOR) v = (int)(h % 3);
      else if (c->op == MPI_BAND || c->op == MPI_BOR || c->op == MPI_BXOR) v = (int)h;
      memcpy(at, &v, sizeof v);
      break;
    }
    case D_FLOAT: {
      float v = c->op == MPI_PROD ? (h % 3 == 0 ? 2.0f : h % 3 == 1 ? 0.5f : 1.0f) * (float)pm : (float)small;
      memcpy(at, &v, sizeof v);
      break;
    }
    case D_DOUBLE: {
      double v = c->op == MPI_PROD ? (h % 3 == 0 ? 2.0 : h % 3 == 1 ? 0.5 : 1.0) * pm : (double)small;
      memcpy(at, &v, sizeof v);
      break;
    }
    case D_DOUBLE_INT: {
      double v = (double)(h % 4); /* ties */
      int i = (int)(hash32(h, 3) % 1000);
      memcpy(at, &v, sizeof v);
      memcpy(at + 8, &i, sizeof i);
      break;
    }
    case D_MATRIX:
      for (int k = 0; k < 4; k++) {
        int v = (int)(hash32(h, (uint32_t)k) % 3);
        memcpy(at + 4 * k, &v, 4);
      }
      break;
    case D_AFFINE: {
      int a = (int)(h % 3) + 1, b = (int)(hash32(h, 9) % 7) - 3;
      memcpy(at, &a, 4);
      memcpy(at + 8, &b, 4);
      break;
    }
    case D_DVEC: {
      double x = (double)small, y = (double)((int)(hash32(h, 5) % 99) - 49);
      memcpy(at, &x, 8);
      memcpy(at + 16, &y, 8);
      break;
    }
  }
}

/* A buffer of `count` elements: holes set to `hole`, then the operand written where `operand`. */
static char* buffer(const Case* c, int operand, unsigned char hole) {
  size_t bytes = (size_t)c->count * extentOf(c->data) + 1;
  char* b = malloc(bytes);
  memset(b, hole, bytes);
  if (operand)
    for (long e = 0; e < c->count; e++) fillElement(c, b + e * extentOf(c->data), g_rank, e);
  return b;
}

static uint64_t fnv(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h;
}

/* ---- one case ----------------------------------------------------------------------------- */

/* Whether the library must refuse the call under TOPOCOLL_FALLBACK=error: a forced algorithm
 * (not native, not auto) that cannot run it. */
static int mustRefuse(const Case* c) {
  if (!strcmp(c->algorithm, "native") || !strcmp(c->algorithm, "auto") || c->count == 0) return 0;
  int user_op = c->op == g_matmul || c->op == g_compose;
  if (user_op && c->nonblocking) return 1;
  return !c->commutative && !strcmp(c->algorithm, "ring");
}

/* MPICH 4.0.2 segfaults in MPI_Reduce with MPI_IN_PLACE at a root other than 0 (seen from 2 KiB
 * on, its reduce_scatter_gather): native and auto, which may hand such a call to the MPI, leave
 * these cases out there, and the reference always runs out of place (the same result). */
static int systemReduceInPlaceCrashes(const Case* c) {
#ifdef MPICH_VERSION
  return !strcmp(c->collective, "reduce") && c->in_place && c->root != 0 && (!strcmp(c->algorithm, "native") || !strcmp(c->algorithm, "auto"));
#else
  (void)c;
  return 0;
#endif
}

static void runCase(const Case* c, int checked) {
  if (systemReduceInPlaceCrashes(c)) return;
  g_cases++;
  const int reduce = !strcmp(c->collective, "reduce");
  /* MPI_IN_PLACE is the root's alone in a reduce: the other ranks pass their send buffer. */
  const int in_place = c->in_place && (!reduce || g_rank == c->root);
  size_t bytes = (size_t)c->count * extentOf(c->data) + 1;
  /* The send buffer's holes differ from the receive buffer's: a copy of them would show. */
  char* send = buffer(c, !in_place, kSendHole);
  char* ours = buffer(c, in_place, kHole);
  char* theirs = buffer(c, in_place, kHole);
  const void* sb = in_place ? MPI_IN_PLACE : send;
  const int n = (int)c->count;
  int rc;
  MPI_Request req = MPI_REQUEST_NULL;
  if (reduce) {
    rc = c->nonblocking ? MPI_Ireduce(sb, ours, n, c->type, c->op, c->root, MPI_COMM_WORLD, &req)
                        : MPI_Reduce(sb, ours, n, c->type, c->op, c->root, MPI_COMM_WORLD);
  } else {
    rc = c->nonblocking ? MPI_Iallreduce(sb, ours, n, c->type, c->op, MPI_COMM_WORLD, &req)
                        : MPI_Allreduce(sb, ours, n, c->type, c->op, MPI_COMM_WORLD);
  }
  if (rc == MPI_SUCCESS && c->nonblocking) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  int refuse = checked && mustRefuse(c);
  if (refuse) {
    if (rc == MPI_SUCCESS) fail(c, "ran, but a forced algorithm that cannot run it must fail under TOPOCOLL_FALLBACK=error");
  } else {
    int prc;
    if (reduce && in_place) {
      char* operand = malloc(bytes);
      memcpy(operand, theirs, bytes);
      prc = PMPI_Reduce(operand, theirs, n, c->type, c->op, c->root, MPI_COMM_WORLD);
      free(operand);
    } else if (reduce) {
      prc = PMPI_Reduce(sb, theirs, n, c->type, c->op, c->root, MPI_COMM_WORLD);
    } else {
      prc = PMPI_Allreduce(sb, theirs, n, c->type, c->op, MPI_COMM_WORLD);
    }
    /* Arguments the MPI refuses (a predefined op on a derived type) must be refused alike. */
    int class = rc, pclass = prc;
    MPI_Error_class(rc, &class);
    MPI_Error_class(prc, &pclass);
    if (class != pclass) fail(c, "the call returned class %d, the system MPI's %d", class, pclass);
    if (rc != MPI_SUCCESS || prc != MPI_SUCCESS) goto done;
    for (size_t i = 0; i < bytes; i++) {
      if (ours[i] != theirs[i]) {
        size_t e = i / extentOf(c->data);
        fail(c, "element %zu byte %zu: 0x%02x, the system MPI's 0x%02x", e, i % extentOf(c->data), (unsigned char)ours[i], (unsigned char)theirs[i]);
        break;
      }
    }
    for (size_t i = 0; i + 1 < bytes; i++) {
      if (!covered(c->data, i % extentOf(c->data)) && (unsigned char)ours[i] != kHole) {
        fail(c, "hole byte %zu of element %zu written (0x%02x)", i % extentOf(c->data), i / extentOf(c->data), (unsigned char)ours[i]);
        break;
      }
    }
    /* The same bits on every rank. */
    if (reduce) goto done;
    uint64_t h = fnv(ours, bytes), lo = h, hi = h;
    PMPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    PMPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi) fail(c, "ranks hold different results");
  }
done:
  free(send);
  free(ours);
  free(theirs);
}

typedef struct {
  enum Data data;
  MPI_Datatype* type;
  MPI_Op* op;
  const char* op_name;
  int commutative;
  int large; /* also at the large counts */
} Kind;

static void everyCase(const char* collective, const char* algorithm, long max_count, int checked) {
  Kind kinds[] = {
      {D_INT, NULL, NULL, "SUM", 1, 1}, {D_INT, NULL, NULL, "PROD", 1, 0}, {D_INT, NULL, NULL, "MIN", 1, 0},
      {D_INT, NULL, NULL, "MAX", 1, 0}, {D_INT, NULL, NULL, "LAND", 1, 0}, {D_INT, NULL, NULL, "LOR", 1, 0},
      {D_INT, NULL, NULL, "LXOR", 1, 0}, {D_INT, NULL, NULL, "BAND", 1, 0}, {D_INT, NULL, NULL, "BOR", 1, 0},
      {D_INT, NULL, NULL, "BXOR", 1, 1}, {D_FLOAT, NULL, NULL, "SUM", 1, 0}, {D_FLOAT, NULL, NULL, "PROD", 1, 0},
      {D_FLOAT, NULL, NULL, "MIN", 1, 0}, {D_FLOAT, NULL, NULL, "MAX", 1, 1}, {D_DOUBLE, NULL, NULL, "SUM", 1, 1},
      {D_DOUBLE, NULL, NULL, "PROD", 1, 0}, {D_DOUBLE, NULL, NULL, "MIN", 1, 1}, {D_DOUBLE, NULL, NULL, "MAX", 1, 0},
      {D_DOUBLE_INT, NULL, NULL, "MINLOC", 1, 1}, {D_DOUBLE_INT, NULL, NULL, "MAXLOC", 1, 0},
      {D_MATRIX, &g_matrix, &g_matmul, "matmul", 0, 1}, {D_AFFINE, &g_affine, &g_compose, "compose", 0, 1},
      {D_DVEC, &g_dvec, NULL, "SUM", 1, 1},
  };
  const struct {
    const char* name;
    MPI_Op op;
  } ops[] = {{"SUM", MPI_SUM}, {"PROD", MPI_PROD}, {"MIN", MPI_MIN}, {"MAX", MPI_MAX}, {"LAND", MPI_LAND},
             {"LOR", MPI_LOR}, {"LXOR", MPI_LXOR}, {"BAND", MPI_BAND}, {"BOR", MPI_BOR}, {"BXOR", MPI_BXOR},
             {"MINLOC", MPI_MINLOC}, {"MAXLOC", MPI_MAXLOC}};
  const MPI_Datatype basic[] = {[D_INT] = MPI_INT, [D_FLOAT] = MPI_FLOAT, [D_DOUBLE] = MPI_DOUBLE, [D_DOUBLE_INT] = MPI_DOUBLE_INT};
  int turn = 0;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    Case c = {.data = kinds[k].data, .op_name = kinds[k].op_name, .commutative = kinds[k].commutative, .collective = collective,
              .algorithm = algorithm};
    c.type = kinds[k].type ? *kinds[k].type : basic[c.data];
    c.op = kinds[k].op ? *kinds[k].op : MPI_OP_NULL;
    for (size_t o = 0; !kinds[k].op && o < sizeof ops / sizeof ops[0]; o++)
      if (!strcmp(ops[o].name, c.op_name)) c.op = ops[o].op;
    long counts[] = {0, 1, 7, 1024, 65539, (long)((1 << 20) / extentOf(c.data))};
    for (int n = 0; n < 6; n++) {
      if ((n >= 4 && !kinds[k].large) || counts[n] > max_count) continue;
      c.count = counts[n];
      for (c.in_place = 0; c.in_place < 2; c.in_place++) {
        c.nonblocking = turn % 2;
        c.root = strcmp(collective, "reduce") || turn % 4 < 2 ? 0 : g_size - 1;
        turn++;
        runCase(&c, checked);
        /* User-defined ops: nonblocking too, which a forced algorithm must refuse. */
        if (c.op == g_matmul || c.op == g_compose) {
          c.nonblocking = !c.nonblocking;
          runCase(&c, checked);
        }
      }
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long max_count = 1L << 30;
  int require_topocoll = 0;
  const char* only_collective = NULL;
  const char* only_algorithm = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max-count") && i + 1 < argc) max_count = atol(argv[++i]);
    else if (!strcmp(argv[i], "--collective") && i + 1 < argc) only_collective = argv[++i];
    else if (!strcmp(argv[i], "--algorithm") && i + 1 < argc) only_algorithm = argv[++i];
    else if (!strcmp(argv[i], "--require-topocoll")) require_topocoll = 1;
    else {
      fprintf(stderr, "reductions: unknown argument \"%s\"; valid: --max-count N, --collective allreduce|reduce, --algorithm NAME, --require-topocoll\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (only_collective && strcmp(only_collective, "allreduce") && strcmp(only_collective, "reduce")) {
    fprintf(stderr, "reductions: --collective %s: valid: allreduce, reduce\n", only_collective);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  AlgorithmsFn algorithms = (AlgorithmsFn)dlsym(RTLD_DEFAULT, "topocoll_algorithms");
  ForceFn force = (ForceFn)dlsym(RTLD_DEFAULT, "topocoll_force_algorithm");
  if (require_topocoll && !force) {
    if (g_rank == 0) fprintf(stderr, "reductions: libtopocoll.so is not loaded (topocoll_force_algorithm not found)\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  /* Refusals come back as return codes. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char* fallback = getenv("TOPOCOLL_FALLBACK");
  int checked = force && fallback && !strcmp(fallback, "error");
  defineTypes();

  const char* const collectives[] = {"allreduce", "reduce"};
  for (int k = 0; k < 2; k++) {
    const char* coll = collectives[k];
    if (only_collective && strcmp(only_collective, coll)) continue;
    char list[1024] = "native,auto";
    if (only_algorithm) {
      snprintf(list, sizeof list, "%s", only_algorithm);
    } else if (algorithms) {
      size_t used = strlen(list);
      list[used] = ',';
      if (algorithms(coll, list + used + 1, (int)(sizeof list - used - 1)) <= 0) list[used] = 0;
    } else {
      strcpy(list, "system");
    }
    if (g_rank == 0) printf("algorithms %s: %s\n", coll, list);
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
      if (force && force(coll, name) != 0) {
        fprintf(stderr, "FAIL rank %d: topocoll_force_algorithm(%s, %s) refused\n", g_rank, coll, name);
        g_failures++;
      }
      everyCase(coll, name, max_count, checked);
    }
    if (force) force(coll, "auto");
  }

  MPI_Op_free(&g_matmul);
  MPI_Op_free(&g_compose);
  MPI_Type_free(&g_matrix);
  MPI_Type_free(&g_affine);
  MPI_Type_free(&g_dvec);
  int failures = g_failures;
  PMPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("reductions: %d cases on %d ranks, %d failures\n", g_cases, g_size, failures);
  MPI_Finalize();
  return failures ? 1 : 0;
}
