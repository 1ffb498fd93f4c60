#include "reduce_kernels.h"

#include <array>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

namespace topocoll::reduce {
namespace {

enum OpIndex { kSum, kProd, kMin, kMax, kLand, kLor, kLxor, kBand, kBor, kBxor, kMinloc, kMaxloc, kOpCount };

int opIndex(MPI_Op op) {
  if (op == MPI_SUM) return kSum;
  if (op == MPI_MAX) return kMax;
  if (op == MPI_MIN) return kMin;
  if (op == MPI_PROD) return kProd;
  if (op == MPI_LAND) return kLand;
  if (op == MPI_LOR) return kLor;
  if (op == MPI_LXOR) return kLxor;
  if (op == MPI_BAND) return kBand;
  if (op == MPI_BOR) return kBor;
  if (op == MPI_BXOR) return kBxor;
  if (op == MPI_MINLOC) return kMinloc;
  if (op == MPI_MAXLOC) return kMaxloc;
  return -1;
}

// Integer arithmetic in an unsigned type at least as wide as unsigned int: wraps, never
// overflows (signed overflow is undefined, and narrow types promote to int).
template <class T>
using Wide = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

struct Sum {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
    else return a + b;
  }
};
struct Prod {
  template <class T>
  static T apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
    else return a * b;
  }
};
// As MPI implementations write them (a > b ? a : b): the left operand wins only when strictly
// greater, which fixes the result on NaN and signed zeros for a given operand order.
struct Max {
  template <class T>
  static T apply(T a, T b) { return a > b ? a : b; }
};
struct Min {
  template <class T>
  static T apply(T a, T b) { return a < b ? a : b; }
};
struct Land {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>(a != 0 && b != 0); }
};
struct Lor {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>(a != 0 || b != 0); }
};
struct Lxor {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>((a != 0) != (b != 0)); }
};
struct Band {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>(a & b); }
};
struct Bor {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>(a | b); }
};
struct Bxor {
  template <class T>
  static T apply(T a, T b) { return static_cast<T>(a ^ b); }
};

// Loads and stores through memcpy: any alignment (a packed MPI_DOUBLE_INT puts doubles 12 bytes
// apart), and the compiler still emits (unaligned) vector loads.
template <class Op, class T, bool kSrcFirst>
void combine(const char* __restrict src, char* __restrict dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, src + i * sizeof(T), sizeof(T));
    std::memcpy(&b, dst + i * sizeof(T), sizeof(T));
    const T c = kSrcFirst ? Op::apply(a, b) : Op::apply(b, a);
    std::memcpy(dst + i * sizeof(T), &c, sizeof(T));
  }
}

// MINLOC/MAXLOC on (value, int) pairs packed as the signature: the value, then the int. The
// better value wins; on a tie the smaller index (MPI's definition: commutative and associative).
template <class V, bool kMaxloc, bool kSrcFirst>
void combinePairs(const char* __restrict src, char* __restrict dst, size_t n) {
  constexpr size_t kStride = sizeof(V) + sizeof(int);
  for (size_t i = 0; i < n; ++i) {
    V va, vb;
    int ia, ib;
    std::memcpy(&va, src + i * kStride, sizeof(V));
    std::memcpy(&ia, src + i * kStride + sizeof(V), sizeof(int));
    std::memcpy(&vb, dst + i * kStride, sizeof(V));
    std::memcpy(&ib, dst + i * kStride + sizeof(V), sizeof(int));
    if (!kSrcFirst) {
      std::swap(va, vb);
      std::swap(ia, ib);
    }
    const bool left_wins = kMaxloc ? va > vb : va < vb;
    const bool right_wins = kMaxloc ? vb > va : vb < va;
    const V v = left_wins ? va : vb;
    const int index = left_wins ? ia : right_wins ? ib : (ia < ib ? ia : ib);
    std::memcpy(dst + i * kStride, &v, sizeof(V));
    std::memcpy(dst + i * kStride + sizeof(V), &index, sizeof(int));
  }
}

using Row = std::array<Kernel, kOpCount>;

template <class Op, class T>
constexpr Kernel kernel() {
  return {&combine<Op, T, true>, &combine<Op, T, false>, sizeof(T)};
}

template <class T>
Row integerRow() {
  Row r{};
  r[kSum] = kernel<Sum, T>();
  r[kProd] = kernel<Prod, T>();
  r[kMin] = kernel<Min, T>();
  r[kMax] = kernel<Max, T>();
  r[kLand] = kernel<Land, T>();
  r[kLor] = kernel<Lor, T>();
  r[kLxor] = kernel<Lxor, T>();
  r[kBand] = kernel<Band, T>();
  r[kBor] = kernel<Bor, T>();
  r[kBxor] = kernel<Bxor, T>();
  return r;
}

template <class T>
Row floatingRow() {
  Row r{};
  r[kSum] = kernel<Sum, T>();
  r[kProd] = kernel<Prod, T>();
  r[kMin] = kernel<Min, T>();
  r[kMax] = kernel<Max, T>();
  return r;
}

// A complex SUM adds real and imaginary parts: the SUM of twice as many T (which vectorizes).
template <class T, bool kSrcFirst>
void combineComplexSum(const char* __restrict src, char* __restrict dst, size_t n) {
  combine<Sum, T, kSrcFirst>(src, dst, 2 * n);
}

template <class T>
Row complexRow() {
  Row r{};
  r[kSum] = {&combineComplexSum<T, true>, &combineComplexSum<T, false>, 2 * sizeof(T)};
  r[kProd] = kernel<Prod, std::complex<T>>();
  return r;
}

// MPI_C_BOOL: logical ops on its bytes (0 false, anything else true; results 0 or 1).
Row boolRow() {
  Row r{};
  r[kLand] = kernel<Land, uint8_t>();
  r[kLor] = kernel<Lor, uint8_t>();
  r[kLxor] = kernel<Lxor, uint8_t>();
  return r;
}

// MPI_BYTE: bitwise ops only.
Row byteRow() {
  Row r{};
  r[kBand] = kernel<Band, uint8_t>();
  r[kBor] = kernel<Bor, uint8_t>();
  r[kBxor] = kernel<Bxor, uint8_t>();
  return r;
}

template <class V>
Row pairRow() {
  Row r{};
  r[kMinloc] = {&combinePairs<V, false, true>, &combinePairs<V, false, false>, sizeof(V) + sizeof(int)};
  r[kMaxloc] = {&combinePairs<V, true, true>, &combinePairs<V, true, false>, sizeof(V) + sizeof(int)};
  return r;
}

// An integer type of `bytes` bytes (Fortran INTEGER, whose size the MPI was configured with).
Row integerOfSize(int bytes) {
  switch (bytes) {
    case 1: return integerRow<int8_t>();
    case 2: return integerRow<int16_t>();
    case 4: return integerRow<int32_t>();
    case 8: return integerRow<int64_t>();
    default: return Row{};
  }
}

struct TypeRow {
  MPI_Datatype type;
  Row row;
};

// Built at first use: Open MPI's handles are addresses, not constants. A row is kept only when
// the MPI's size of the type is the C type's (the kernels' element size).
const std::vector<TypeRow>& typeRows() {
  static const std::vector<TypeRow> rows = [] {
    std::vector<TypeRow> t;
    auto add = [&](MPI_Datatype type, Row row) {
      int size = 0;
      if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) return;
      for (Kernel& k : row) {
        if (k && k.basic_bytes != size) k = Kernel{};
      }
      t.push_back({type, row});
    };
    // The commonest first: the search is linear.
    add(MPI_DOUBLE, floatingRow<double>());
    add(MPI_INT, integerRow<int>());
    add(MPI_FLOAT, floatingRow<float>());
    add(MPI_LONG, integerRow<long>());
    add(MPI_UNSIGNED, integerRow<unsigned>());
    add(MPI_LONG_LONG, integerRow<long long>());
    add(MPI_UNSIGNED_LONG, integerRow<unsigned long>());
    add(MPI_UNSIGNED_LONG_LONG, integerRow<unsigned long long>());
    add(MPI_SHORT, integerRow<short>());
    add(MPI_UNSIGNED_SHORT, integerRow<unsigned short>());
    add(MPI_SIGNED_CHAR, integerRow<signed char>());
    add(MPI_UNSIGNED_CHAR, integerRow<unsigned char>());
    add(MPI_INT8_T, integerRow<int8_t>());
    add(MPI_INT16_T, integerRow<int16_t>());
    add(MPI_INT32_T, integerRow<int32_t>());
    add(MPI_INT64_T, integerRow<int64_t>());
    add(MPI_UINT8_T, integerRow<uint8_t>());
    add(MPI_UINT16_T, integerRow<uint16_t>());
    add(MPI_UINT32_T, integerRow<uint32_t>());
    add(MPI_UINT64_T, integerRow<uint64_t>());
    add(MPI_AINT, integerRow<MPI_Aint>());
    add(MPI_OFFSET, integerRow<MPI_Offset>());
    add(MPI_COUNT, integerRow<MPI_Count>());
    add(MPI_LONG_DOUBLE, floatingRow<long double>());
    add(MPI_C_BOOL, boolRow());
    add(MPI_BYTE, byteRow());
    add(MPI_C_FLOAT_COMPLEX, complexRow<float>());
    add(MPI_C_DOUBLE_COMPLEX, complexRow<double>());
    add(MPI_C_LONG_DOUBLE_COMPLEX, complexRow<long double>());
    add(MPI_DOUBLE_INT, pairRow<double>());
    add(MPI_2INT, pairRow<int>());
    add(MPI_FLOAT_INT, pairRow<float>());
    add(MPI_LONG_INT, pairRow<long>());
    add(MPI_SHORT_INT, pairRow<short>());
    add(MPI_LONG_DOUBLE_INT, pairRow<long double>());
    // Fortran numeric types a C program may pass, by the size the MPI gives them.
    int size = 0;
    if (MPI_INTEGER != MPI_DATATYPE_NULL && PMPI_Type_size(MPI_INTEGER, &size) == MPI_SUCCESS) add(MPI_INTEGER, integerOfSize(size));
    add(MPI_REAL, floatingRow<float>());
    add(MPI_DOUBLE_PRECISION, floatingRow<double>());
    return t;
  }();
  return rows;
}

}  // namespace

bool isPredefinedOp(MPI_Op op) {
  return opIndex(op) >= 0 || op == MPI_REPLACE || op == MPI_NO_OP;
}

Kernel findKernel(MPI_Op op, MPI_Datatype basic) {
  const int index = opIndex(op);
  if (index < 0) return {};
  for (const TypeRow& t : typeRows()) {
    if (t.type == basic) return t.row[index];
  }
  return {};
}

}  // namespace topocoll::reduce
