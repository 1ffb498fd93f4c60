// The predefined MPI ops on predefined types as plain loops the compiler vectorizes (this file's
// translation unit is built with -O3). A kernel combines n elements of one basic type laid out
// as the type signature's bytes (MPI_Pack's layout: a pair type's value then its int, no gap),
// at any alignment; src and dst do not overlap. Integer arithmetic wraps (MPI defines no
// overflow; Open MPI 4.1's AVX SUM saturates 8-bit types, ompi#8045, and disagrees with these).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace topocoll::reduce {

using KernelFn = void (*)(const char* src, char* dst, size_t n);

struct Kernel {
  KernelFn src_first = nullptr;  // dst = src op dst
  KernelFn dst_first = nullptr;  // dst = dst op src
  int64_t basic_bytes = 0;       // signature bytes of one element of the basic type
  explicit operator bool() const { return src_first != nullptr; }
};

// Whether `op` is one of MPI's predefined ops (MPI_SUM ... MPI_NO_OP).
bool isPredefinedOp(MPI_Op op);

// The kernel of `op` on the predefined type `basic`, or an empty one where the engine has none
// (an op MPI does not define on the type, or a type left to the MPI: Fortran logical and complex
// types, MPI_CHAR, MPI_WCHAR ...).
Kernel findKernel(MPI_Op op, MPI_Datatype basic);

}  // namespace topocoll::reduce
