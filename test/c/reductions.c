/* Allreduce or reduce under the preload library, byte for byte against the system MPI.
 *
 * Every algorithm the library has for the collective (topocoll_algorithms), plus native and auto,
 * forced in turn (topocoll_force_algorithm), runs every case through MPI_Allreduce or
 * MPI_Iallreduce (MPI_Reduce or MPI_Ireduce, the root moving over the ranks from case to case: the
 * engine) and through PMPI_Allreduce (PMPI_Reduce: the system MPI, which the preload does not see)
 * from identical buffers; the whole receive buffers must be identical, the holes of derived types
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
 *  - large counts (65539 elements and 1 MiB, or --large-bytes) for a few of them;
 *  - every other predefined type the library has loops for (the C integer types, MPI_AINT,
 *    MPI_OFFSET, MPI_COUNT, MPI_C_BOOL, MPI_BYTE, the C float and double complex types, the other
 *    pair types) with each op MPI defines on it, at 7 and 1024 elements, one algorithm per case
 *    in turn (values kept small: Open MPI 4.1's AVX sum saturates 8-bit types, ompi#8045).
 * MPICH 4.0.2 segfaults in MPI_Reduce with MPI_IN_PLACE at a root other than 0 from 2 KiB on (its
 * reduce_scatter_gather): the reference reduce in place runs out of place (the same result), and
 * native and auto, which may hand such a call to the MPI, leave those cases out under MPICH.
 * Blocking and nonblocking alternate. Under TOPOCOLL_FALLBACK=error a forced algorithm that
 * cannot run the call must fail on every rank, with no traffic: an op that is not commutative on
 * an algorithm that does not combine in rank order (ring), and a nonblocking call with a
 * user-defined op (the program may free the op while the call is pending).
 *   reductions [--collective allreduce|reduce] [--algorithm NAME] [--max-count N] [--large-bytes B] [--require-topocoll]
 *     --collective: the collective (default: allreduce)
 *     --algorithm: only this algorithm (default: native, auto and every algorithm listed)
 *     --max-count: leave out cases above N elements (default: none)
 *     --large-bytes: the largest vectors' bytes (default 1 MiB)
 * Rank 0 prints "algorithms <collective>: a,b,c" and "reductions: N cases on P ranks, F failures". */
#include <dlfcn.h>
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*AlgorithmsFn)(const char* collective, char* buf, int size);
typedef int (*ForceFn)(const char* collective, const char* algorithm);

enum Data { D_INT, D_FLOAT, D_DOUBLE, D_DOUBLE_INT, D_MATRIX, D_AFFINE, D_DVEC, D_BASIC };
static const char* const kDataNames[] = {"int", "float", "double", "double_int", "matrix2x2", "affine(vector)", "dvec(vector)", "basic"};

/* The other predefined types: how their values are written, and which ops apply. */
enum Fill { F_SIGNED, F_UNSIGNED, F_BOOL, F_BYTE, F_COMPLEX_FLOAT, F_COMPLEX_DOUBLE, F_PAIR };
enum { OPS_ARITH = 1, OPS_LOGIC = 2, OPS_BITS = 4, OPS_COMPLEX = 8, OPS_LOC = 16 };
typedef struct {
  const char* name;
  MPI_Datatype type;
  enum Fill fill;
  int size;      /* bytes of the value (a pair's value) */
  int extent;    /* bytes of an element in memory */
  int index_at;  /* a pair's int, else 0 */
  int pair_kind; /* a pair's value: 0 float, 1 long, 2 int, 3 short */
  unsigned ops;
} Basic;

typedef struct {
  enum Data data;
  const Basic* basic; /* D_BASIC */
  MPI_Datatype type;
  MPI_Op op;
  const char* op_name;
  int commutative;
  long count;
  int root; /* reduce */
  int in_place, nonblocking;
  const char* algorithm;
} Case;

static const char* g_coll = "allreduce";
static long g_large_bytes = 1L << 20;
static int g_reduce;
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
  char root[32] = "";
  if (g_reduce) snprintf(root, sizeof root, " root=%d", c->root);
  fprintf(stderr, "FAIL rank %d: %s[%s] %s %s count=%ld%s%s%s: %s\n", g_rank, g_coll, c->algorithm, c->basic ? c->basic->name : kDataNames[c->data],
          c->op_name, c->count, root, c->in_place ? " in-place" : "", c->nonblocking ? " nonblocking" : "", what);
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

static size_t extentOf(const Case* c) {
  switch (c->data) {
    case D_INT: return sizeof(int);
    case D_FLOAT: return sizeof(float);
    case D_DOUBLE: return sizeof(double);
    case D_DOUBLE_INT: return sizeof(struct { double v; int i; });
    case D_MATRIX: return 4 * sizeof(int);
    case D_AFFINE: return 16;
    case D_DVEC: return 32;
    case D_BASIC: return (size_t)c->basic->extent;
  }
  return 0;
}

/* Bytes of an element the datatype covers (the rest are holes). */
static int covered(const Case* c, size_t byte) {
  switch (c->data) {
    case D_DOUBLE_INT: return byte < 12;
    case D_AFFINE: return byte < 4 || (byte >= 8 && byte < 12);
    case D_DVEC: return byte < 8 || (byte >= 16 && byte < 24);
    case D_BASIC: return byte < (size_t)c->basic->size || (c->basic->index_at && byte >= (size_t)c->basic->index_at && byte < (size_t)c->basic->index_at + 4);
    default: return 1;
  }
}

/* Small values: sums of 8 of them fit 8 bits; products of +-1 (and 0). */
static void fillBasic(const Case* c, char* at, uint32_t h) {
  const Basic* b = c->basic;
  int prod = c->op == MPI_PROD, bits = c->op == MPI_BAND || c->op == MPI_BOR || c->op == MPI_BXOR;
  int logic = c->op == MPI_LAND || c->op == MPI_LOR || c->op == MPI_LXOR;
  int64_t v = logic ? (int64_t)(h % 3) : prod ? (h % 7 == 0 ? 0 : b->fill == F_SIGNED && (h & 8) ? -1 : 1) : (int64_t)(h % 4);
  switch (b->fill) {
    case F_SIGNED:
    case F_UNSIGNED:
      if (bits) v = (int64_t)(((uint64_t)hash32(h, 1) << 32) | hash32(h, 2));
      memcpy(at, &v, (size_t)b->size); /* little-endian: the low bytes */
      break;
    case F_BOOL: at[0] = (char)(h & 1); break;
    case F_BYTE: at[0] = (char)hash32(h, 3); break;
    case F_COMPLEX_FLOAT:
    case F_COMPLEX_DOUBLE: {
      /* products of 1, -1, i, -i (and 0) are exact; sums of small whole numbers too */
      double re = prod ? (h % 4 == 0 ? 1 : h % 4 == 1 ? -1 : 0) : (double)(h % 5), im = prod ? (h % 4 == 2 ? 1 : h % 4 == 3 ? -1 : 0) : (double)(h % 3);
      if (prod && h % 9 == 0) re = im = 0;
      if (b->fill == F_COMPLEX_FLOAT) {
        float f[2] = {(float)re, (float)im};
        memcpy(at, f, sizeof f);
      } else {
        double d[2] = {re, im};
        memcpy(at, d, sizeof d);
      }
      break;
    }
    case F_PAIR: {
      int index = (int)(hash32(h, 4) % 1000), small = (int)(h % 4);
      float f = (float)small;
      long l = small;
      short s = (short)small;
      if (b->pair_kind == 0) memcpy(at, &f, sizeof f);
      else if (b->pair_kind == 1) memcpy(at, &l, sizeof l);
      else if (b->pair_kind == 2) memcpy(at, &small, sizeof small);
      else memcpy(at, &s, sizeof s);
      memcpy(at + b->index_at, &index, sizeof index);
      break;
    }
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
    case D_BASIC: fillBasic(c, at, h); break;
  }
}

/* A buffer of `count` elements: holes set to `hole`, then the operand written where `operand`. */
static char* buffer(const Case* c, int operand, unsigned char hole) {
  size_t bytes = (size_t)c->count * extentOf(c) + 1;
  char* b = malloc(bytes);
  memset(b, hole, bytes);
  if (operand)
    for (long e = 0; e < c->count; e++) fillElement(c, b + e * extentOf(c), g_rank, e);
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

/* MPICH 4.0.2's MPI_Reduce in place at a root other than 0 (see above), where the library may hand
 * the call to the MPI. */
static int systemReduceCrashes(const Case* c) {
#ifdef MPICH_VERSION
  return g_reduce && c->in_place && c->root != 0 && (!strcmp(c->algorithm, "native") || !strcmp(c->algorithm, "auto"));
#else
  (void)c;
  return 0;
#endif
}

static void runCase(const Case* c, int checked) {
  if (systemReduceCrashes(c)) return;
  g_cases++;
  /* MPI_IN_PLACE is a reduce's root's alone: the other ranks pass their send buffer. */
  const int in_place = c->in_place && (!g_reduce || g_rank == c->root);
  const int n = (int)c->count;
  size_t bytes = (size_t)c->count * extentOf(c) + 1;
  /* The send buffer's holes differ from the receive buffer's: a copy of them would show. Not for
   * the predefined pair types, whose padding the MPIs may copy. */
  char* send = buffer(c, !in_place, c->data == D_BASIC ? kHole : kSendHole);
  char* ours = buffer(c, in_place, kHole);
  char* theirs = buffer(c, in_place, kHole);
  const void* sb = in_place ? MPI_IN_PLACE : send;
  int rc;
  MPI_Request req = MPI_REQUEST_NULL;
  if (g_reduce) {
    rc = c->nonblocking ? MPI_Ireduce(sb, ours, n, c->type, c->op, c->root, MPI_COMM_WORLD, &req)
                        : MPI_Reduce(sb, ours, n, c->type, c->op, c->root, MPI_COMM_WORLD);
  } else {
    rc = c->nonblocking ? MPI_Iallreduce(sb, ours, n, c->type, c->op, MPI_COMM_WORLD, &req) : MPI_Allreduce(sb, ours, n, c->type, c->op, MPI_COMM_WORLD);
  }
  if (rc == MPI_SUCCESS && c->nonblocking) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  int refuse = checked && mustRefuse(c);
  if (refuse) {
    if (rc == MPI_SUCCESS) fail(c, "ran, but a forced algorithm that cannot run it must fail under TOPOCOLL_FALLBACK=error");
  } else {
    int prc;
    if (g_reduce && in_place) {
      char* operand = malloc(bytes);
      memcpy(operand, theirs, bytes);
      prc = PMPI_Reduce(operand, theirs, n, c->type, c->op, c->root, MPI_COMM_WORLD);
      free(operand);
    } else {
      prc = g_reduce ? PMPI_Reduce(sb, theirs, n, c->type, c->op, c->root, MPI_COMM_WORLD) : PMPI_Allreduce(sb, theirs, n, c->type, c->op, MPI_COMM_WORLD);
    }
    /* Arguments the MPI refuses (a predefined op on a derived type) must be refused alike. */
    int class = rc, pclass = prc;
    MPI_Error_class(rc, &class);
    MPI_Error_class(prc, &pclass);
    if (class != pclass) fail(c, "the call returned class %d, the system MPI's %d", class, pclass);
    if (rc != MPI_SUCCESS || prc != MPI_SUCCESS) goto done;
    /* A complex product's zero parts take their sign from the order of evaluation (-1 x -1:
     * 1 - 0i), which differs between algorithms: compared as values. */
    int by_value = c->data == D_BASIC && c->op == MPI_PROD && (c->basic->fill == F_COMPLEX_FLOAT || c->basic->fill == F_COMPLEX_DOUBLE);
    for (size_t i = 0; by_value && i + 1 < bytes; i += c->basic->fill == F_COMPLEX_FLOAT ? 4 : 8) {
      double a, b;
      if (c->basic->fill == F_COMPLEX_FLOAT) {
        float x, y;
        memcpy(&x, ours + i, 4), memcpy(&y, theirs + i, 4);
        a = x, b = y;
      } else {
        memcpy(&a, ours + i, 8), memcpy(&b, theirs + i, 8);
      }
      if (a != b) {
        fail(c, "part %zu: %g, the system MPI's %g", i / (c->basic->fill == F_COMPLEX_FLOAT ? 4 : 8), a, b);
        break;
      }
    }
    for (size_t i = 0; !by_value && i < bytes; i++) {
      if (ours[i] != theirs[i]) {
        size_t e = i / extentOf(c);
        fail(c, "element %zu byte %zu: 0x%02x, the system MPI's 0x%02x", e, i % extentOf(c), (unsigned char)ours[i], (unsigned char)theirs[i]);
        break;
      }
    }
    for (size_t i = 0; i + 1 < bytes; i++) {
      if (!covered(c, i % extentOf(c)) && (unsigned char)ours[i] != kHole) {
        fail(c, "hole byte %zu of element %zu written (0x%02x)", i % extentOf(c), i / extentOf(c), (unsigned char)ours[i]);
        break;
      }
    }
    /* The same bits on every rank. */
    if (g_reduce) goto done;
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

static void everyCase(const char* algorithm, long max_count, int checked) {
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
    Case c = {.data = kinds[k].data, .op_name = kinds[k].op_name, .commutative = kinds[k].commutative, .algorithm = algorithm};
    c.type = kinds[k].type ? *kinds[k].type : basic[c.data];
    c.op = kinds[k].op ? *kinds[k].op : MPI_OP_NULL;
    for (size_t o = 0; !kinds[k].op && o < sizeof ops / sizeof ops[0]; o++)
      if (!strcmp(ops[o].name, c.op_name)) c.op = ops[o].op;
    long counts[] = {0, 1, 7, 1024, 65539, (long)(g_large_bytes / (long)extentOf(&c))};
    for (int n = 0; n < 6; n++) {
      if ((n >= 4 && !kinds[k].large) || counts[n] > max_count) continue;
      c.count = counts[n];
      for (c.in_place = 0; c.in_place < 2; c.in_place++) {
        c.nonblocking = turn % 2;
        c.root = g_reduce ? (turn / 2) % g_size : 0;
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

/* The types' table: Open MPI's handles are addresses, not constants. */
static int basicTypes(Basic* out) {
  struct fi { float v; int i; } fi;
  struct li { long v; int i; } li;
  struct ii { int v; int i; } ii;
  struct si { short v; int i; } si;
  (void)fi, (void)li, (void)ii, (void)si;
  const unsigned INT_OPS = OPS_ARITH | OPS_LOGIC | OPS_BITS;
  Basic t[] = {
      {"signed char", MPI_SIGNED_CHAR, F_SIGNED, 1, 1, 0, 0, INT_OPS},
      {"unsigned char", MPI_UNSIGNED_CHAR, F_UNSIGNED, 1, 1, 0, 0, INT_OPS},
      {"short", MPI_SHORT, F_SIGNED, 2, 2, 0, 0, INT_OPS},
      {"unsigned short", MPI_UNSIGNED_SHORT, F_UNSIGNED, 2, 2, 0, 0, INT_OPS},
      {"unsigned", MPI_UNSIGNED, F_UNSIGNED, 4, 4, 0, 0, INT_OPS},
      {"long", MPI_LONG, F_SIGNED, sizeof(long), sizeof(long), 0, 0, INT_OPS},
      {"unsigned long", MPI_UNSIGNED_LONG, F_UNSIGNED, sizeof(long), sizeof(long), 0, 0, INT_OPS},
      {"long long", MPI_LONG_LONG, F_SIGNED, 8, 8, 0, 0, INT_OPS},
      {"unsigned long long", MPI_UNSIGNED_LONG_LONG, F_UNSIGNED, 8, 8, 0, 0, INT_OPS},
      {"int8_t", MPI_INT8_T, F_SIGNED, 1, 1, 0, 0, INT_OPS},
      {"int16_t", MPI_INT16_T, F_SIGNED, 2, 2, 0, 0, INT_OPS},
      {"int32_t", MPI_INT32_T, F_SIGNED, 4, 4, 0, 0, INT_OPS},
      {"int64_t", MPI_INT64_T, F_SIGNED, 8, 8, 0, 0, INT_OPS},
      {"uint8_t", MPI_UINT8_T, F_UNSIGNED, 1, 1, 0, 0, INT_OPS},
      {"uint16_t", MPI_UINT16_T, F_UNSIGNED, 2, 2, 0, 0, INT_OPS},
      {"uint32_t", MPI_UINT32_T, F_UNSIGNED, 4, 4, 0, 0, INT_OPS},
      {"uint64_t", MPI_UINT64_T, F_UNSIGNED, 8, 8, 0, 0, INT_OPS},
      {"MPI_AINT", MPI_AINT, F_SIGNED, sizeof(MPI_Aint), sizeof(MPI_Aint), 0, 0, INT_OPS},
      {"MPI_OFFSET", MPI_OFFSET, F_SIGNED, sizeof(MPI_Offset), sizeof(MPI_Offset), 0, 0, INT_OPS},
      {"MPI_COUNT", MPI_COUNT, F_SIGNED, sizeof(MPI_Count), sizeof(MPI_Count), 0, 0, INT_OPS},
      {"C_BOOL", MPI_C_BOOL, F_BOOL, 1, 1, 0, 0, OPS_LOGIC},
      {"byte", MPI_BYTE, F_BYTE, 1, 1, 0, 0, OPS_BITS},
      {"C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, F_COMPLEX_FLOAT, 8, 8, 0, 0, OPS_COMPLEX},
      {"C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, F_COMPLEX_DOUBLE, 16, 16, 0, 0, OPS_COMPLEX},
      {"FLOAT_INT", MPI_FLOAT_INT, F_PAIR, 4, sizeof fi, (int)offsetof(struct fi, i), 0, OPS_LOC},
      {"LONG_INT", MPI_LONG_INT, F_PAIR, sizeof(long), sizeof li, (int)offsetof(struct li, i), 1, OPS_LOC},
      {"2INT", MPI_2INT, F_PAIR, 4, sizeof ii, (int)offsetof(struct ii, i), 2, OPS_LOC},
      {"SHORT_INT", MPI_SHORT_INT, F_PAIR, 2, sizeof si, (int)offsetof(struct si, i), 3, OPS_LOC},
  };
  memcpy(out, t, sizeof t);
  return (int)(sizeof t / sizeof t[0]);
}

/* Every (type, op) pair of basicTypes() at 7 and 1024 elements, each case with one of
 * `algorithms` in turn (forced), in place and blocking alternating. */
static void basicCases(char* const* algorithms, int nalgorithms, ForceFn force, long max_count, int checked) {
  Basic types[40];
  int n = basicTypes(types);
  const struct {
    const char* name;
    MPI_Op op;
    unsigned group;
  } ops[] = {{"SUM", MPI_SUM, OPS_ARITH | OPS_COMPLEX}, {"PROD", MPI_PROD, OPS_ARITH | OPS_COMPLEX}, {"MIN", MPI_MIN, OPS_ARITH},
             {"MAX", MPI_MAX, OPS_ARITH}, {"LAND", MPI_LAND, OPS_LOGIC}, {"LOR", MPI_LOR, OPS_LOGIC}, {"LXOR", MPI_LXOR, OPS_LOGIC},
             {"BAND", MPI_BAND, OPS_BITS}, {"BOR", MPI_BOR, OPS_BITS}, {"BXOR", MPI_BXOR, OPS_BITS},
             {"MINLOC", MPI_MINLOC, OPS_LOC}, {"MAXLOC", MPI_MAXLOC, OPS_LOC}};
  int turn = 0;
  for (int t = 0; t < n; t++) {
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
      if (!(types[t].ops & ops[o].group)) continue;
      for (int k = 0; k < 2; k++, turn++) {
        if (k && max_count < 1024) continue;
        Case c = {.data = D_BASIC, .basic = &types[t], .type = types[t].type, .op = ops[o].op, .op_name = ops[o].name, .commutative = 1};
        c.algorithm = algorithms[turn % nalgorithms];
        if (force) force(g_coll, c.algorithm);
        c.count = k ? 1024 : 7;
        c.root = g_reduce ? (turn / 4) % g_size : 0;
        c.in_place = (turn / 2) % 2;
        c.nonblocking = turn % 2;
        runCase(&c, checked);
      }
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long max_count = 1L << 30;
  int require_topocoll = 0;
  const char* only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max-count") && i + 1 < argc) max_count = atol(argv[++i]);
    else if (!strcmp(argv[i], "--collective") && i + 1 < argc) g_coll = argv[++i];
    else if (!strcmp(argv[i], "--algorithm") && i + 1 < argc) only = argv[++i];
    else if (!strcmp(argv[i], "--large-bytes") && i + 1 < argc) g_large_bytes = atol(argv[++i]);
    else if (!strcmp(argv[i], "--require-topocoll")) require_topocoll = 1;
    else {
      fprintf(stderr, "reductions: unknown argument \"%s\"; valid: --collective allreduce|reduce, --algorithm NAME, --max-count N, --large-bytes B, --require-topocoll\n",
              argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  g_reduce = !strcmp(g_coll, "reduce");
  if (!g_reduce && strcmp(g_coll, "allreduce")) {
    fprintf(stderr, "reductions: --collective %s: valid: allreduce, reduce\n", g_coll);
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

  char list[1024] = "native,auto";
  if (only) {
    snprintf(list, sizeof list, "%s", only);
  } else if (algorithms) {
    size_t used = strlen(list);
    list[used] = ',';
    if (algorithms(g_coll, list + used + 1, (int)(sizeof list - used - 1)) <= 0) list[used] = 0;
  } else {
    strcpy(list, "system");
  }
  if (g_rank == 0) printf("algorithms %s: %s\n", g_coll, list);
  char* names[16];
  int nnames = 0;
  for (char *save = NULL, *name = strtok_r(list, ",", &save); name && nnames < 16; name = strtok_r(NULL, ",", &save)) {
    names[nnames++] = name;
    if (force && force(g_coll, name) != 0) {
      fprintf(stderr, "FAIL rank %d: topocoll_force_algorithm(%s, %s) refused\n", g_rank, g_coll, name);
      g_failures++;
    }
    everyCase(name, max_count, checked);
  }
  basicCases(names, nnames, force, max_count, checked);
  if (force) force(g_coll, "auto");

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
