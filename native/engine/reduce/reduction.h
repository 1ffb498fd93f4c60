// How the executor combines spans for one reduction call (OpKind::Reduce). Spans hold elements
// as the type signature's bytes (staging.h): a contiguous type's own memory, else its packed form.
// - A predefined op on a predefined type: a vectorized kernel (reduce_kernels.h). No MPI call: it
//   may run on any thread, and needs no handle once resolved.
// - A user-defined op (MPI_Op_create): PMPI_Reduce_local with the user's op and datatype, which
//   the user's function receives as given. A non-contiguous datatype is unpacked into a typed
//   scratch area for the call and packed back.
// - Anything else (a predefined op on a derived type, which MPI does not define and MPICH alone
//   runs; a type the kernels leave to the MPI): not supported; the engine hands the call to the
//   MPI, which combines it or raises the error.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "../schedule.h"
#include "reduce_kernels.h"

namespace topocoll {

class Reduction {
 public:
  // Resolves (op, type) for a call. MPI errors only from querying the datatype; an unsupported
  // pair is MPI_SUCCESS with supported() false.
  static int resolve(MPI_Op op, MPI_Datatype type, Reduction* out);

  bool supported() const { return path_ != Path::None; }
  bool commutative() const { return commutative_; }
  // Combines through MPI with the user's handles: valid only while the user's call lasts (MPI
  // lets a program free its op and datatype while a nonblocking call is pending, and offers no
  // way to keep a user-defined op alive).
  bool needsUserHandles() const { return path_ == Path::ReduceLocal; }
  // Signature bytes of one element of the call's datatype: the span unit.
  int64_t elementBytes() const { return element_bytes_; }

  // dst = src op dst (SrcFirst) or dst op src (DstFirst), `elements` elements of the call's type.
  // `comm`: told to MPI_Pack/Unpack (the engine's shadow).
  int combine(const char* src, char* dst, int64_t elements, ReduceOrder order, MPI_Comm comm) const;

 private:
  enum class Path : uint8_t { None, Kernel, ReduceLocal };
  int reduceLocal(const char* src, char* dst, int count, ReduceOrder order, MPI_Comm comm) const;

  Path path_ = Path::None;
  bool commutative_ = true;
  bool contiguous_ = true;
  reduce::Kernel kernel_;
  int64_t element_bytes_ = 0;
  MPI_Op op_ = MPI_OP_NULL;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Aint extent_ = 0, true_lb_ = 0, true_extent_ = 0;
};

}  // namespace topocoll
