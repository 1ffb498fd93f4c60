#include "reduction.h"

#include <climits>
#include <cstring>
#include <vector>

#include "../staging.h"

namespace topocoll {
namespace {

// The last pair of a predefined op and a predefined type resolved on this thread: neither is
// ever freed, so the handles cannot come back meaning something else.
struct Resolved {
  MPI_Op op = MPI_OP_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  Reduction reduction;
};
thread_local Resolved t_last;

// Scratch of the PMPI_Reduce_local path, kept per thread between calls.
thread_local std::vector<char> t_left, t_right;

}  // namespace

int Reduction::resolve(MPI_Op op, MPI_Datatype type, Reduction* out) {
  if (op == t_last.op && type == t_last.type) {
    *out = t_last.reduction;
    return MPI_SUCCESS;
  }
  *out = Reduction{};
  if (op == MPI_OP_NULL || type == MPI_DATATYPE_NULL) return MPI_SUCCESS;
  int size = 0, ni, na, nt, combiner;
  int rc = PMPI_Type_size(type, &size);
  if (rc == MPI_SUCCESS) rc = PMPI_Type_get_envelope(type, &ni, &na, &nt, &combiner);
  if (rc != MPI_SUCCESS) return rc;
  Reduction r;
  r.element_bytes_ = size;
  if (reduce::isPredefinedOp(op)) {
    // MPI defines the predefined ops on predefined types only (Open MPI 4.1 and MPICH 4.0 refuse
    // derived ones with MPI_ERR_OP): a derived type goes to the MPI, which raises its error.
    if (combiner != MPI_COMBINER_NAMED) return MPI_SUCCESS;
    r.kernel_ = reduce::findKernel(op, type);
    if (r.kernel_ && size == r.kernel_.basic_bytes) r.path_ = Path::Kernel;
    t_last = {op, type, r};
  } else {
    int commutative = 1;
    if ((rc = PMPI_Op_commutative(op, &commutative)) != MPI_SUCCESS) return rc;
    if ((rc = isContiguous(type, &r.contiguous_)) != MPI_SUCCESS) return rc;
    MPI_Aint lb;
    if ((rc = PMPI_Type_get_extent(type, &lb, &r.extent_)) != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Type_get_true_extent(type, &r.true_lb_, &r.true_extent_)) != MPI_SUCCESS) return rc;
    if (r.contiguous_ || r.extent_ > 0) {  // a negative extent is left to the MPI
      r.path_ = Path::ReduceLocal;
      r.commutative_ = commutative != 0;
      r.op_ = op;
      r.type_ = type;
    }
  }
  *out = r;
  return MPI_SUCCESS;
}

int Reduction::combine(const char* src, char* dst, int64_t elements, ReduceOrder order, MPI_Comm comm) const {
  if (elements <= 0) return MPI_SUCCESS;
  if (path_ == Path::Kernel) {
    (order == ReduceOrder::SrcFirst ? kernel_.src_first : kernel_.dst_first)(src, dst, static_cast<size_t>(elements));
    return MPI_SUCCESS;
  }
  if (path_ != Path::ReduceLocal) return MPI_ERR_INTERN;
  if (elements > INT_MAX) return MPI_ERR_COUNT;
  return reduceLocal(src, dst, static_cast<int>(elements), order, comm);
}

// MPI_Reduce_local(in, inout) computes inout = in op inout: dst op src goes through a copy of src.
int Reduction::reduceLocal(const char* src, char* dst, int count, ReduceOrder order, MPI_Comm comm) const {
  const size_t packed = static_cast<size_t>(count) * static_cast<size_t>(element_bytes_);
  if (contiguous_) {
    if (order == ReduceOrder::SrcFirst) return PMPI_Reduce_local(src, dst, count, type_, op_);
    t_left.resize(packed);
    std::memcpy(t_left.data(), src, packed);
    int rc = PMPI_Reduce_local(dst, t_left.data(), count, type_, op_);
    if (rc == MPI_SUCCESS) std::memcpy(dst, t_left.data(), packed);
    return rc;
  }
  // Typed copies of both operands, element 0 at base (its data from base + true_lb).
  const size_t span = static_cast<size_t>(count - 1) * static_cast<size_t>(extent_) + static_cast<size_t>(true_extent_);
  t_left.resize(span);
  t_right.resize(span);
  char* src_typed = t_left.data() - true_lb_;
  char* dst_typed = t_right.data() - true_lb_;
  int position = 0, rc;
  if ((rc = PMPI_Unpack(src, static_cast<int>(packed), &position, src_typed, count, type_, comm)) != MPI_SUCCESS) return rc;
  position = 0;
  if ((rc = PMPI_Unpack(dst, static_cast<int>(packed), &position, dst_typed, count, type_, comm)) != MPI_SUCCESS) return rc;
  char* result = order == ReduceOrder::SrcFirst ? dst_typed : src_typed;
  rc = order == ReduceOrder::SrcFirst ? PMPI_Reduce_local(src_typed, dst_typed, count, type_, op_)
                                      : PMPI_Reduce_local(dst_typed, src_typed, count, type_, op_);
  if (rc != MPI_SUCCESS) return rc;
  position = 0;
  return PMPI_Pack(result, count, type_, dst, static_cast<int>(packed), &position, comm);
}

}  // namespace topocoll
