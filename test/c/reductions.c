/* The reductions under the preload library, byte for byte against the system MPI.
 *
 * Every algorithm the library has for the collective (--collective: allreduce, reduce,
 * reduce_scatter_block, reduce_scatter; topocoll_algorithms), plus native and auto, forced in turn
 * (topocoll_force_algorithm), runs every case through MPI_<Coll> or MPI_I<coll> (the engine) and
 * through PMPI_<Coll> (the system MPI, which the preload does not see) from identical buffers; the
 * results must be identical, the holes of derived types included: allreduce's whole receive
 * buffer, on every rank the same bits (a hash compared across ranks); reduce's whole receive
 * buffer on every rank (the root's result, the others' untouched), the root moving from case to
 * case over every rank; the reduce_scatters' part of each rank (in place: the start of the
 * receive buffer, the rest of which MPI leaves unspecified), reduce_scatter's parts uneven and
 * some empty. Cases, each in place and not:
 *  - every predefined op on MPI_INT, and SUM/PROD/MIN/MAX on MPI_FLOAT and MPI_DOUBLE, with
 *    data whose results are exact (small integers, powers of two), at counts 0, 1, 7, 1024;
 *  - MPI_MINLOC/MPI_MAXLOC on MPI_DOUBLE_INT (ties, so the index rule shows), same counts;
 *  - a user-defined op that is not commutative (2x2 integer matrix product) on a contiguous type;
 *  - a derived type with holes (a resized vector of two ints, 16-byte extent) with a
 *    non-commutative user op (composition of affine maps), and MPI_SUM on a resized vector of
 *    doubles (a predefined op on a derived type, which both MPIs refuse with MPI_ERR_OP: the
 *    library must hand it on and return the same error class);
 *  - large counts (65539 elements and 1 MiB, or --large-bytes) for a few of them;
 *  - reduce: roots out of range (p, -3, 10^6), which must fail with the system MPI's error class;
 *  - every other predefined type the library has loops for (the C integer types, MPI_AINT,
 *    MPI_OFFSET, MPI_COUNT, MPI_C_BOOL, MPI_BYTE, the C float and double complex types, the other
 *    pair types) with each op MPI defines on it, at 7 and 1024 elements, one algorithm per case
 *    in turn (values kept small: Open MPI 4.1's AVX sum saturates 8-bit types, ompi#8045).
 * Where MPICH 4.0's own collective crashes (mpichCrash), the reference takes another way to the
 * same result and the calls the library would hand to the MPI's own are left out.
 * Blocking and nonblocking alternate; every third call of a case goes through the MPI-4 _c form
 * where the MPI has it (MPICH). Under TOPOCOLL_FALLBACK=error a forced algorithm that
 * cannot run the call must fail on every rank, with no traffic: an op that is not commutative on
 * an algorithm that does not combine in rank order (ring), and a nonblocking call with a
 * user-defined op (the program may free the op while the call is pending).
 * "count" is the vector's elements for allreduce and reduce, a rank's part for the reduce_scatters
 * (reduce_scatter: parts of count, 0 and count/2 + 1 elements in turn).
 *   reductions [--collective C] [--algorithm NAME] [--max-count N] [--large-bytes B] [--require-topocoll]
 *     --collective: allreduce (default), reduce, reduce_scatter_block or reduce_scatter
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
  int large_count; /* through the MPI-4 _c form (MPICH) */
  const char* algorithm;
} Case;

enum Coll { C_ALLREDUCE, C_REDUCE, C_REDUCE_SCATTER_BLOCK, C_REDUCE_SCATTER };
static const char* const kCollNames[] = {"allreduce", "reduce", "reduce_scatter_block", "reduce_scatter"};
static enum Coll g_coll;
static int* g_parts; /* the reduce_scatters: every rank's part of the current case */
#if MPI_VERSION >= 4
static MPI_Count* g_parts_c; /* the same, for MPI_Reduce_scatter_c */
#endif

static long g_large_bytes = 1L << 20;
static int g_rank, g_size, g_cases, g_failures, g_left_out;
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
  if (g_coll == C_REDUCE) snprintf(root, sizeof root, " root=%d", c->root);
  fprintf(stderr, "FAIL rank %d: %s[%s] %s %s count=%ld%s%s%s: %s\n", g_rank, kCollNames[g_coll], c->algorithm, c->basic ? c->basic->name : kDataNames[c->data],
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

/* A buffer of `elements` elements and a guard byte: holes set to `hole`, then the operand (the
 * vector's first `elements` elements) written where `operand`. */
static char* buffer(const Case* c, long elements, int operand, unsigned char hole) {
  size_t bytes = (size_t)elements * extentOf(c) + 1;
  char* b = malloc(bytes);
  memset(b, hole, bytes);
  if (operand)
    for (long e = 0; e < elements; e++) fillElement(c, b + e * extentOf(c), g_rank, e);
  return b;
}

/* ---- the collectives ------------------------------------------------------------------------ */

/* The reduce_scatters' parts (g_parts): count each, or for reduce_scatter count, 0 and
 * count/2 + 1 elements in turn (none at count 0). Returns the vector's elements. */
static long vectorElements(const Case* c) {
  if (g_coll == C_ALLREDUCE || g_coll == C_REDUCE) return c->count;
  long total = 0;
  for (int i = 0; i < g_size; i++) {
    g_parts[i] = (int)(g_coll == C_REDUCE_SCATTER_BLOCK || c->count == 0 ? c->count : i % 3 == 0 ? c->count : i % 3 == 1 ? 0 : c->count / 2 + 1);
    total += g_parts[i];
  }
  return total;
}

/* Elements of this rank's result: the vector, or its part. */
static long resultElements(const Case* c) {
  return g_coll == C_ALLREDUCE || g_coll == C_REDUCE ? c->count : g_parts[g_rank];
}

/* Whether this rank passes MPI_IN_PLACE: reduce's root only. */
static int inPlaceHere(const Case* c) { return c->in_place && (g_coll != C_REDUCE || g_rank == c->root); }

#if MPI_VERSION >= 4
/* The call through the library's MPI-4 large-count forms. */
static int engineCallLargeCount(const Case* c, const void* sb, void* rb, MPI_Request* r) {
  MPI_Count n = c->count;
  switch (g_coll) {
    case C_ALLREDUCE: return r ? MPI_Iallreduce_c(sb, rb, n, c->type, c->op, MPI_COMM_WORLD, r) : MPI_Allreduce_c(sb, rb, n, c->type, c->op, MPI_COMM_WORLD);
    case C_REDUCE: return r ? MPI_Ireduce_c(sb, rb, n, c->type, c->op, c->root, MPI_COMM_WORLD, r) : MPI_Reduce_c(sb, rb, n, c->type, c->op, c->root, MPI_COMM_WORLD);
    case C_REDUCE_SCATTER_BLOCK:
      return r ? MPI_Ireduce_scatter_block_c(sb, rb, n, c->type, c->op, MPI_COMM_WORLD, r) : MPI_Reduce_scatter_block_c(sb, rb, n, c->type, c->op, MPI_COMM_WORLD);
    case C_REDUCE_SCATTER:
      for (int i = 0; i < g_size; i++) g_parts_c[i] = g_parts[i];
      return r ? MPI_Ireduce_scatter_c(sb, rb, g_parts_c, c->type, c->op, MPI_COMM_WORLD, r) : MPI_Reduce_scatter_c(sb, rb, g_parts_c, c->type, c->op, MPI_COMM_WORLD);
  }
  return MPI_ERR_OTHER;
}
#endif

/* The call through the preload library (the engine), nonblocking or not, every third through
 * the large-count form where the MPI has it. */
static int engineCall(const Case* c, const void* sb, void* rb) {
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Request* r = c->nonblocking ? &req : NULL;
  int n = (int)c->count, rc = MPI_SUCCESS;
#if MPI_VERSION >= 4
  if (c->large_count) {
    rc = engineCallLargeCount(c, sb, rb, r);
    if (rc == MPI_SUCCESS && r) rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    return rc;
  }
#endif
  switch (g_coll) {
    case C_ALLREDUCE: rc = r ? MPI_Iallreduce(sb, rb, n, c->type, c->op, MPI_COMM_WORLD, r) : MPI_Allreduce(sb, rb, n, c->type, c->op, MPI_COMM_WORLD); break;
    case C_REDUCE: rc = r ? MPI_Ireduce(sb, rb, n, c->type, c->op, c->root, MPI_COMM_WORLD, r) : MPI_Reduce(sb, rb, n, c->type, c->op, c->root, MPI_COMM_WORLD); break;
    case C_REDUCE_SCATTER_BLOCK:
      rc = r ? MPI_Ireduce_scatter_block(sb, rb, n, c->type, c->op, MPI_COMM_WORLD, r) : MPI_Reduce_scatter_block(sb, rb, n, c->type, c->op, MPI_COMM_WORLD);
      break;
    case C_REDUCE_SCATTER:
      rc = r ? MPI_Ireduce_scatter(sb, rb, g_parts, c->type, c->op, MPI_COMM_WORLD, r) : MPI_Reduce_scatter(sb, rb, g_parts, c->type, c->op, MPI_COMM_WORLD);
      break;
  }
  if (rc == MPI_SUCCESS && r) rc = MPI_Wait(r, MPI_STATUS_IGNORE);
  return rc;
}

/* The same call to the system MPI, blocking. */
static int systemCall(const Case* c, const void* sb, void* rb) {
  int n = (int)c->count;
  switch (g_coll) {
    case C_ALLREDUCE: return PMPI_Allreduce(sb, rb, n, c->type, c->op, MPI_COMM_WORLD);
    case C_REDUCE: return PMPI_Reduce(sb, rb, n, c->type, c->op, c->root, MPI_COMM_WORLD);
    case C_REDUCE_SCATTER_BLOCK: return PMPI_Reduce_scatter_block(sb, rb, n, c->type, c->op, MPI_COMM_WORLD);
    case C_REDUCE_SCATTER: return PMPI_Reduce_scatter(sb, rb, g_parts, c->type, c->op, MPI_COMM_WORLD);
  }
  return MPI_ERR_OTHER;
}

/* Calls on which MPICH 4.0's own collective crashes (reads a bad address, or corrupts its heap):
 * - MPI_Reduce with MPI_IN_PLACE at a root other than 0 above 2 KiB (its reduce_scatter_gather;
 *   pmodels/mpich#6540, fixed after 4.1.1); MPI_Ireduce does not;
 * - MPI_Reduce_scatter_block and MPI_Ireduce_scatter_block with an op that is not commutative on
 *   a type whose extent exceeds its true extent (the affine maps), on a power of two p > 1.
 * On them the reference takes another way to the same result, and a call the library hands to
 * the MPI's own is left out (forced native; auto where it picks native). */
enum MpichCrash { CRASH_NONE, CRASH_IN_PLACE_REDUCE, CRASH_NONCOMMUTATIVE_SCATTER_BLOCK };
static enum MpichCrash mpichCrash(const Case* c) {
#ifdef MPICH_VERSION
  int size = 0;
  MPI_Type_size(c->type, &size);
  if (g_coll == C_REDUCE && c->in_place && c->root != 0 && c->count * size > 2048) return CRASH_IN_PLACE_REDUCE;
  int pof2 = g_size > 1 && (g_size & (g_size - 1)) == 0;
  if (g_coll == C_REDUCE_SCATTER_BLOCK && !c->commutative && c->data == D_AFFINE && pof2 && c->count > 0) return CRASH_NONCOMMUTATIVE_SCATTER_BLOCK;
#else
  (void)c;
#endif
  return CRASH_NONE;
}

/* Whether the library hands the call to the MPI's own: forced native, or (where a default rule
 * says native: reduce_scatter_block on 2 ranks) auto, and a nonblocking call with a user op. */
static int handedToMpi(const Case* c) {
  if (!strcmp(c->algorithm, "native")) return 1;
  int user_op = c->op == g_matmul || c->op == g_compose;
  return !strcmp(c->algorithm, "auto") && (g_size == 2 || (user_op && c->nonblocking));
}

/* reduce_scatter_block's result by way of PMPI_Allreduce: the whole vector combined (holes left
 * as kHole), and this rank's part copied out to `result`. */
static int scatterOfAllreduce(const Case* c, long vector, const char* operand, char* result) {
  char* whole = buffer(c, vector, 0, kHole);
  int rc = PMPI_Allreduce(operand, whole, (int)vector, c->type, c->op, MPI_COMM_WORLD);
  memcpy(result, whole + (size_t)g_rank * (size_t)c->count * extentOf(c), (size_t)c->count * extentOf(c));
  free(whole);
  return rc;
}

/* Whether the algorithm combines in rank order (the registry's rankOrdered). */
static int rankOrdered(const char* algorithm) {
  switch (g_coll) {
    case C_ALLREDUCE: return strcmp(algorithm, "ring") != 0 && strcmp(algorithm, "multi_leader") != 0;
    case C_REDUCE: return 1;
    default: return !strcmp(algorithm, "pairwise");
  }
}

static uint64_t fnv(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h;
}

/* ---- one case ----------------------------------------------------------------------------- */

/* Whether the library must refuse the call under TOPOCOLL_FALLBACK=error: a forced algorithm
 * (not native, not auto) that cannot run it. */
static int mustRefuse(const Case* c, long vector) {
  if (!strcmp(c->algorithm, "native") || !strcmp(c->algorithm, "auto") || vector == 0) return 0;
  int user_op = c->op == g_matmul || c->op == g_compose;
  if (user_op && c->nonblocking) return 1;
  return !c->commutative && !rankOrdered(c->algorithm);
}

static void runCase(const Case* c, int checked) {
  g_cases++;
  const long vector = vectorElements(c), result = resultElements(c);
  const int in_place = inPlaceHere(c);
  /* The receive buffer: the reduce_scatters' whole vector in place, else the result. */
  const long received = in_place && g_coll >= C_REDUCE_SCATTER_BLOCK ? vector : result;
  /* Compared: the result and the guard byte (what follows a reduce_scatter's part in place is
   * left unspecified by MPI). */
  const size_t bytes = (size_t)received * extentOf(c) + 1, compared = (size_t)result * extentOf(c);
  /* The send buffer's holes differ from the receive buffer's: a copy of them would show. Not for
   * the predefined pair types, whose padding the MPIs may copy. */
  char* send = buffer(c, vector, !in_place, c->data == D_BASIC ? kHole : kSendHole);
  char* ours = buffer(c, received, in_place, kHole);
  char* theirs = buffer(c, received, in_place, kHole);
  const void* sb = in_place ? MPI_IN_PLACE : send;
  char* operand = NULL;
  const enum MpichCrash crash = mpichCrash(c);
  if ((crash == CRASH_IN_PLACE_REDUCE && !c->nonblocking && !strcmp(c->algorithm, "native")) ||
      (crash == CRASH_NONCOMMUTATIVE_SCATTER_BLOCK && handedToMpi(c))) {
    g_left_out++;
    goto done;
  }
  /* The reduce's root passes its operand as a send buffer instead: the same result. */
  if (crash == CRASH_IN_PLACE_REDUCE && in_place) operand = buffer(c, vector, 1, kSendHole);
  int rc = engineCall(c, sb, ours);
  int refuse = checked && mustRefuse(c, vector);
  if (refuse) {
    if (rc == MPI_SUCCESS) fail(c, "ran, but a forced algorithm that cannot run it must fail under TOPOCOLL_FALLBACK=error");
  } else {
    int prc = crash == CRASH_NONCOMMUTATIVE_SCATTER_BLOCK ? scatterOfAllreduce(c, vector, in_place ? theirs : send, theirs)
                                                         : systemCall(c, operand ? operand : sb, theirs);
    /* Arguments the MPI refuses (a predefined op on a derived type) must be refused alike. */
    int class = rc, pclass = prc;
    MPI_Error_class(rc, &class);
    MPI_Error_class(prc, &pclass);
    if (class != pclass) fail(c, "the call through the library returned class %d, the system MPI's %d", class, pclass);
    if (rc != MPI_SUCCESS || prc != MPI_SUCCESS) goto done;
    if (ours[bytes - 1] != theirs[bytes - 1]) fail(c, "the byte after the receive buffer written");
    /* A complex product's zero parts take their sign from the order of evaluation (-1 x -1:
     * 1 - 0i), which differs between algorithms: compared as values. */
    int by_value = c->data == D_BASIC && c->op == MPI_PROD && (c->basic->fill == F_COMPLEX_FLOAT || c->basic->fill == F_COMPLEX_DOUBLE);
    for (size_t i = 0; by_value && i < compared; i += c->basic->fill == F_COMPLEX_FLOAT ? 4 : 8) {
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
    for (size_t i = 0; !by_value && i < compared; i++) {
      if (ours[i] != theirs[i]) {
        size_t e = i / extentOf(c);
        fail(c, "element %zu byte %zu: 0x%02x, the system MPI's 0x%02x", e, i % extentOf(c), (unsigned char)ours[i], (unsigned char)theirs[i]);
        break;
      }
    }
    for (size_t i = 0; i < compared; i++) {
      if (!covered(c, i % extentOf(c)) && (unsigned char)ours[i] != kHole) {
        fail(c, "hole byte %zu of element %zu written (0x%02x)", i % extentOf(c), i / extentOf(c), (unsigned char)ours[i]);
        break;
      }
    }
    if (g_coll == C_ALLREDUCE) {
      /* The same bits on every rank. */
      uint64_t h = fnv(ours, compared), lo = h, hi = h;
      PMPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
      PMPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
      if (lo != hi) fail(c, "ranks hold different results");
    }
  }
done:
  free(send);
  free(ours);
  free(theirs);
  free(operand);
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
        c.root = turn % g_size; /* reduce: every rank in turn */
        c.large_count = turn % 3 == 2;
        c.nonblocking = turn++ % 2;
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

/* Reduce with a root out of range, blocking and nonblocking: an error, of the class the system
 * MPI returns (MPI_ERR_ROOT), through the library too. */
static void badRoots(void) {
  const int roots[] = {g_size, -3, 1000000};
  for (int k = 0; k < 6; k++) {
    int value = g_rank, result = -1;
    Case c = {.data = D_INT, .type = MPI_INT, .op = MPI_SUM, .op_name = "SUM", .commutative = 1, .count = 1, .root = roots[k / 2], .nonblocking = k % 2, .algorithm = "auto"};
    g_cases++;
    int rc = engineCall(&c, &value, &result), prc = PMPI_Reduce(&value, &result, 1, MPI_INT, MPI_SUM, c.root, MPI_COMM_WORLD);
    int class = rc, pclass = prc;
    MPI_Error_class(rc, &class);
    MPI_Error_class(prc, &pclass);
    if (rc == MPI_SUCCESS || class != pclass) fail(&c, "a bad root: returned class %d, the system MPI's %d", class, pclass);
    if (result != -1) fail(&c, "a bad root: the receive buffer written");
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
        if (force) force(kCollNames[g_coll], c.algorithm);
        c.count = k ? 1024 : 7;
        c.root = (turn / 2) % g_size;
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
    int known = 0;
    if (!strcmp(argv[i], "--collective") && i + 1 < argc) {
      for (int k = 0; k < 4; k++)
        if (!strcmp(argv[i + 1], kCollNames[k])) g_coll = (enum Coll)k, known = 1;
      i++;
    } else if (!strcmp(argv[i], "--algorithm") && i + 1 < argc) {
      only = argv[++i], known = 1;
    } else if (!strcmp(argv[i], "--max-count") && i + 1 < argc) {
      max_count = atol(argv[++i]), known = 1;
    } else if (!strcmp(argv[i], "--large-bytes") && i + 1 < argc) {
      g_large_bytes = atol(argv[++i]), known = 1;
    } else if (!strcmp(argv[i], "--require-topocoll")) {
      require_topocoll = known = 1;
    }
    if (!known) {
      fprintf(stderr, "reductions: bad argument \"%s\"; valid: --collective allreduce|reduce|reduce_scatter_block|reduce_scatter, --algorithm NAME, --max-count N, --large-bytes B, --require-topocoll\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_parts = calloc((size_t)g_size, sizeof *g_parts);
#if MPI_VERSION >= 4
  g_parts_c = calloc((size_t)g_size, sizeof *g_parts_c);
#endif
  const char* coll = kCollNames[g_coll];
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
    if (algorithms(coll, list + used + 1, (int)(sizeof list - used - 1)) <= 0) list[used] = 0;
  } else {
    strcpy(list, "system");
  }
  if (g_rank == 0) printf("algorithms %s: %s\n", coll, list);
  char* names[16];
  int nnames = 0;
  for (char *save = NULL, *name = strtok_r(list, ",", &save); name && nnames < 16; name = strtok_r(NULL, ",", &save)) {
    names[nnames++] = name;
    if (force && force(coll, name) != 0) {
      fprintf(stderr, "FAIL rank %d: topocoll_force_algorithm(%s, %s) refused\n", g_rank, coll, name);
      g_failures++;
    }
    everyCase(name, max_count, checked);
  }
  basicCases(names, nnames, force, max_count, checked);
  if (g_coll == C_REDUCE) badRoots();
  if (force) force(coll, "auto");
  free(g_parts);
#if MPI_VERSION >= 4
  free(g_parts_c);
#endif

  MPI_Op_free(&g_matmul);
  MPI_Op_free(&g_compose);
  MPI_Type_free(&g_matrix);
  MPI_Type_free(&g_affine);
  MPI_Type_free(&g_dvec);
  int failures = g_failures;
  PMPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("reductions: %d cases on %d ranks, %d failures\n", g_cases - g_left_out, g_size, failures);
  if (g_rank == 0 && g_left_out) printf("left out: %d calls on which MPICH's own collective crashes\n", g_left_out);
  MPI_Finalize();
  return failures ? 1 : 0;
}
